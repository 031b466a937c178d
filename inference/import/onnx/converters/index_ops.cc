// GatherElements (GATHER_ELEMENTS); OneHot, Hardmax, Trilu and Size,
// lowered to existing ops: OneHot and
// Hardmax compare indices against a constant 0..depth-1 along their axis
// (EQUAL, broadcast) and pick one of two values (WHERE); Trilu keeps its
// triangle with a constant mask (WHERE, so an infinity or NaN outside the
// triangle still gives 0); Size folds into a constant. Each folds when its
// input is a constant (through the ops' own folding).
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/axis_view.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/gather_elements_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// A float constant of `rank` dims, `n` along `axis` and 1 elsewhere, holding
// 0, 1, ..., n - 1.
int Positions(ConverterContext& c, int rank, int axis, int n, const std::string& name) {
  Shape s(rank, 1);
  s[axis] = n;
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return c.NewFloatConst(name, s, v);
}

StatusOr<int> Select(ConverterContext& c, int cond, float on, float off, const std::string& name) {
  const int on_id = c.NewFloatConst(name + "/on", {}, {on});
  const int off_id = c.NewFloatConst(name + "/off", {}, {off});
  return c.Emit(ir::WhereOp(), {cond, on_id, off_id}, name);
}

StatusOr<int> Scalar(ConverterContext& c, int i, const char* what) {
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
  if (!c.IsConst(v.id)) return c.Unsupported(std::string(what) + " computed at run time (a constant is supported)");
  return v.id;
}

Status OneHot(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value iv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int depth_id, Scalar(c, 1, "depth"));
  RILL_INF_ASSIGN_OR_RETURN(int values_id, Scalar(c, 2, "values"));
  const std::vector<float> depth_v = c.ConstFloats(depth_id);
  const std::vector<float> values = c.ConstFloats(values_id);
  if (depth_v.size() != 1 || !(depth_v[0] >= 1.0f) || depth_v[0] > (1 << 24)) {
    return c.Invalid("depth must be one value >= 1");
  }
  if (values.size() != 2) return c.Invalid("values must hold [off, on]");
  const int depth = static_cast<int>(depth_v[0]);
  RILL_INF_ASSIGN_OR_RETURN(int idx, c.ToNchw(iv));
  const Shape s = c.ShapeOf(idx);
  const int rank = static_cast<int>(s.size()) + 1;
  int axis = static_cast<int>(c.AttrInt("axis", -1));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
  const std::string base = c.out_name();
  // Negative indices count from the end: i + depth where i < 0.
  const int zero = c.NewFloatConst(base + "/zero", {}, {0.0f});
  const int depth_c = c.NewFloatConst(base + "/depth", {}, {static_cast<float>(depth)});
  RILL_INF_ASSIGN_OR_RETURN(int negative, c.Emit(ir::CompareOp(ir::CompareKind::kLess), {idx, zero}, base + "/negative"));
  RILL_INF_ASSIGN_OR_RETURN(int wrapped, c.Emit(OpType::kAdd, {idx, depth_c}, base + "/wrapped"));
  RILL_INF_ASSIGN_OR_RETURN(int index, c.Emit(ir::WhereOp(), {negative, wrapped, idx}, base + "/index"));
  ir::OpAttrs r;
  r.new_shape.assign(s.begin(), s.end());
  r.new_shape.insert(r.new_shape.begin() + axis, 1);
  RILL_INF_ASSIGN_OR_RETURN(int unsq, c.Emit(OpType::kReshape, {index}, base + "/unsqueezed", r));
  const int pos = Positions(c, rank, axis, depth, base + "/positions");
  RILL_INF_ASSIGN_OR_RETURN(int eq, c.Emit(ir::CompareOp(ir::CompareKind::kEqual), {unsq, pos}, base + "/hot"));
  RILL_INF_ASSIGN_OR_RETURN(int out, Select(c, eq, values[1], values[0], base));
  c.Define(out, false);
  return Status::Ok();
}

// 1 at the first maximum along the axis, 0 elsewhere (before opset 13 over
// the 2-D view from the axis).
Status Hardmax(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(AxisView v, SoftmaxAxisView(c));
  const std::string base = c.out_name();
  auto arg = std::make_shared<ir::ArgAttrs>();
  arg->axis = v.axis;
  arg->keep_dims = true;
  RILL_INF_ASSIGN_OR_RETURN(int am, c.Emit(ir::ArgMaxOp(), {v.x}, base + "/argmax", {}, arg));
  const int pos = Positions(c, v.rank, v.axis, v.length, base + "/positions");
  RILL_INF_ASSIGN_OR_RETURN(int eq, c.Emit(ir::CompareOp(ir::CompareKind::kEqual), {am, pos}, base + "/hot"));
  RILL_INF_ASSIGN_OR_RETURN(int out, Select(c, eq, 1.0f, 0.0f, AxisViewOutName(c, v)));
  return DefineFromAxisView(c, v, out);
}

// The upper (j - i >= k) or lower (j - i <= k) triangle of the last two
// axes; the rest 0.
Status Trilu(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  int64_t k = 0;
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(int kid, Scalar(c, 1, "k"));
    const std::vector<int64_t> kv = c.ConstInts(kid);
    if (kv.size() != 1) return c.Invalid("k must hold one value");
    k = kv[0];
  }
  const bool upper = c.AttrInt("upper", 1) != 0;
  const Shape s = c.ShapeOf(x);
  const int rank = static_cast<int>(s.size());
  if (rank < 2) return c.Invalid("input must have rank >= 2");
  const int rows = s[rank - 2], cols = s[rank - 1];
  std::vector<float> mask(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      const int64_t d = static_cast<int64_t>(j) - i;
      mask[static_cast<size_t>(i) * cols + j] = (upper ? d >= k : d <= k) ? 1.0f : 0.0f;
    }
  }
  const std::string base = c.out_name();
  const int m = c.NewFloatConst(base + "/mask", {rows, cols}, mask);
  const int zero = c.NewFloatConst(base + "/zero", {}, {0.0f});
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::WhereOp(), {m, x, zero}, base));
  c.Define(out, false);
  return Status::Ok();
}

Status Size(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  int64_t n = 1;
  for (int d : c.ShapeOf(x.id)) {
    if (d < 0) return c.Unsupported("Size of a value whose sizes are known only at run time");
    n *= d;
  }
  const Shape scalar;
  c.Define(c.NewIntConst(c.out_name(), {n}, &scalar), false);
  return Status::Ok();
}

// GatherElements (GATHER_ELEMENTS): constant integer indices become a float
// constant (the engine's run-time indices are float); both constant: folded.
Status GatherElements(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value dv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value iv, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(int data, c.ToNchw(dv));
  RILL_INF_ASSIGN_OR_RETURN(int idx, c.ToNchw(iv));
  const Shape ds = c.ShapeOf(data), is = c.ShapeOf(idx);
  const int rank = static_cast<int>(ds.size());
  int axis = static_cast<int>(c.AttrInt("axis", 0));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
  if (c.IsConst(idx)) {
    const std::vector<int64_t> v = c.ConstInts(idx);
    for (int64_t k : v) {
      if (k < -ds[axis] || k >= ds[axis]) return c.Invalid("index " + std::to_string(k) + " out of range");
    }
    if (c.IsConst(data)) {  // fold, in the data's own type
      const bool is_int = c.tensor(data).dtype == DataType::kInt64;
      const std::vector<int64_t> di = is_int ? c.ConstInts(data) : std::vector<int64_t>{};
      const std::vector<float> df = is_int ? std::vector<float>{} : c.ConstFloats(data);
      std::vector<int64_t> oi;
      std::vector<float> of;
      std::vector<long long> strides(rank, 1);
      for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * ds[d + 1];
      for (size_t i = 0; i < v.size(); ++i) {
        long long rest = static_cast<long long>(i), offset = 0;
        for (int d = rank - 1; d >= 0; --d) {
          const long long coord = rest % is[d];
          rest /= is[d];
          offset += (d == axis ? (v[i] < 0 ? v[i] + ds[axis] : v[i]) : coord) * strides[d];
        }
        if (is_int) {
          oi.push_back(di[offset]);
        } else {
          of.push_back(df[offset]);
        }
      }
      c.Define(is_int ? c.NewIntConst(c.out_name(), oi, &is) : c.NewFloatConst(c.out_name(), is, of), false);
      return Status::Ok();
    }
    std::vector<float> f(v.begin(), v.end());
    idx = c.NewFloatConst(c.out_name() + "/indices", is, f);
  }
  auto a = std::make_shared<ir::GatherElementsAttrs>();
  a->axis = axis;
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherElementsOp(), {data, idx}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

// EyeLike: ones on the k-th diagonal of a 2-D value's shape, a constant in
// `dtype` (default: the input's type).
Status EyeLike(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Shape s = c.OnnxShape(x);
  if (s.size() != 2) return c.Invalid("input must be 2-D, is " + ShapeToString(s));
  if (ir::HasDynamicDim(s)) return c.Unsupported("EyeLike of a value whose sizes are known only at run time");
  const int64_t k = c.AttrInt("k", 0);
  const int64_t dtype = c.AttrInt("dtype", -1);
  const bool integer = dtype < 0 ? c.IsIntegerValue(c.node().input(0))
                                 : (dtype == kInt32 || dtype == kInt64 || (dtype >= 2 && dtype <= 5) ||
                                    dtype == 12 || dtype == 13 || dtype == kBool);
  std::vector<int64_t> iv(static_cast<size_t>(s[0]) * s[1], 0);
  for (int i = 0; i < s[0]; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < s[1]) iv[static_cast<size_t>(i) * s[1] + j] = 1;
  }
  if (integer) {
    c.Define(c.NewIntConst(c.out_name(), iv, &s), false);
  } else {
    c.Define(c.NewFloatConst(c.out_name(), s, std::vector<float>(iv.begin(), iv.end())), false);
  }
  return Status::Ok();
}

// ReverseSequence: out[.., t, .., b, ..] = x[.., len[b] - 1 - t, .., b, ..]
// for t < len[b], x itself after; one GATHER_ELEMENTS along time_axis.
Status ReverseSequence(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value lv, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const Shape s = c.ShapeOf(x);
  const int rank = static_cast<int>(s.size());
  const int64_t batch_axis = c.AttrInt("batch_axis", 1), time_axis = c.AttrInt("time_axis", 0);
  if (rank < 2) return c.Invalid("input must have rank >= 2");
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    return c.UnsupportedAttribute("batch_axis", "batch_axis and time_axis must be 0 and 1 in either order");
  }
  if (ir::HasDynamicDim(s)) return c.Unsupported("ReverseSequence of a value whose sizes are known only at run time");
  const int t_axis = static_cast<int>(time_axis);
  const int steps = s[t_axis], batch = s[batch_axis];
  if (c.ShapeOf(lv.id) != Shape{batch}) return c.Invalid("sequence_lens must hold one length per batch");
  const std::string base = c.out_name();
  auto g = std::make_shared<ir::GatherElementsAttrs>();
  g->axis = t_axis;
  if (c.IsConst(lv.id)) {
    const std::vector<int64_t> lens = c.ConstInts(lv.id);
    for (int64_t l : lens) {
      if (l < 0 || l > steps) return c.Invalid("sequence length " + std::to_string(l) + " out of range");
    }
    std::vector<float> idx(static_cast<size_t>(NumElements(s)));
    long long inner = 1;  // elements per (axis 0, axis 1) position
    for (int d = 2; d < rank; ++d) inner *= s[d];
    for (size_t i = 0; i < idx.size(); ++i) {
      // The coordinates along the first two axes of element i.
      const long long i01 = static_cast<long long>(i) / inner;
      const int a0 = static_cast<int>(i01 / s[1]), a1 = static_cast<int>(i01 % s[1]);
      const int t = t_axis == 0 ? a0 : a1, b = t_axis == 0 ? a1 : a0;
      idx[i] = static_cast<float>(t < lens[b] ? lens[b] - 1 - t : t);
    }
    const int idx_id = c.NewFloatConst(base + "/indices", s, idx);
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherElementsOp(), {x, idx_id}, base, {}, g));
    c.Define(out, false);
    return Status::Ok();
  }
  // Run-time lengths: t < len ? len - 1 - t : t over [T, B] (or [B, T]),
  // expanded to x's shape.
  RILL_INF_ASSIGN_OR_RETURN(int len, c.ToNchw(lv));
  ir::OpAttrs r;
  r.new_shape = t_axis == 0 ? std::vector<int>{1, batch} : std::vector<int>{batch, 1};
  RILL_INF_ASSIGN_OR_RETURN(int len2, c.Emit(OpType::kReshape, {len}, base + "/lens", r));
  const int pos = Positions(c, 2, t_axis, steps, base + "/steps");
  const int one = c.NewFloatConst(base + "/one", {}, {1.0f});
  RILL_INF_ASSIGN_OR_RETURN(int inside, c.Emit(ir::CompareOp(ir::CompareKind::kLess), {pos, len2}, base + "/inside"));
  RILL_INF_ASSIGN_OR_RETURN(int last, c.Emit(OpType::kSub, {len2, one}, base + "/last"));
  RILL_INF_ASSIGN_OR_RETURN(int rev, c.Emit(OpType::kSub, {last, pos}, base + "/reversed"));
  RILL_INF_ASSIGN_OR_RETURN(int idx, c.Emit(ir::WhereOp(), {inside, rev, pos}, base + "/index"));
  if (rank > 2) {
    ir::OpAttrs r2;
    r2.new_shape.assign(rank, 1);
    r2.new_shape[0] = s[0];
    r2.new_shape[1] = s[1];
    RILL_INF_ASSIGN_OR_RETURN(idx, c.Emit(OpType::kReshape, {idx}, base + "/index_nd", r2));
    auto e = std::make_shared<ir::ExpandAttrs>();
    e->shape.assign(s.begin(), s.end());
    RILL_INF_ASSIGN_OR_RETURN(idx, c.Emit(ir::ExpandOp(), {idx}, base + "/index_full", {}, e));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherElementsOp(), {x, idx}, base, {}, g));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"GatherElements"}, GatherElements) &&
                         RegisterOnnxConverter({"OneHot"}, OneHot) && RegisterOnnxConverter({"Hardmax"}, Hardmax) &&
                         RegisterOnnxConverter({"Trilu"}, Trilu) && RegisterOnnxConverter({"Size"}, Size) &&
                         RegisterOnnxConverter({"EyeLike"}, EyeLike) &&
                         RegisterOnnxConverter({"ReverseSequence"}, ReverseSequence);

}  // namespace
}  // namespace rill::inference::onnx_import
