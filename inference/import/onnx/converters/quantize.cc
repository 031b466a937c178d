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
#include <cmath>
#include <memory>
#include <string>
#include <vector>

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

const bool kRegistered = RegisterOnnxConverter({"QuantizeLinear"}, QuantizeLinear) &&
                         RegisterOnnxConverter({"DequantizeLinear"}, DequantizeLinear);

}  // namespace
}  // namespace rill::inference::onnx_import
