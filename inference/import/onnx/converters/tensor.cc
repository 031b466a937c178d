// Tensor, shape and attention ops (inference/ir/ops/tensor_ops.h): MatMul of
// two activations, Gather, Expand, Tile, Where, ConstantOfShape, Range, the
// comparisons and logic ops, Cast of activations, Split, the reductions,
// ArgMax / ArgMin, TopK and Einsum; ScatterND (folded for constants
// without reduction, else SCATTER_ND); Mod of constants only;
// and the folding of Slice, Transpose, Concat and the binaries of constants
// for the other converter files (tensor.h). Each folds into a constant when
// all its inputs are constants (the shape arithmetic of exported
// transformers: Shape -> Gather -> Unsqueeze -> Concat -> ConstantOfShape ->
// Equal -> Where -> Expand; swin_t's window masks); folded booleans are
// int64 0 / 1. Values at run time are
// float32 (booleans 0 / 1, indices whole numbers). Ops that are not
// elementwise take their inputs in ONNX's layout (ToNchw).
#include "inference/import/onnx/converters/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "inference/ir/ops/dynamic_ops.h"
#include "inference/ir/ops/math_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// ---- constant folding -------------------------------------------------------

// A constant's values, exact for int64 (long double has a mantissa of 64
// bits or more on x86-64 and aarch64 Linux; values are clamped back into
// int64).
struct Folded {
  Shape shape;
  bool is_int = false;
  std::vector<long double> v;
};

Folded ReadConst(const ConverterContext& c, int id) {
  Folded f;
  f.shape = c.ShapeOf(id);
  const DataType t = c.tensor(id).dtype;
  f.is_int = t == DataType::kInt64 || t == DataType::kInt32;
  if (f.is_int) {
    for (int64_t x : c.ConstInts(id)) f.v.push_back(static_cast<long double>(x));
  } else {
    for (float x : c.ConstFloats(id)) f.v.push_back(x);
  }
  return f;
}

// Folds larger than this stay unsupported (a corrupt shape must not make the
// importer allocate gigabytes).
constexpr int64_t kMaxFoldElements = int64_t{1} << 24;

Status CheckFoldSize(const ConverterContext& c, const Shape& shape) {
  int64_t n = 1;
  for (int d : shape) {
    if (d < 0) return c.Invalid("negative dimension");
    n *= d;
    if (n > kMaxFoldElements) return c.Unsupported("folding a constant of more than 2^24 elements");
  }
  return Status::Ok();
}

int NewFolded(ConverterContext& c, const std::string& name, const Folded& f) {
  if (f.is_int) {
    std::vector<int64_t> v;
    for (long double x : f.v) {
      const long double lo = static_cast<long double>(INT64_MIN), hi = static_cast<long double>(INT64_MAX);
      v.push_back(std::isnan(x) ? 0 : x <= lo ? INT64_MIN : x >= hi ? INT64_MAX : static_cast<int64_t>(x));
    }
    return c.NewIntConst(name, v, &f.shape);
  }
  std::vector<float> v(f.v.begin(), f.v.end());
  return c.NewFloatConst(name, f.shape, v);
}

void DefineFolded(ConverterContext& c, const Folded& f, int output = 0) {
  const std::string& name = output < c.node().output_size() ? c.node().output(output) : c.out_name();
  c.Define(NewFolded(c, name, f), false, output);
}

// Row-major strides of `s`.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// out[i] = f(operands at i broadcast) over the broadcast shape.
template <typename F>
StatusOr<Folded> FoldBroadcast(const ConverterContext& c, const std::vector<Folded>& ins, F f) {
  std::vector<Shape> shapes;
  for (const Folded& x : ins) shapes.push_back(x.shape);
  Folded out;
  if (!ir::BroadcastShapes(shapes, &out.shape)) return c.Invalid("constant shapes do not broadcast");
  RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, out.shape));
  const int rank = static_cast<int>(out.shape.size());
  const int64_t n = NumElements(out.shape);
  std::vector<std::vector<int64_t>> strides;
  for (const Folded& x : ins) {
    std::vector<int64_t> st(rank, 0);
    const std::vector<int64_t> own = Strides(x.shape);
    const int shift = rank - static_cast<int>(x.shape.size());
    for (int d = shift; d < rank; ++d) st[d] = x.shape[d - shift] == 1 ? 0 : own[d - shift];
    strides.push_back(st);
  }
  out.v.resize(n);
  std::vector<long double> args(ins.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i;
    std::vector<int64_t> off(ins.size(), 0);
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t k = rest % out.shape[d];
      rest /= out.shape[d];
      for (size_t j = 0; j < ins.size(); ++j) off[j] += k * strides[j][d];
    }
    for (size_t j = 0; j < ins.size(); ++j) args[j] = ins[j].v[off[j]];
    out.v[i] = f(args);
  }
  return out;
}

// ---- inputs -------------------------------------------------------------------

bool AllConst(const ConverterContext& c, const std::vector<Value>& vs) {
  for (const Value& v : vs) {
    if (!c.IsConst(v.id)) return false;
  }
  return true;
}

// An operand of a run-time node: in ONNX's layout, constants as float32.
StatusOr<int> Operand(ConverterContext& c, const Value& v) {
  if (c.IsConst(v.id) && c.tensor(v.id).dtype != DataType::kFloat32) {
    return c.NewFloatConst(c.tensor(v.id).name + "/f32", c.ShapeOf(v.id), c.ConstFloats(v.id));
  }
  return c.ToNchw(v);
}

StatusOr<std::vector<Value>> Inputs(ConverterContext& c, int count) {
  std::vector<Value> vs;
  for (int i = 0; i < count; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    vs.push_back(v);
  }
  return vs;
}

StatusOr<int> NormalizeAxis(ConverterContext& c, int64_t axis, int rank, const char* attr = "axis") {
  if (rank == 0) return c.Unsupported(std::string("an ") + attr + " of a scalar");
  if (axis < -rank || axis >= rank) {
    return c.UnsupportedAttribute(attr, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// A constant int input (shapes, repeats, K) as int64s.
StatusOr<std::vector<int64_t>> IntsInput(ConverterContext& c, int i) {
  RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(i));
  return c.ConstInts(id);
}

std::vector<int> ToInts(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

// ---- MatMul ---------------------------------------------------------------------

}  // namespace

Status ConvertBatchMatMul(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 2));
  RILL_INF_ASSIGN_OR_RETURN(int a, Operand(c, in[0]));
  RILL_INF_ASSIGN_OR_RETURN(int b, Operand(c, in[1]));
  Shape as = c.ShapeOf(a), bs = c.ShapeOf(b);
  if (as.empty() || bs.empty()) return c.Unsupported("MatMul of a scalar");
  // numpy: a 1-D left operand is a row, a 1-D right one a column; the added
  // dim is dropped from the result.
  const bool a_vector = as.size() == 1, b_vector = bs.size() == 1;
  if (a_vector) {
    ir::OpAttrs r;
    r.new_shape = {1, as[0]};
    RILL_INF_ASSIGN_OR_RETURN(a, c.Emit(OpType::kReshape, {a}, c.out_name() + "/a_row", r));
  }
  if (b_vector) {
    ir::OpAttrs r;
    r.new_shape = {bs[0], 1};
    RILL_INF_ASSIGN_OR_RETURN(b, c.Emit(OpType::kReshape, {b}, c.out_name() + "/b_column", r));
  }
  Shape out;
  std::string why;
  if (!ir::BatchMatMulShape(c.ShapeOf(a), c.ShapeOf(b), false, false, &out, &why)) return c.Invalid(why);
  const bool reshape = a_vector || b_vector;
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(ir::BatchMatMulOp(), {a, b}, reshape ? c.out_name() + "/matmul" : c.out_name(),
                                          {}, std::make_shared<ir::BatchMatMulAttrs>()));
  if (reshape) {
    ir::OpAttrs r;
    Shape target(out.begin(), out.end() - 2);
    if (!a_vector) target.push_back(out[out.size() - 2]);
    if (!b_vector) target.push_back(out.back());
    r.new_shape = target;
    if (r.new_shape.empty()) r.new_shape = {1};
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kReshape, {y}, c.out_name(), r));
  }
  c.Define(y, false);
  return Status::Ok();
}

// ---- Gather -------------------------------------------------------------------------

Status ConvertGather(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 2));
  const Shape ds = c.OnnxShape(in[0]);
  const int rank = static_cast<int>(ds.size());
  if (rank == 0) return c.Unsupported("Gather of a scalar");
  RILL_INF_ASSIGN_OR_RETURN(int axis, NormalizeAxis(c, c.AttrInt("axis", 0), rank));
  const Shape is = c.ShapeOf(in[1].id);
  // Large constant tables (embeddings) gather at run time.
  if (AllConst(c, in) && NumElements(ds) <= kMaxFoldElements) {
    const Folded d = ReadConst(c, in[0].id);
    const std::vector<int64_t> idx = c.ConstInts(in[1].id);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= ds[i];
    for (int i = axis + 1; i < rank; ++i) inner *= ds[i];
    Folded out;
    out.is_int = d.is_int;
    out.shape.assign(ds.begin(), ds.begin() + axis);
    out.shape.insert(out.shape.end(), is.begin(), is.end());
    out.shape.insert(out.shape.end(), ds.begin() + axis + 1, ds.end());
    RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, out.shape));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : idx) {
        const int64_t k = i < 0 ? i + ds[axis] : i;
        if (k < 0 || k >= ds[axis]) return c.Invalid("index " + std::to_string(i) + " out of range");
        for (int64_t j = 0; j < inner; ++j) out.v.push_back(d.v[(o * ds[axis] + k) * inner + j]);
      }
    }
    DefineFolded(c, out);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int data, c.ToNchw(in[0]));
  if (c.IsConst(data) && c.tensor(data).dtype != DataType::kFloat32) {
    RILL_INF_ASSIGN_OR_RETURN(data, Operand(c, in[0]));
  }
  int indices = in[1].id;
  if (!c.IsConst(indices)) {
    RILL_INF_ASSIGN_OR_RETURN(indices, c.ToNchw(in[1]));
  } else if (c.tensor(indices).dtype == DataType::kFloat32) {
    return c.Invalid("indices must be integers");
  } else {
    for (int64_t i : c.ConstInts(indices)) {
      if (ds[axis] == ir::kDynamicDim) break;  // checked at run time
      if (i < -ds[axis] || i >= ds[axis]) return c.Invalid("index " + std::to_string(i) + " out of range");
    }
  }
  auto a = std::make_shared<ir::AxisAttrs>();
  a->axis = axis;
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherOp(), {data, indices}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

// ---- Cast ---------------------------------------------------------------------------------

Status ConvertCastTensor(ConverterContext& c, const Value& x, int64_t to) {
  constexpr int64_t kFloat16Type = 10, kBFloat16 = 16, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5,
                    kUint32 = 12, kUint64 = 13;
  if (to == kFloat || to == kDouble || to == kFloat16Type || to == kBFloat16) {
    c.Define(x);  // values are float32 at run time (fp16 rounding not modelled)
    return Status::Ok();
  }
  auto a = std::make_shared<ir::CastAttrs>();
  if (to == kBool) {
    a->kind = ir::CastKind::kToBool;
  } else if (to == kInt64 || to == kInt32 || to == kInt16 || to == kInt8 || to == kUint8 || to == kUint16 ||
             to == kUint32 || to == kUint64) {
    a->kind = ir::CastKind::kToInteger;
    a->bits = to == kInt8 || to == kUint8 ? 8 : to == kInt16 || to == kUint16 ? 16 : to == kInt32 || to == kUint32 ? 32 : 64;
    a->is_signed = !(to == kUint8 || to == kUint16 || to == kUint32 || to == kUint64);
  } else {
    return c.UnsupportedAttribute("to", "Cast to type " + std::to_string(to));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::CastOp(), {x.id}, c.out_name(), {}, a));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

namespace {

// ---- Expand, Tile ----------------------------------------------------------------------

Status Expand(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value shape_value, c.Input(1));
  if (!c.IsConst(shape_value.id)) {
    // A shape computed at run time: EXPAND reads it then (dynamic region).
    RILL_INF_ASSIGN_OR_RETURN(int xi, Operand(c, x));
    RILL_INF_ASSIGN_OR_RETURN(int si, c.ToNchw(shape_value));
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ExpandOp(), {xi, si}, c.out_name(), {},
                                              std::make_shared<ir::ExpandAttrs>()));
    c.Define(out, false);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsInput(c, 1));
  for (int64_t d : shape) {
    if (d < 1 || d > (int64_t{1} << 30)) return c.Unsupported("Expand to dimension " + std::to_string(d));
  }
  if (c.IsConst(x.id)) {
    // Broadcast against a dummy of the target's dims.
    Folded dims;
    dims.shape = ToInts(shape);
    RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, dims.shape));
    dims.v.assign(static_cast<size_t>(NumElements(dims.shape)), 0);
    RILL_INF_ASSIGN_OR_RETURN(Folded out, FoldBroadcast(c, {ReadConst(c, x.id), dims},
                                                        [](const std::vector<long double>& v) { return v[0]; }));
    out.is_int = c.tensor(x.id).dtype != DataType::kFloat32;
    DefineFolded(c, out);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  auto a = std::make_shared<ir::ExpandAttrs>();
  a->shape = ToInts(shape);
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ExpandOp(), {xi}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status Tile(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, IntsInput(c, 1));
  const Shape s = c.OnnxShape(x);
  if (repeats.size() != s.size()) return c.Invalid("repeats must have one value per axis");
  for (int64_t r : repeats) {
    if (r < 1 || r > (int64_t{1} << 30)) return c.Unsupported("repeat " + std::to_string(r));
  }
  if (c.IsConst(x.id)) {
    const Folded f = ReadConst(c, x.id);
    Folded out;
    out.is_int = f.is_int;
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] * repeats[d] > kMaxFoldElements) return c.Unsupported("folding a constant of more than 2^24 elements");
      out.shape.push_back(static_cast<int>(s[d] * repeats[d]));
    }
    RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, out.shape));
    const int64_t n = NumElements(out.shape);
    const std::vector<int64_t> st = Strides(s);
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, src = 0;
      for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
        src += (rest % out.shape[d]) % s[d] * st[d];
        rest /= out.shape[d];
      }
      out.v.push_back(f.v[src]);
    }
    DefineFolded(c, out);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  auto a = std::make_shared<ir::TileAttrs>();
  a->repeats = ToInts(repeats);
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::TileOp(), {xi}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

// ---- Where, comparisons, logic ---------------------------------------------------

Status Where(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 3));
  if (AllConst(c, in)) {
    const Folded x = ReadConst(c, in[1].id), y = ReadConst(c, in[2].id);
    RILL_INF_ASSIGN_OR_RETURN(Folded out, FoldBroadcast(c, {ReadConst(c, in[0].id), x, y},
                                                        [](const std::vector<long double>& v) {
                                                          return v[0] != 0 ? v[1] : v[2];
                                                        }));
    out.is_int = x.is_int && y.is_int;
    DefineFolded(c, out);
    return Status::Ok();
  }
  std::vector<int> ids;
  for (const Value& v : in) {
    RILL_INF_ASSIGN_OR_RETURN(int id, Operand(c, v));
    ids.push_back(id);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::WhereOp(), ids, c.out_name()));
  c.Define(out, false);
  return Status::Ok();
}

Status Compare(ConverterContext& c) {
  static const std::map<std::string, ir::CompareKind> kKinds = {
      {"Equal", ir::CompareKind::kEqual},         {"Less", ir::CompareKind::kLess},
      {"Greater", ir::CompareKind::kGreater},     {"LessOrEqual", ir::CompareKind::kLessEqual},
      {"GreaterOrEqual", ir::CompareKind::kGreaterEqual}, {"And", ir::CompareKind::kAnd},
      {"Or", ir::CompareKind::kOr},               {"Xor", ir::CompareKind::kXor}};
  const ir::CompareKind kind = kKinds.at(c.op_type());
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 2));
  if (AllConst(c, in)) {
    RILL_INF_ASSIGN_OR_RETURN(
        Folded out, FoldBroadcast(c, {ReadConst(c, in[0].id), ReadConst(c, in[1].id)},
                                  [kind](const std::vector<long double>& v) -> long double {
                                    const long double a = v[0], b = v[1];
                                    switch (kind) {
                                      case ir::CompareKind::kEqual: return a == b;
                                      case ir::CompareKind::kLess: return a < b;
                                      case ir::CompareKind::kGreater: return a > b;
                                      case ir::CompareKind::kLessEqual: return a <= b;
                                      case ir::CompareKind::kGreaterEqual: return a >= b;
                                      case ir::CompareKind::kAnd: return a != 0 && b != 0;
                                      case ir::CompareKind::kOr: return a != 0 || b != 0;
                                      case ir::CompareKind::kXor: return (a != 0) != (b != 0);
                                    }
                                    return 0;
                                  }));
    out.is_int = true;
    DefineFolded(c, out);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int a, Operand(c, in[0]));
  RILL_INF_ASSIGN_OR_RETURN(int b, Operand(c, in[1]));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::CompareOp(kind), {a, b}, c.out_name()));
  c.Define(out, false);
  return Status::Ok();
}

Status Not(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (c.IsConst(x.id)) {
    Folded f = ReadConst(c, x.id);
    for (long double& v : f.v) v = v == 0;
    f.is_int = true;
    DefineFolded(c, f);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::NotOp(), {x.id}, c.out_name()));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

// ---- ConstantOfShape, Range ------------------------------------------------------

Status ConstantOfShape(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value shape_value, c.Input(0));
  if (!c.IsConst(shape_value.id)) return ConvertConstantOfShapeAtRun(c, shape_value);  // dynamic.cc
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsInput(c, 0));
  Folded out;
  for (int64_t d : shape) {
    if (d < 0 || d > (int64_t{1} << 30)) return c.Unsupported("dimension " + std::to_string(d));
    out.shape.push_back(static_cast<int>(d));
  }
  RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, out.shape));
  long double value = 0;
  if (const onnx::AttributeProto* attr = c.FindAttr("value")) {
    const onnx::TensorProto& t = attr->t();
    if (t.data_type() == kBool) {
      out.is_int = true;
      value = t.has_raw_data() ? (!t.raw_data().empty() && t.raw_data()[0] != 0) : (t.int32_data_size() > 0 && t.int32_data(0) != 0);
    } else {
      RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstantFromProto(t, c.out_name() + "/value"));
      const Folded v = ReadConst(c, id);
      if (v.v.size() != 1) return c.Invalid("value must hold one element");
      out.is_int = v.is_int;
      value = v.v[0];
    }
  }
  out.v.assign(static_cast<size_t>(NumElements(out.shape)), value);
  DefineFolded(c, out);
  return Status::Ok();
}

Status Range(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 3));
  if (!AllConst(c, in)) {
    // Known only at run time (a detection count): the dynamic region's.
    std::vector<int> ids;
    for (const Value& v : in) {
      if (c.IsConst(v.id) && c.tensor(v.id).dtype != DataType::kFloat32) {
        ids.push_back(c.NewFloatConst(c.tensor(v.id).name + "/f32", c.ShapeOf(v.id), c.ConstFloats(v.id)));
      } else {
        RILL_INF_ASSIGN_OR_RETURN(int id, c.ToNchw(v));
        ids.push_back(id);
      }
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::RangeOp(), ids, c.out_name()));
    c.Define(out, false);
    return Status::Ok();
  }
  const Folded start = ReadConst(c, in[0].id), limit = ReadConst(c, in[1].id), delta = ReadConst(c, in[2].id);
  if (start.v.size() != 1 || limit.v.size() != 1 || delta.v.size() != 1) return c.Invalid("inputs must be scalars");
  if (delta.v[0] == 0) return c.Invalid("delta is 0");
  const long double n = std::ceil((limit.v[0] - start.v[0]) / delta.v[0]);
  if (!(n <= kMaxFoldElements)) return c.Unsupported("Range of more than 2^24 values");
  Folded out;
  out.is_int = start.is_int;
  const int count = static_cast<int>(std::max<long double>(0, n));
  out.shape = {count};
  for (int i = 0; i < count; ++i) {
    out.v.push_back(out.is_int ? start.v[0] + i * delta.v[0]
                               : static_cast<float>(static_cast<float>(start.v[0]) + i * static_cast<float>(delta.v[0])));
  }
  DefineFolded(c, out);
  return Status::Ok();
}

// ---- Mod (integer Mod of activations too), ScatterND ----------------------------

// Integer Mod (fmod = 0, Python's %) of run-time values, which are float32
// holding integers (a detector's top-k index % classes): lowered to
// a - b * floor(a / b). Exact while |a| < 2^24: a / b is then never rounded
// across an integer (its distance to the next one, 1/|b|, exceeds half an
// ulp of the quotient), and every product and difference is an integer below
// 2^24.
Status ModOfActivations(ConverterContext& c, std::vector<Value> in) {
  if (c.AttrInt("fmod", 0) != 0) return c.UnsupportedAttribute("fmod", "fmod = 1 of activations");
  for (const Value& v : in) {
    if (c.tensor(v.id).dtype == DataType::kFloat32 && c.IsConst(v.id)) {
      return c.Unsupported("Mod of floats (fmod = 0 is for integers)");
    }
  }
  bool nhwc = false;
  for (Value& v : in) {
    if (c.IsConst(v.id) && c.tensor(v.id).dtype != DataType::kFloat32) {
      v.id = c.NewFloatConst(c.tensor(v.id).name + "/f32", c.ShapeOf(v.id), c.ConstFloats(v.id));
    }
    nhwc = nhwc || v.nhwc;
  }
  int a = in[0].id, b = in[1].id;
  if (nhwc) {
    RILL_INF_ASSIGN_OR_RETURN(a, OperandToNhwc(c, in[0]));
    RILL_INF_ASSIGN_OR_RETURN(b, OperandToNhwc(c, in[1]));
  }
  const std::string& name = c.out_name();
  RILL_INF_ASSIGN_OR_RETURN(int q, c.Emit(OpType::kDiv, {a, b}, name + "/quotient"));
  RILL_INF_ASSIGN_OR_RETURN(int f, c.Emit(ir::UnaryMathOp(ir::UnaryFn::kFloor), {q}, name + "/floor", {},
                                          std::make_shared<ir::UnaryMathAttrs>()));
  RILL_INF_ASSIGN_OR_RETURN(int m, c.Emit(OpType::kMul, {f, b}, name + "/multiple"));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kSub, {a, m}, name));
  c.Define(out, nhwc);
  return Status::Ok();
}

Status Mod(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 2));
  if (!AllConst(c, in)) return ModOfActivations(c, in);
  const Folded a = ReadConst(c, in[0].id), b = ReadConst(c, in[1].id);
  const bool fmod = c.AttrInt("fmod", 0) != 0;
  if (!fmod && !(a.is_int && b.is_int)) return c.UnsupportedAttribute("fmod", "fmod = 0 on floats");
  RILL_INF_ASSIGN_OR_RETURN(Folded out, FoldBroadcast(c, {a, b}, [fmod](const std::vector<long double>& v) {
                              if (v[1] == 0) return static_cast<long double>(0);
                              long double r = std::fmod(v[0], v[1]);
                              // fmod = 0: the divisor's sign (Python's %).
                              if (!fmod && r != 0 && (r < 0) != (v[1] < 0)) r += v[1];
                              return r;
                            }));
  out.is_int = a.is_int && b.is_int;
  DefineFolded(c, out);
  return Status::Ok();
}

Status ScatterND(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 3));
  const std::string reduction = c.AttrString("reduction", "none");
  if (!AllConst(c, in) || reduction != "none") {
    // A run-time SCATTER_ND (ir/ops/dynamic_ops.h).
    auto a = std::make_shared<ir::ScatterAttrs>();
    RILL_INF_ASSIGN_OR_RETURN(a->reduction, ReadScatterReduction(c));
    std::vector<int> ids;
    for (const Value& v : in) {
      RILL_INF_ASSIGN_OR_RETURN(int id, Operand(c, v));
      ids.push_back(id);
    }
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ScatterNdOp(), ids, c.out_name(), {}, a));
    c.Define(out, false);
    return Status::Ok();
  }
  Folded data = ReadConst(c, in[0].id);
  const Folded updates = ReadConst(c, in[2].id);
  const std::vector<int64_t> idx = c.ConstInts(in[1].id);
  const Shape is = c.ShapeOf(in[1].id);
  if (is.empty()) return c.Invalid("indices must have rank >= 1");
  const int q = is.back();
  const int r = static_cast<int>(data.shape.size());
  if (q < 1 || q > r) return c.Invalid("indices' last dim out of range");
  int64_t slice = 1;
  for (int d = q; d < r; ++d) slice *= data.shape[d];
  const int64_t tuples = q == 0 ? 0 : static_cast<int64_t>(idx.size()) / q;
  if (static_cast<int64_t>(updates.v.size()) != tuples * slice) return c.Invalid("updates do not fit the indices");
  const std::vector<int64_t> st = Strides(data.shape);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = 0;
    for (int j = 0; j < q; ++j) {
      int64_t k = idx[t * q + j];
      if (k < 0) k += data.shape[j];
      if (k < 0 || k >= data.shape[j]) return c.Invalid("index out of range");
      off += k * st[j];
    }
    for (int64_t e = 0; e < slice; ++e) data.v[off + e] = updates.v[t * slice + e];
  }
  DefineFolded(c, data);
  return Status::Ok();
}

// ---- Slice of constants of any rank ----------------------------------------------

}  // namespace

StatusOr<int> EmitReshape(ConverterContext& c, int x, const Shape& shape, const std::string& name) {
  ir::OpAttrs r;
  r.new_shape.assign(shape.begin(), shape.end());
  return c.Emit(ir::OpType::kReshape, {x}, name, r);
}

Status ConvertSliceConst(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Folded f = ReadConst(c, x.id);
  const int rank = static_cast<int>(f.shape.size());
  std::vector<int64_t> starts = c.AttrInts("starts"), ends = c.AttrInts("ends"), axes = c.AttrInts("axes"), steps;
  for (int i = 1; i <= 4; ++i) {
    if (!c.HasInput(i)) continue;
    RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> v, IntsInput(c, i));
    (i == 1 ? starts : i == 2 ? ends : i == 3 ? axes : steps) = v;
  }
  if (starts.size() != ends.size()) return c.Invalid("starts and ends differ in length");
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) return c.Invalid("axes or steps differ in length");
  std::vector<int64_t> begin(rank, 0), step(rank, 1), count(f.shape.begin(), f.shape.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    RILL_INF_ASSIGN_OR_RETURN(int a, NormalizeAxis(c, axes[i], rank, "axes"));
    const int64_t dim = f.shape[a], st = steps[i];
    if (st == 0) return c.Invalid("step 0");
    // ONNX's clamping: [0, dim] for positive steps, [-1, dim - 1] for negative.
    auto clamp = [&](int64_t v) {
      if (v < 0) v += dim;
      return st > 0 ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
    };
    const int64_t b = clamp(starts[i]), e = clamp(ends[i]);
    begin[a] = b;
    step[a] = st;
    count[a] = st > 0 ? std::max<int64_t>(0, (e - b + st - 1) / st) : std::max<int64_t>(0, (b - e - st - 1) / -st);
  }
  Folded out;
  out.is_int = f.is_int;
  for (int64_t n : count) out.shape.push_back(static_cast<int>(n));
  RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, out.shape));
  const int64_t n = NumElements(out.shape);
  const std::vector<int64_t> st = Strides(f.shape);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      off += (begin[d] + (rest % count[d]) * step[d]) * st[d];
      rest /= count[d];
    }
    out.v.push_back(f.v[off]);
  }
  DefineFolded(c, out);
  return Status::Ok();
}

Status ConvertTransposeConst(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Folded f = ReadConst(c, x.id);
  const int rank = static_cast<int>(f.shape.size());
  std::vector<int64_t> perm = c.AttrInts("perm");
  if (perm.empty()) {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (static_cast<int>(perm.size()) != rank) return c.Invalid("perm must have one value per axis");
  Folded out;
  out.is_int = f.is_int;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank) return c.Invalid("perm out of range");
    out.shape.push_back(f.shape[p]);
  }
  const std::vector<int64_t> st = Strides(f.shape);
  const int64_t n = NumElements(out.shape);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      off += (rest % out.shape[d]) * st[perm[d]];
      rest /= out.shape[d];
    }
    out.v.push_back(f.v[off]);
  }
  DefineFolded(c, out);
  return Status::Ok();
}

Status ConvertBinaryConst(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 2));
  const std::string op = c.op_type();
  if (op != "Add" && op != "Sub" && op != "Mul" && op != "Div") return c.Unsupported("integer " + op);
  const Folded a = ReadConst(c, in[0].id), b = ReadConst(c, in[1].id);
  // Mixed operands compute as ints, as before (ONNX has one type per op).
  const bool is_int = a.is_int || b.is_int;
  RILL_INF_ASSIGN_OR_RETURN(Folded out, FoldBroadcast(c, {a, b}, [&op, is_int](const std::vector<long double>& v) {
                              if (op == "Add") return v[0] + v[1];
                              if (op == "Sub") return v[0] - v[1];
                              if (op == "Mul") return v[0] * v[1];
                              // Integer division truncates (0 for a zero divisor);
                              // float division rounds once, to float, in NewFolded.
                              if (!is_int) return v[0] / v[1];
                              return v[1] == 0 ? 0 : std::trunc(v[0] / v[1]);
                            }));
  out.is_int = is_int;
  DefineFolded(c, out);
  return Status::Ok();
}

Status ConvertConcatConst(ConverterContext& c) {
  std::vector<Folded> ins;
  for (int i = 0; i < c.node().input_size(); ++i) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    ins.push_back(ReadConst(c, v.id));
  }
  if (ins.empty()) return c.Invalid("no inputs");
  const int rank = static_cast<int>(ins[0].shape.size());
  RILL_INF_ASSIGN_OR_RETURN(int axis, NormalizeAxis(c, c.AttrInt("axis", 0), rank));
  Folded out;
  out.is_int = true;
  out.shape = ins[0].shape;
  out.shape[axis] = 0;
  for (const Folded& f : ins) {
    out.is_int = out.is_int && f.is_int;
    if (static_cast<int>(f.shape.size()) != rank) return c.Invalid("inputs differ in rank");
    for (int d = 0; d < rank; ++d) {
      if (d != axis && f.shape[d] != ins[0].shape[d]) return c.Invalid("inputs differ off the axis");
    }
    out.shape[axis] += f.shape[axis];
  }
  RILL_INF_RETURN_IF_ERROR(CheckFoldSize(c, out.shape));
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= out.shape[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (const Folded& f : ins) {
      const int64_t run = static_cast<int64_t>(f.v.size()) / std::max<int64_t>(outer, 1);
      out.v.insert(out.v.end(), f.v.begin() + o * run, f.v.begin() + (o + 1) * run);
    }
  }
  DefineFolded(c, out);
  return Status::Ok();
}

namespace {

// ---- Split ---------------------------------------------------------------------------------

Status Split(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Shape s = c.OnnxShape(x);
  const int rank = static_cast<int>(s.size());
  RILL_INF_ASSIGN_OR_RETURN(int axis, NormalizeAxis(c, c.AttrInt("axis", 0), rank));
  std::vector<int64_t> sizes = c.AttrInts("split");
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(sizes, IntsInput(c, 1));
  }
  const int outputs = c.node().output_size();
  if (outputs < 1) return c.Invalid("no outputs");
  if (sizes.empty()) {
    // Equal parts; with num_outputs (opset 18) the last may be smaller.
    const int64_t parts = c.AttrInt("num_outputs", outputs);
    if (parts != outputs) return c.Invalid("num_outputs differs from the node's outputs");
    const int64_t each = (s[axis] + parts - 1) / parts;
    if (!c.FindAttr("num_outputs") && s[axis] % parts != 0) return c.Invalid("axis does not split evenly");
    for (int64_t i = 0, left = s[axis]; i < parts; ++i, left -= each) sizes.push_back(std::min(each, left));
  }
  if (static_cast<int>(sizes.size()) != outputs) return c.Invalid("split must have one size per output");
  int64_t total = 0;
  for (int64_t v : sizes) {
    if (v < 0) return c.Invalid("negative split size");
    total += v;
  }
  if (total != s[axis]) return c.Invalid("split sizes do not add up to the axis");
  int64_t begin = 0;
  for (int i = 0; i < outputs; ++i) {
    const int64_t end = begin + sizes[i];
    if (sizes[i] == 0) return c.Unsupported("empty split output");
    if (c.IsConst(x.id)) {
      const Folded f = ReadConst(c, x.id);
      Folded out;
      out.is_int = f.is_int;
      out.shape = s;
      out.shape[axis] = static_cast<int>(sizes[i]);
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < axis; ++d) outer *= s[d];
      for (int d = axis + 1; d < rank; ++d) inner *= s[d];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = begin; k < end; ++k)
          for (int64_t j = 0; j < inner; ++j) out.v.push_back(f.v[(o * s[axis] + k) * inner + j]);
      DefineFolded(c, out, i);
    } else {
      ir::OpAttrs a;
      a.slice_start.assign(rank, 0);
      a.slice_end.assign(rank, 1LL << 40);  // whole axis
      a.slice_step.assign(rank, 1);
      const int d = x.nhwc ? NhwcAxis(axis) : axis;
      a.slice_start[d] = begin;
      a.slice_end[d] = end;
      RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kSlice, {x.id}, c.node().output(i), a));
      c.Define(out, x.nhwc, i);
    }
    begin = end;
  }
  return Status::Ok();
}

// ---- reductions, ArgMax, TopK ------------------------------------------------------

Status Reduce(ConverterContext& c) {
  static const std::map<std::string, ir::ReduceKind> kKinds = {{"ReduceSum", ir::ReduceKind::kSum},
                                                               {"ReduceMax", ir::ReduceKind::kMax},
                                                               {"ReduceMin", ir::ReduceKind::kMin},
                                                               {"ReduceProd", ir::ReduceKind::kProd},
                                                               {"ReduceL2", ir::ReduceKind::kL2}};
  const ir::ReduceKind kind = kKinds.at(c.op_type());
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  std::vector<int64_t> axes = c.AttrInts("axes");
  if (c.HasInput(1)) {  // an input from opset 13 (ReduceSum) / 18 (the others)
    RILL_INF_ASSIGN_OR_RETURN(axes, IntsInput(c, 1));
  }
  const bool keep = c.AttrInt("keepdims", 1) != 0;
  if (axes.empty() && c.AttrInt("noop_with_empty_axes", 0) != 0) {
    c.Define(x);
    return Status::Ok();
  }
  const Shape s = c.OnnxShape(x);
  const int rank = static_cast<int>(s.size());
  std::vector<int> ax;
  for (int64_t a : axes) {
    RILL_INF_ASSIGN_OR_RETURN(int v, NormalizeAxis(c, a, rank, "axes"));
    if (std::find(ax.begin(), ax.end(), v) != ax.end()) return c.UnsupportedAttribute("axes", "repeated axis");
    ax.push_back(v);
  }
  if (c.IsConst(x.id)) {
    const Folded f = ReadConst(c, x.id);
    Folded out;
    out.is_int = f.is_int;
    out.shape = ir::ReducedShape(s, ax, keep);
    const Shape kept = ir::ReducedShape(s, ax, true);
    const long double init = kind == ir::ReduceKind::kMax   ? -INFINITY
                             : kind == ir::ReduceKind::kMin ? INFINITY
                             : kind == ir::ReduceKind::kProd ? 1
                                                             : 0;
    out.v.assign(static_cast<size_t>(NumElements(kept)), init);
    const std::vector<int64_t> ks = Strides(kept);
    std::vector<bool> reduced(rank, ax.empty());
    for (int v : ax) reduced[v] = true;
    for (int64_t i = 0; i < static_cast<int64_t>(f.v.size()); ++i) {
      int64_t rest = i, o = 0;
      for (int d = rank - 1; d >= 0; --d) {
        if (!reduced[d]) o += (rest % s[d]) * ks[d];
        rest /= s[d];
      }
      long double& y = out.v[o];
      const long double v = f.v[i];
      switch (kind) {
        case ir::ReduceKind::kSum: y += v; break;
        case ir::ReduceKind::kL2: y += v * v; break;
        case ir::ReduceKind::kProd: y *= v; break;
        case ir::ReduceKind::kMax: y = std::max(y, v); break;
        case ir::ReduceKind::kMin: y = std::min(y, v); break;
      }
    }
    if (kind == ir::ReduceKind::kL2) {
      for (long double& y : out.v) y = std::sqrt(y);
    }
    DefineFolded(c, out);
    return Status::Ok();
  }
  auto a = std::make_shared<ir::ReduceAttrs>();
  a->keep_dims = keep;
  int xi = x.id;
  bool nhwc = false;
  if (x.nhwc && keep) {  // reduce in place of the layout
    for (int v : ax) a->axes.push_back(NhwcAxis(v));
    if (ax.empty()) a->axes = {};
    nhwc = true;
  } else {
    RILL_INF_ASSIGN_OR_RETURN(xi, c.ToNchw(x));
    a->axes = ax;
  }
  std::sort(a->axes.begin(), a->axes.end());
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ReduceOp(kind), {xi}, c.out_name(), {}, a));
  c.Define(out, nhwc);
  return Status::Ok();
}

Status ArgMinMax(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (c.IsConst(x.id)) return c.Unsupported("ArgMax / ArgMin of a constant");
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  const int rank = static_cast<int>(c.ShapeOf(xi).size());
  auto a = std::make_shared<ir::ArgAttrs>();
  RILL_INF_ASSIGN_OR_RETURN(a->axis, NormalizeAxis(c, c.AttrInt("axis", 0), rank));
  a->keep_dims = c.AttrInt("keepdims", 1) != 0;
  a->select_last_index = c.AttrInt("select_last_index", 0) != 0;
  const OpType type = c.op_type() == "ArgMax" ? ir::ArgMaxOp() : ir::ArgMinOp();
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(type, {xi}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status TopK(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (c.IsConst(x.id)) return c.Unsupported("TopK of a constant");
  int64_t k = c.AttrInt("k", -1);  // opset < 10
  std::vector<int> ins;
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(Value kv, c.Input(1));
    if (c.IsConst(kv.id)) {
      const std::vector<int64_t> v = c.ConstInts(kv.id);
      if (v.size() != 1) return c.Invalid("K must hold one value");
      k = v[0];
    } else {
      ins.push_back(kv.id);  // K computed at run time: the axis's size is known only then
    }
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  ins.insert(ins.begin(), xi);
  const Shape s = c.ShapeOf(xi);
  auto a = std::make_shared<ir::TopKAttrs>();
  RILL_INF_ASSIGN_OR_RETURN(a->axis, NormalizeAxis(c, c.AttrInt("axis", -1), static_cast<int>(s.size())));
  if (ins.size() == 1 && (k < 1 || (s[a->axis] != ir::kDynamicDim && k > s[a->axis]))) {
    return c.Unsupported("K = " + std::to_string(k) + " (0 or beyond the axis)");
  }
  a->k = static_cast<int>(std::max<int64_t>(k, 1));
  a->largest = c.AttrInt("largest", 1) != 0;
  // sorted = 0 leaves the order unspecified: sorted is one valid order.
  const onnx::NodeProto& node = c.node();
  for (int i = 0; i < std::min(2, node.output_size()); ++i) {
    if (node.output(i).empty()) continue;
    RILL_INF_ASSIGN_OR_RETURN(
        int out, c.Emit(i == 0 ? ir::TopKValuesOp() : ir::TopKIndicesOp(), ins, node.output(i), {}, a));
    c.Define(out, false, i);
  }
  return Status::Ok();
}

// ---- Einsum -------------------------------------------------------------------------------

// Two operands, each index at most once per operand; an index in both
// operands is a batch index (kept in the output) or contracted (not kept);
// one in a single operand must be kept (no sums over one operand). Lowered
// to a TRANSPOSE of each operand to [batch, free, contracted] (left) and
// [batch, contracted, free] (right), RESHAPEs to 3-D, BATCH_MATMUL, and the
// RESHAPE / TRANSPOSE to the output's order.
Status Einsum(ConverterContext& c) {
  std::string eq = c.AttrString("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  if (c.node().input_size() != 2) return c.Unsupported("Einsum of other than two operands");
  RILL_INF_ASSIGN_OR_RETURN(std::vector<Value> in, Inputs(c, 2));
  const size_t arrow = eq.find("->");
  if (arrow == std::string::npos) return c.UnsupportedAttribute("equation", "an equation without '->'");
  const std::string lhs = eq.substr(0, arrow), rhs = eq.substr(arrow + 2);
  const size_t comma = lhs.find(',');
  if (comma == std::string::npos) return c.UnsupportedAttribute("equation", "'" + eq + "'");
  std::string terms[2] = {lhs.substr(0, comma), lhs.substr(comma + 1)};
  std::string out_term = rhs;
  if (eq.find("...") != std::string::npos &&
      std::any_of(eq.begin(), eq.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; })) {
    return c.UnsupportedAttribute("equation", "upper-case indices beside '...'");
  }
  int ids[2];
  Shape shapes[2];
  for (int i = 0; i < 2; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(ids[i], Operand(c, in[i]));
    shapes[i] = c.ShapeOf(ids[i]);
  }
  // "..." becomes upper-case letters for the broadcast dims (right-aligned).
  int ell = 0;
  for (int i = 0; i < 2; ++i) {
    const size_t at = terms[i].find("...");
    if (at != std::string::npos) {
      ell = std::max(ell, static_cast<int>(shapes[i].size() + 3 - terms[i].size()));
    }
  }
  for (int i = 0; i < 2; ++i) {
    const size_t at = terms[i].find("...");
    if (at == std::string::npos) continue;
    const int here = static_cast<int>(shapes[i].size() + 3 - terms[i].size());
    if (here < 0) return c.Invalid("operand rank below its equation's");
    std::string letters;
    for (int j = ell - here; j < ell; ++j) letters += static_cast<char>('A' + j);
    terms[i].replace(at, 3, letters);
  }
  {
    const size_t at = out_term.find("...");
    if (at != std::string::npos) {
      std::string letters;
      for (int j = 0; j < ell; ++j) letters += static_cast<char>('A' + j);
      out_term.replace(at, 3, letters);
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (terms[i].size() != shapes[i].size()) return c.Invalid("equation term '" + terms[i] + "' does not fit the operand's rank");
    if (std::set<char>(terms[i].begin(), terms[i].end()).size() != terms[i].size()) {
      return c.UnsupportedAttribute("equation", "an index repeated within one operand (diagonals)");
    }
  }
  std::map<char, int> dim;
  for (int i = 0; i < 2; ++i) {
    for (size_t j = 0; j < terms[i].size(); ++j) {
      const char ch = terms[i][j];
      const int d = shapes[i][j];
      auto it = dim.find(ch);
      if (it == dim.end() || it->second == 1) dim[ch] = d;
      else if (d != 1 && d != it->second) return c.Invalid("index '" + std::string(1, ch) + "' has two sizes");
    }
  }
  std::string batch, contracted, free_a, free_b;
  for (char ch : out_term) {
    if (!dim.count(ch)) return c.Invalid("output index '" + std::string(1, ch) + "' not in the operands");
    const bool in_a = terms[0].find(ch) != std::string::npos, in_b = terms[1].find(ch) != std::string::npos;
    (in_a && in_b ? batch : in_a ? free_a : free_b) += ch;
  }
  for (char ch : terms[0]) {
    if (out_term.find(ch) != std::string::npos) continue;
    if (terms[1].find(ch) == std::string::npos) {
      return c.UnsupportedAttribute("equation", "a sum over an index of one operand only");
    }
    contracted += ch;
  }
  for (char ch : terms[1]) {
    if (out_term.find(ch) == std::string::npos && terms[0].find(ch) == std::string::npos) {
      return c.UnsupportedAttribute("equation", "a sum over an index of one operand only");
    }
  }
  // Batch indices broadcast: an operand whose dim is 1 where the other's is
  // not would need an EXPAND; BATCH_MATMUL broadcasts its batch dims itself,
  // so each operand keeps its own dims.
  auto arrange = [&](int i, const std::string& order, const std::string& name) -> StatusOr<int> {
    std::vector<int> perm;
    for (char ch : order) perm.push_back(static_cast<int>(terms[i].find(ch)));
    bool identity = true;
    for (size_t j = 0; j < perm.size(); ++j) identity = identity && perm[j] == static_cast<int>(j);
    if (identity) return ids[i];
    ir::OpAttrs a;
    a.perm = perm;
    return c.Emit(OpType::kTranspose, {ids[i]}, c.out_name() + name, a);
  };
  auto product = [&](int i, const std::string& letters) {
    int p = 1;
    for (char ch : letters) p *= shapes[i][terms[i].find(ch)];
    return p;
  };
  RILL_INF_ASSIGN_OR_RETURN(int a, arrange(0, batch + free_a + contracted, "/a"));
  RILL_INF_ASSIGN_OR_RETURN(int b, arrange(1, batch + contracted + free_b, "/b"));
  // [batch dims..., M, K] and [batch dims..., K, N].
  auto to_matrix = [&](int i, int id, const std::string& rows, const std::string& cols, const std::string& name) -> StatusOr<int> {
    ir::OpAttrs r;
    for (char ch : batch) r.new_shape.push_back(shapes[i][terms[i].find(ch)]);
    r.new_shape.push_back(product(i, rows));
    r.new_shape.push_back(product(i, cols));
    if (r.new_shape == c.ShapeOf(id)) return id;
    return c.Emit(OpType::kReshape, {id}, c.out_name() + name, r);
  };
  RILL_INF_ASSIGN_OR_RETURN(a, to_matrix(0, a, free_a, contracted, "/a3"));
  RILL_INF_ASSIGN_OR_RETURN(b, to_matrix(1, b, contracted, free_b, "/b3"));
  const std::string produced = batch + free_a + free_b;
  const bool reorder = produced != out_term;
  Shape full;
  for (char ch : produced) full.push_back(dim[ch]);
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(ir::BatchMatMulOp(), {a, b}, c.out_name() + "/matmul", {},
                                          std::make_shared<ir::BatchMatMulAttrs>()));
  ir::OpAttrs r;
  r.new_shape = full;
  if (r.new_shape.empty()) r.new_shape = {1};
  RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kReshape, {y}, reorder ? c.out_name() + "/full" : c.out_name(), r));
  if (reorder) {
    ir::OpAttrs t;
    for (char ch : out_term) t.perm.push_back(static_cast<int>(produced.find(ch)));
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kTranspose, {y}, c.out_name(), t));
  }
  c.Define(y, false);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"Expand"}, Expand) && RegisterOnnxConverter({"Tile"}, Tile) &&
    RegisterOnnxConverter({"Where"}, Where) &&
    RegisterOnnxConverter({"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"},
                          Compare) &&
    RegisterOnnxConverter({"Not"}, Not) && RegisterOnnxConverter({"ConstantOfShape"}, ConstantOfShape) &&
    RegisterOnnxConverter({"Range"}, Range) && RegisterOnnxConverter({"Split"}, Split) &&
    RegisterOnnxConverter({"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2"}, Reduce) &&
    RegisterOnnxConverter({"ArgMax", "ArgMin"}, ArgMinMax) && RegisterOnnxConverter({"TopK"}, TopK) &&
    RegisterOnnxConverter({"Einsum"}, Einsum) && RegisterOnnxConverter({"Mod"}, Mod) &&
    RegisterOnnxConverter({"ScatterND"}, ScatterND);

}  // namespace
}  // namespace rill::inference::onnx_import
