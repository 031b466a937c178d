// Math and normalization ops (ir/ops/math_ops.h): the unary functions (Sin,
// Cos, Floor, Ceil and Round among them), Gelu,
// Pow and the variadic Min / Max / Sum / Mean, and LayerNormalization.
// Elementwise ops keep their inputs' layout (an NHWC operand brings the
// others to NHWC); LayerNormalization takes ONNX's layout. An op whose inputs
// are all constants folds into a constant (int64 ones too, for shape
// arithmetic).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/math_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::NaryFn;
using ir::UnaryFn;

Status Unary(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const std::string& op = c.op_type();
  auto attrs = std::make_shared<ir::UnaryMathAttrs>();
  static const std::map<std::string, UnaryFn> kFns = {
      {"Sqrt", UnaryFn::kSqrt},     {"Exp", UnaryFn::kExp},       {"Log", UnaryFn::kLog},
      {"Neg", UnaryFn::kNeg},       {"Reciprocal", UnaryFn::kReciprocal}, {"Abs", UnaryFn::kAbs},
      {"Tanh", UnaryFn::kTanh},     {"Erf", UnaryFn::kErf},       {"Softplus", UnaryFn::kSoftplus},
      {"Sin", UnaryFn::kSin},       {"Cos", UnaryFn::kCos},       {"Floor", UnaryFn::kFloor},
      {"Ceil", UnaryFn::kCeil},     {"Round", UnaryFn::kRound},   {"Mish", UnaryFn::kMish},
      {"Elu", UnaryFn::kElu},       {"Selu", UnaryFn::kSelu},     {"Gelu", UnaryFn::kGelu},
      {"Sign", UnaryFn::kSign},     {"Softsign", UnaryFn::kSoftsign}, {"Tan", UnaryFn::kTan},
      {"Asin", UnaryFn::kAsin},     {"Acos", UnaryFn::kAcos},     {"Atan", UnaryFn::kAtan},
      {"Sinh", UnaryFn::kSinh},     {"Cosh", UnaryFn::kCosh},     {"Asinh", UnaryFn::kAsinh},
      {"Acosh", UnaryFn::kAcosh},   {"Atanh", UnaryFn::kAtanh},   {"Celu", UnaryFn::kCelu},
      {"ThresholdedRelu", UnaryFn::kThresholdedRelu}, {"Shrink", UnaryFn::kShrink},
      {"IsNaN", UnaryFn::kIsNan},   {"IsInf", UnaryFn::kIsInf}};
  const UnaryFn fn = kFns.at(op);
  switch (fn) {
    case UnaryFn::kElu:
    case UnaryFn::kCelu:
    case UnaryFn::kThresholdedRelu: attrs->alpha = c.AttrFloat("alpha", 1.0f); break;
    case UnaryFn::kSelu:
      attrs->alpha = c.AttrFloat("alpha", 1.67326319217681884765625f);
      attrs->gamma = c.AttrFloat("gamma", 1.05070102214813232421875f);
      break;
    case UnaryFn::kShrink:
      attrs->alpha = c.AttrFloat("lambd", 0.5f);
      attrs->gamma = c.AttrFloat("bias", 0.0f);
      break;
    case UnaryFn::kIsInf:
      attrs->alpha = c.AttrInt("detect_negative", 1) != 0 ? 1.0f : 0.0f;
      attrs->gamma = c.AttrInt("detect_positive", 1) != 0 ? 1.0f : 0.0f;
      break;
    case UnaryFn::kGelu: {
      const std::string approximate = c.AttrString("approximate", "none");
      if (approximate != "none" && approximate != "tanh") {
        return c.UnsupportedAttribute("approximate", "approximate '" + approximate + "' (none and tanh are)");
      }
      attrs->tanh_approximation = approximate == "tanh";
      break;
    }
    default: break;
  }
  if (fn == UnaryFn::kCelu && attrs->alpha == 0.0f) return c.UnsupportedAttribute("alpha", "alpha 0");
  const ir::TensorInfo& t = c.tensor(x.id);
  if (c.IsConst(x.id) && t.dtype != DataType::kFloat32 && t.dtype != DataType::kInt64) {
    return c.Unsupported(std::string("constant input of type ") + DataTypeName(t.dtype));
  }
  if (c.IsConst(x.id)) {  // fold
    std::vector<float> v = c.ConstFloats(x.id);
    for (float& e : v) e = ir::ApplyUnary(fn, *attrs, e);
    if (t.dtype == DataType::kInt64) {
      if (fn != UnaryFn::kNeg && fn != UnaryFn::kAbs) return c.Unsupported("integer input");
      std::vector<int64_t> r = c.ConstInts(x.id);
      for (int64_t& e : r) e = fn == UnaryFn::kNeg ? -e : (e < 0 ? -e : e);
      const Shape s = c.ShapeOf(x.id);
      c.Define(c.NewIntConst(c.out_name(), r, &s), x.nhwc);
      return Status::Ok();
    }
    const Shape shape = c.ShapeOf(x.id);  // a copy: NewFloatConst grows the shapes
    c.Define(c.NewFloatConst(c.out_name(), shape, v), x.nhwc);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::UnaryMathOp(fn), {x.id}, c.out_name(), {}, attrs));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

// Broadcast shape of `shapes`; false when they do not broadcast.
bool BroadcastShape(const std::vector<Shape>& shapes, Shape* out) {
  out->clear();
  for (const Shape& s : shapes) {
    Shape next(std::max(out->size(), s.size()));
    const size_t rank = next.size();
    for (size_t i = 0; i < rank; ++i) {
      const int da = i < rank - out->size() ? 1 : (*out)[i - (rank - out->size())];
      const int db = i < rank - s.size() ? 1 : s[i - (rank - s.size())];
      if (da != db && da != 1 && db != 1) return false;
      next[i] = da == 1 ? db : da;
    }
    *out = next;
  }
  return true;
}


// Every input constant and in ONNX's layout: the result as a constant.
Status Fold(ConverterContext& c, NaryFn fn, const std::vector<Value>& in) {
  std::vector<Shape> shapes;
  bool ints = true;
  for (const Value& v : in) {
    shapes.push_back(c.ShapeOf(v.id));
    ints = ints && c.tensor(v.id).dtype == DataType::kInt64;
  }
  Shape out;
  if (!BroadcastShape(shapes, &out)) return c.Invalid("constant inputs do not broadcast");
  const int64_t n = NumElements(out);
  if (ints) {
    std::vector<std::vector<int64_t>> vals;
    for (const Value& v : in) vals.push_back(c.ConstInts(v.id));
    std::vector<int64_t> r(static_cast<size_t>(n));
    for (int64_t o = 0; o < n; ++o) {
      int64_t acc = vals[0][SourceIndex(shapes[0], out, o)];
      for (size_t k = 1; k < in.size(); ++k) {
        const int64_t x = vals[k][SourceIndex(shapes[k], out, o)];
        switch (fn) {
          case NaryFn::kPow: {
            int64_t p = 1;
            for (int64_t e = 0; e < x; ++e) p *= acc;
            acc = p;
            break;
          }
          case NaryFn::kMin: acc = std::min(acc, x); break;
          case NaryFn::kMax: acc = std::max(acc, x); break;
          default: acc += x; break;
        }
      }
      r[static_cast<size_t>(o)] = fn == NaryFn::kMean ? acc / static_cast<int64_t>(in.size()) : acc;
    }
    c.Define(c.NewIntConst(c.out_name(), r, &out), false);
    return Status::Ok();
  }
  std::vector<std::vector<float>> vals;
  for (const Value& v : in) vals.push_back(c.ConstFloats(v.id));
  std::vector<float> r(static_cast<size_t>(n));
  for (int64_t o = 0; o < n; ++o) {
    float acc = vals[0][SourceIndex(shapes[0], out, o)];
    for (size_t k = 1; k < in.size(); ++k) acc = ir::ApplyNary(fn, acc, vals[k][SourceIndex(shapes[k], out, o)]);
    r[static_cast<size_t>(o)] = fn == NaryFn::kMean ? acc / static_cast<float>(in.size()) : acc;
  }
  c.Define(c.NewFloatConst(c.out_name(), out, r), false);
  return Status::Ok();
}

Status Nary(ConverterContext& c) {
  const std::string& op = c.op_type();
  const NaryFn fn = op == "Pow"   ? NaryFn::kPow
                    : op == "Min" ? NaryFn::kMin
                    : op == "Max" ? NaryFn::kMax
                    : op == "Sum" ? NaryFn::kSum
                                  : NaryFn::kMean;
  const int count = c.node().input_size();
  if (count < 1 || (fn == NaryFn::kPow && count != 2)) return c.Invalid("wrong number of inputs");
  std::vector<Value> in;
  bool all_const = true, nhwc = false;
  for (int i = 0; i < count; ++i) {
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    all_const = all_const && c.IsConst(v.id) && !v.nhwc;
    nhwc = nhwc || v.nhwc;
    in.push_back(v);
  }
  if (all_const) return Fold(c, fn, in);
  std::vector<int> ids;
  for (size_t i = 0; i < in.size(); ++i) {
    const Value& v = in[i];
    int id = v.id;
    // Pow's exponent may be an integer constant: the kernels read float.
    if (c.IsConst(id) && c.tensor(id).dtype != DataType::kFloat32) {
      const Shape shape = c.ShapeOf(id);  // a copy: NewFloatConst grows the shapes
      id = c.NewFloatConst(c.tensor(id).name + "/float", shape, c.ConstFloats(id));
    }
    if (nhwc) {
      RILL_INF_ASSIGN_OR_RETURN(id, OperandToNhwc(c, Value{id, v.nhwc}));
    }
    ids.push_back(id);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::NaryMathOp(fn), ids, c.out_name()));
  c.Define(out, nhwc);
  return Status::Ok();
}

Status LayerNormalization(ConverterContext& c) {
  // Only Y: the training outputs Mean and InvStdDev must go unread.
  for (int i = 1; i < c.node().output_size(); ++i) {
    const std::string& name = c.node().output(i);
    if (name.empty()) continue;
    bool read = false;
    for (const onnx::ValueInfoProto& o : c.graph_proto().output()) read = read || o.name() == name;
    for (const onnx::NodeProto& n : c.graph_proto().node()) {
      for (const std::string& in : n.input()) read = read || in == name;
    }
    if (read) return c.Unsupported("outputs Mean and InvStdDev");
  }
  if (c.AttrInt("stash_type", 1) != 1) return c.UnsupportedAttribute("stash_type", "only 1 (float) is supported");
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  auto attrs = std::make_shared<ir::LayerNormAttrs>();
  attrs->axis = static_cast<int>(c.AttrInt("axis", -1));
  attrs->epsilon = c.AttrFloat("epsilon", 1e-5f);
  std::vector<int> inputs = {xi};
  for (int i = 1; i <= 2; ++i) {
    if (!c.HasInput(i)) {
      if (i == 1) return c.Invalid("no Scale input");
      continue;
    }
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(i));
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ToNchw(v));
    inputs.push_back(id);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::LayerNormOp(), inputs, c.out_name(), {}, attrs));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"Sqrt", "Exp", "Log", "Neg", "Reciprocal", "Abs", "Tanh", "Erf", "Softplus", "Mish", "Elu",
                           "Selu", "Gelu", "Sin", "Cos", "Floor", "Ceil", "Round", "Sign", "Softsign", "Tan", "Asin",
                           "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Celu", "ThresholdedRelu",
                           "Shrink", "IsNaN", "IsInf"},
                          Unary) &&
    RegisterOnnxConverter({"Pow", "Min", "Max", "Sum", "Mean"}, Nary) &&
    RegisterOnnxConverter({"LayerNormalization"}, LayerNormalization);

}  // namespace
}  // namespace rill::inference::onnx_import
