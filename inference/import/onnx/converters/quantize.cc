// QuantizeLinear and DequantizeLinear in float (the engine's run-time values
// are float32; a quantized value is its integers held as floats):
// - DequantizeLinear: (x - zero_point) * scale; folded when x is a constant
//   (a QDQ model's quantized weights become float weights, so the conv after
//   them takes its constant-weight path).
// - QuantizeLinear: clamp(round_half_even(x / scale) + zero_point) to the
//   zero point's type's range (uint8 without one; opset 21's output_dtype),
//   as DIV, ROUND, ADD and CLAMP; folded for a constant x.
// Scale and zero point per tensor (the ops stay elementwise, in the value's
// layout) or per axis (`axis`, broadcast along it). Opset 21's block_size
// and the float8 types are UNIMPLEMENTED.
// The integer and QLinear ops expand into those and the float ops, as ONNX
// functions do (a small graph of standard nodes converted in place,
// ConverterContext::ConvertBranch with no guard): QLinearConv and
// QLinearMatMul dequantize, run the float op and quantize (the int32 bias
// folded into a float one); ConvInteger and MatMulInteger subtract the zero
// points and run the float op (int32 sums exact while below 2^24);
// DynamicQuantizeLinear is ONNX's function body (the range of x and 0 over
// 255, a rounded zero point, then DIV, ROUND, ADD, CLIP with the run-time
// scale). Results can differ from ONNX Runtime's integer arithmetic by one
// quantization step where a value rounds the other way.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/expansion.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/math_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// The ONNX type of a constant input (an initializer's or a Constant's),
// -1 if not found.
int64_t ConstType(ConverterContext& c, const std::string& name) {
  for (const onnx::TensorProto& t : c.graph_proto().initializer()) {
    if (t.name() == name) return t.data_type();
  }
  for (const onnx::NodeProto& n : c.graph_proto().node()) {
    if (n.op_type() != "Constant" || n.output_size() == 0 || n.output(0) != name) continue;
    const onnx::AttributeProto* v = FindAttr(n, "value");
    if (v != nullptr && v->has_t()) return v->t().data_type();
  }
  return -1;
}

bool QuantRange(int64_t type, float* lo, float* hi) {
  switch (type) {
    case 2: *lo = 0.0f; *hi = 255.0f; return true;          // uint8
    case 3: *lo = -128.0f; *hi = 127.0f; return true;       // int8
    case 4: *lo = 0.0f; *hi = 65535.0f; return true;        // uint16
    case 5: *lo = -32768.0f; *hi = 32767.0f; return true;   // int16
    case 6: *lo = -2147483648.0f; *hi = 2147483647.0f; return true;  // int32
    default: return false;
  }
}

struct QParams {
  std::vector<float> scale, zero;  // one value, or one per position along axis
  int axis = -1;                   // in the layout used; -1: per tensor
  Shape bshape;                    // the broadcast shape of a per-axis parameter
};

// Scale (input 1) and zero point (input 2) of the node for value x.
StatusOr<QParams> ReadParams(ConverterContext& c, const Value& x) {
  if (c.AttrInt("block_size", 0) != 0) return c.UnsupportedAttribute("block_size", "blocked quantization");
  QParams q;
  RILL_INF_ASSIGN_OR_RETURN(Value sv, c.Input(1));
  if (!c.IsConst(sv.id)) return c.Unsupported("a scale computed at run time (a constant is supported)");
  q.scale = c.ConstFloats(sv.id);
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(Value zv, c.Input(2));
    if (!c.IsConst(zv.id)) return c.Unsupported("a zero point computed at run time (a constant is supported)");
    q.zero = c.ConstFloats(zv.id);
    if (q.zero.size() != q.scale.size()) return c.Invalid("scale and zero point differ in size");
  } else {
    q.zero.assign(q.scale.size(), 0.0f);
  }
  const Shape ss = c.ShapeOf(sv.id);
  if (ss.size() > 1) return c.UnsupportedAttribute("block_size", "blocked quantization (scale of rank > 1)");
  if (!ss.empty() && ss[0] != 1) {
    const Shape xs = c.OnnxShape(x);
    const int rank = static_cast<int>(xs.size());
    int64_t axis = c.AttrInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
    if (xs[axis] != static_cast<int>(q.scale.size())) return c.Invalid("scale must hold one value per position");
    q.axis = x.nhwc ? NhwcAxis(static_cast<int>(axis)) : static_cast<int>(axis);
    q.bshape.assign(rank, 1);
    q.bshape[q.axis] = xs[axis];
  }
  return q;
}

// The parameter as an operand for x: a scalar or the per-axis shape.
int Param(ConverterContext& c, const QParams& q, const std::vector<float>& v, const std::string& name) {
  if (q.axis < 0) return c.NewFloatConst(name, {}, {v[0]});
  return c.NewFloatConst(name, q.bshape, v);
}

// Position of element i of a value of shape s along q's axis.
size_t AxisIndex(const QParams& q, const Shape& s, size_t i) {
  if (q.axis < 0) return 0;
  size_t inner = 1;
  for (size_t d = q.axis + 1; d < s.size(); ++d) inner *= static_cast<size_t>(s[d]);
  return (i / inner) % static_cast<size_t>(s[q.axis]);
}

Status DequantizeLinear(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(QParams q, ReadParams(c, x));
  const std::string base = c.out_name();
  if (c.IsConst(x.id)) {
    const Shape s = c.ShapeOf(x.id);
    std::vector<float> v = c.ConstFloats(x.id);
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t k = AxisIndex(q, s, i);
      v[i] = (v[i] - q.zero[k]) * q.scale[k];
    }
    c.Define(c.NewFloatConst(base, s, v), x.nhwc);
    return Status::Ok();
  }
  int y = x.id;
  bool any_zero = false;
  for (float z : q.zero) any_zero = any_zero || z != 0.0f;
  if (any_zero) {
    const int zero = Param(c, q, q.zero, base + "/zero_point");
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kSub, {y, zero}, base + "/centred"));
  }
  RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kMul, {y, Param(c, q, q.scale, base + "/scale")}, base));
  c.Define(y, x.nhwc);
  return Status::Ok();
}

Status QuantizeLinear(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(QParams q, ReadParams(c, x));
  int64_t type = c.HasInput(2) ? ConstType(c, c.node().input(2)) : 2;
  if (const onnx::AttributeProto* od = c.FindAttr("output_dtype")) {
    if (od->i() != 0) type = od->i();
  }
  float lo = 0.0f, hi = 0.0f;
  if (!QuantRange(type, &lo, &hi)) {
    return c.Unsupported("quantization to ONNX type " + std::to_string(type) + " (8-, 16- and 32-bit integers)");
  }
  for (float s : q.scale) {
    if (!(s != 0.0f)) return c.Invalid("scale must be non-zero");
  }
  const std::string base = c.out_name();
  if (c.IsConst(x.id)) {
    const Shape s = c.ShapeOf(x.id);
    std::vector<float> v = c.ConstFloats(x.id);
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t k = AxisIndex(q, s, i);
      v[i] = std::min(hi, std::max(lo, std::nearbyint(v[i] / q.scale[k]) + q.zero[k]));
    }
    c.Define(c.NewFloatConst(base, s, v), x.nhwc);
    return Status::Ok();
  }
  const int scale = Param(c, q, q.scale, base + "/scale");
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kDiv, {x.id, scale}, base + "/scaled"));
  RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(ir::UnaryMathOp(ir::UnaryFn::kRound), {y}, base + "/rounded", {},
                                      std::make_shared<ir::UnaryMathAttrs>()));
  bool any_zero = false;
  for (float z : q.zero) any_zero = any_zero || z != 0.0f;
  if (any_zero) {
    const int zero = Param(c, q, q.zero, base + "/zero_point");
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kAdd, {y, zero}, base + "/shifted"));
  }
  ir::OpAttrs a;
  a.clamp_min = lo;
  a.clamp_max = hi;
  RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kClamp, {y}, base, a));
  c.Define(y, x.nhwc);
  return Status::Ok();
}

StatusOr<std::vector<float>> ConstValues(ConverterContext& c, int input, const char* what) {
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(input));
  if (!c.IsConst(v.id)) return c.Unsupported(std::string(what) + " computed at run time (a constant is supported)");
  return c.ConstFloats(v.id);
}

// DequantizeLinear of node input `x` by node inputs `scale`, `zero` (name
// or ""), along `axis` when the scale has more than one value.
std::string Dequantize(Expansion& e, ConverterContext& c, int x, int scale, int zero, int64_t axis,
                       const std::string& out) {
  std::vector<std::string> in = {c.node().input(x), c.node().input(scale)};
  if (zero >= 0 && c.HasInput(zero)) in.push_back(c.node().input(zero));
  onnx::NodeProto* n = e.Add("DequantizeLinear", in, out);
  Expansion::IntAttr(n, "axis", axis);
  return e.Name(out);
}

// The float op of QLinearConv / QLinearMatMul between a DequantizeLinear of
// each operand and a QuantizeLinear of its result.
Status QLinear(ConverterContext& c) {
  const bool conv = c.op_type() == "QLinearConv";
  for (int i : {1, 2, 4, 5, 6, 7}) {
    if (!c.HasInput(i)) return c.Invalid("missing input " + std::to_string(i));
  }
  Expansion e(c);
  RILL_INF_ASSIGN_OR_RETURN(std::vector<float> ws, ConstValues(c, 4, "the weights' scale"));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<float> xs, ConstValues(c, 1, "the input's scale"));
  const std::string a = Dequantize(e, c, 0, 1, 2, 1, "a");
  // Conv weights per output channel (axis 0); MatMul's b per column (axis 1).
  const std::string b = Dequantize(e, c, 3, 4, 5, conv ? 0 : 1, "b");
  std::vector<std::string> in = {a, b};
  if (conv && c.HasInput(8)) {
    RILL_INF_ASSIGN_OR_RETURN(std::vector<float> bias, ConstValues(c, 8, "the bias"));
    if (xs.size() != 1 || (ws.size() != 1 && ws.size() != bias.size())) return c.Invalid("bias and scales differ");
    for (size_t o = 0; o < bias.size(); ++o) bias[o] *= xs[0] * ws[ws.size() == 1 ? 0 : o];
    in.push_back(e.Float("bias", {static_cast<int64_t>(bias.size())}, bias));
  }
  onnx::NodeProto* op = e.Add(conv ? "Conv" : "MatMul", in, "float_result");
  if (conv) *op->mutable_attribute() = c.node().attribute();
  e.Add("QuantizeLinear", {e.Name("float_result"), c.node().input(6), c.node().input(7)}, "y");
  return e.Run({"y"});
}

// ConvInteger / MatMulInteger: the operands less their zero points (scale 1),
// then the float op.
Status IntegerOp(ConverterContext& c) {
  const bool conv = c.op_type() == "ConvInteger";
  Expansion e(c);
  std::string operands[2];
  for (int k = 0; k < 2; ++k) {
    const int zp = 2 + k;
    if (!c.HasInput(zp)) {
      operands[k] = c.node().input(k);
      continue;
    }
    RILL_INF_ASSIGN_OR_RETURN(std::vector<float> z, ConstValues(c, zp, "a zero point"));
    RILL_INF_ASSIGN_OR_RETURN(Value operand, c.Input(k));
    const int rank = static_cast<int>(c.OnnxShape(operand).size());
    // Per output channel for conv weights; per row of a, per column of b.
    const int64_t axis = conv ? (k == 1 ? 0 : 1) : (k == 0 ? rank - 2 : rank - 1);
    const std::string one = e.Float("one" + std::to_string(k), {static_cast<int64_t>(z.size())},
                                    std::vector<float>(z.size(), 1.0f));
    onnx::NodeProto* n = e.Add("DequantizeLinear", {c.node().input(k), one, c.node().input(zp)},
                               "operand" + std::to_string(k));
    Expansion::IntAttr(n, "axis", axis);
    operands[k] = e.Name("operand" + std::to_string(k));
  }
  onnx::NodeProto* op = e.Add(conv ? "Conv" : "MatMul", {operands[0], operands[1]}, "y");
  if (conv) *op->mutable_attribute() = c.node().attribute();
  return e.Run({"y"});
}

Status DynamicQuantizeLinear(ConverterContext& c) {
  Expansion e(c);
  const std::string x = c.node().input(0);
  const std::string zero = e.Float("zero", {}, {0.0f}), qmax = e.Float("qmax", {}, {255.0f});
  Expansion::IntAttr(e.Add("ReduceMin", {x}, "min"), "keepdims", 0);
  Expansion::IntAttr(e.Add("ReduceMax", {x}, "max"), "keepdims", 0);
  e.Add("Min", {e.Name("min"), zero}, "low");
  e.Add("Max", {e.Name("max"), zero}, "high");
  e.Add("Sub", {e.Name("high"), e.Name("low")}, "range");
  e.Add("Div", {e.Name("range"), qmax}, "scale");
  e.Add("Div", {e.Name("low"), e.Name("scale")}, "low_scaled");
  e.Add("Sub", {zero, e.Name("low_scaled")}, "zero_point_raw");
  e.Add("Clip", {e.Name("zero_point_raw"), zero, qmax}, "zero_point_clipped");
  e.Add("Round", {e.Name("zero_point_clipped")}, "zero_point");
  e.Add("Div", {x, e.Name("scale")}, "x_scaled");
  e.Add("Round", {e.Name("x_scaled")}, "x_rounded");
  e.Add("Add", {e.Name("x_rounded"), e.Name("zero_point")}, "x_shifted");
  e.Add("Clip", {e.Name("x_shifted"), zero, qmax}, "y");
  return e.Run({"y", "scale", "zero_point"});
}

const bool kRegistered = RegisterOnnxConverter({"QuantizeLinear"}, QuantizeLinear) &&
                         RegisterOnnxConverter({"DequantizeLinear"}, DequantizeLinear) &&
                         RegisterOnnxConverter({"QLinearConv", "QLinearMatMul"}, QLinear) &&
                         RegisterOnnxConverter({"ConvInteger", "MatMulInteger"}, IntegerOp) &&
                         RegisterOnnxConverter({"DynamicQuantizeLinear"}, DynamicQuantizeLinear);

}  // namespace
}  // namespace rill::inference::onnx_import
