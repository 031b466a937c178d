// The reductions and the normalizations over an axis: MEAN (the engine's
// MEAN), SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN and REDUCE_ANY (a max of
// 0 / 1 values) as the registered REDUCE_* ops (ReducerOptions keep_dims;
// the axes a constant second input, negative ones from the end, repeats
// allowed); ARG_MAX and ARG_MIN (the axis a constant input; ArgMaxOptions
// output_type INT32 or INT64, absent: the output's type; the first of equal
// values); SOFTMAX;
// LOG_SOFTMAX lowered to x - max - log(sum(exp(x - max))) over the last axis;
// L2_NORMALIZATION lowered to x / max(sqrt(sum(x^2)), 1e-6) over the last
// axis (TFLite's kernels' epsilon); LOCAL_RESPONSE_NORMALIZATION (the
// LOCAL_RESPONSE_NORM op over the channels); TOPK_V2 (k a constant input; the k
// largest along the last axis, sorted, ties in index order) as the
// TOPK_VALUES and TOPK_INDICES nodes, one per output.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/lrn_ops.h"
#include "inference/ir/ops/math_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kL2Normalization = 11;
constexpr int32_t kLocalResponseNormalization = 13;
constexpr int32_t kTopKV2 = 48;
constexpr int32_t kLogSoftmax = 50;
constexpr int32_t kArgMax = 56;
constexpr int32_t kSum = 74;
constexpr int32_t kArgMin = 79;
constexpr int32_t kReduceProd = 81;
constexpr int32_t kReduceMax = 82;
constexpr int32_t kReduceMin = 89;
constexpr int32_t kReduceAny = 91;

// ReducerOptions: keep_dims. The axes are the second input.
Status Mean(ConverterContext& c) {
  c.node().type = ir::OpType::kMean;
  c.node().attrs.keep_dims = c.Option<uint8_t>(0, 0) != 0;
  return Status::Ok();
}

Status Reduce(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the input and the axes");
  std::vector<int> axes;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "axes", &axes));
  const int rank = static_cast<int>(c.InShape(0).size());
  auto a = std::make_shared<ir::ReduceAttrs>();
  a->keep_dims = c.Option<uint8_t>(0, 0) != 0;
  for (int axis : axes) {
    int v = 0;
    RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(axis, rank, "axis", &v));
    if (std::find(a->axes.begin(), a->axes.end(), v) == a->axes.end()) a->axes.push_back(v);
  }
  std::sort(a->axes.begin(), a->axes.end());
  if (a->axes.empty()) {  // TFLite: no axes reduce nothing
    c.node().type = ir::OpType::kReshape;
    c.node().attrs.new_shape = c.InShape(0);
    c.node().inputs.resize(1);
    return Status::Ok();
  }
  ir::ReduceKind kind = ir::ReduceKind::kSum;
  switch (c.opcode().builtin) {
    case kReduceProd: kind = ir::ReduceKind::kProd; break;
    case kReduceMax:
    case kReduceAny: kind = ir::ReduceKind::kMax; break;
    case kReduceMin: kind = ir::ReduceKind::kMin; break;
    default: break;
  }
  c.node().type = ir::ReduceOp(kind);
  c.node().typed_attrs = std::move(a);
  c.node().inputs.resize(1);
  return Status::Ok();
}

Status ArgMinMax(ConverterContext& c) {
  if (c.num_inputs() != 2) return c.Invalid("expects the input and the axis");
  std::vector<int> axis;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "axis", &axis));
  if (axis.size() != 1) return c.Invalid("axis must hold one value");
  // TensorType: INT32 = 2, INT64 = 4. Absent (the schema's FLOAT32, which
  // no kernel takes): the output tensor's type.
  int8_t type = c.Option<int8_t>(0, -1);
  if (type < 0) {
    const DataType t = c.graph().tensors[c.node().outputs[0]].dtype;
    type = t == DataType::kInt32 ? 2 : t == DataType::kInt64 ? 4 : 0;
  }
  if (type != 2 && type != 4) {
    return c.UnsupportedAttribute("output_type", "output_type " + std::to_string(type) + " (INT32 or INT64 only)");
  }
  auto a = std::make_shared<ir::ArgAttrs>();
  RILL_INF_RETURN_IF_ERROR(c.NormalizeAxis(axis[0], static_cast<int>(c.InShape(0).size()), "axis", &a->axis));
  a->keep_dims = false;
  c.node().type = c.opcode().builtin == kArgMax ? ir::ArgMaxOp() : ir::ArgMinOp();
  c.node().typed_attrs = std::move(a);
  c.node().inputs.resize(1);
  return Status::Ok();
}

// Over the last axis; TFLite's beta scales the logits (1 in every converted
// classifier; absent reads as the schema's 0).
Status Softmax(ConverterContext& c) {
  c.node().type = ir::OpType::kSoftmax;
  c.node().attrs.axis = -1;
  const float beta = c.Option<float>(0, 0.0f);
  if (beta != 1.0f) return c.UnsupportedAttribute("beta", "SOFTMAX with beta " + std::to_string(beta) + " (1 only)");
  return Status::Ok();
}

std::shared_ptr<ir::ReduceAttrs> LastAxis(int rank) {
  auto a = std::make_shared<ir::ReduceAttrs>();
  a->axes = {rank - 1};
  a->keep_dims = true;
  return a;
}

Status LogSoftmax(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  const int x = c.node().inputs[0];
  const int rank = static_cast<int>(c.InShape(0).size());
  if (rank < 1) return c.Unsupported("LOG_SOFTMAX of a scalar");
  const auto axis = LastAxis(rank);
  RILL_INF_ASSIGN_OR_RETURN(int max, c.Emit(ir::ReduceOp(ir::ReduceKind::kMax), {x}, "max", -1, {}, axis));
  RILL_INF_ASSIGN_OR_RETURN(int shifted, c.Emit(ir::OpType::kSub, {x, max}, "shifted"));
  RILL_INF_ASSIGN_OR_RETURN(int e, c.Emit(ir::UnaryMathOp(ir::UnaryFn::kExp), {shifted}, "exp", -1, {},
                                          std::make_shared<ir::UnaryMathAttrs>()));
  RILL_INF_ASSIGN_OR_RETURN(int sum, c.Emit(ir::ReduceOp(ir::ReduceKind::kSum), {e}, "sum", -1, {}, axis));
  RILL_INF_ASSIGN_OR_RETURN(int log, c.Emit(ir::UnaryMathOp(ir::UnaryFn::kLog), {sum}, "log", -1, {},
                                            std::make_shared<ir::UnaryMathAttrs>()));
  RILL_INF_RETURN_IF_ERROR(c.Emit(ir::OpType::kSub, {shifted, log}, "", c.node().outputs[0]).status());
  c.Lowered();
  return Status::Ok();
}

// L2NormOptions: fused_activation_function.
Status L2Normalization(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  ir::Activation act;
  RILL_INF_RETURN_IF_ERROR(c.ReadActivation(0, &act));
  if (act != ir::Activation::kNone) return c.UnsupportedAttribute("fused_activation_function", "a fused activation");
  const int x = c.node().inputs[0];
  const int rank = static_cast<int>(c.InShape(0).size());
  if (rank < 1) return c.Unsupported("L2_NORMALIZATION of a scalar");
  RILL_INF_ASSIGN_OR_RETURN(int norm, c.Emit(ir::ReduceOp(ir::ReduceKind::kL2), {x}, "norm", -1, {}, LastAxis(rank)));
  const int eps = c.NewFloatConst("epsilon", {1}, {1e-6f});
  RILL_INF_ASSIGN_OR_RETURN(int floor, c.Emit(ir::NaryMathOp(ir::NaryFn::kMax), {norm, eps}, "floored"));
  RILL_INF_RETURN_IF_ERROR(c.Emit(ir::OpType::kDiv, {x, floor}, "", c.node().outputs[0]).status());
  c.Lowered();
  return Status::Ok();
}

// LocalResponseNormalizationOptions: radius, bias, alpha, beta; across the
// last (channel) axis of a 4-D value.
Status LocalResponseNormalization(ConverterContext& c) {
  if (c.num_inputs() != 1) return c.Invalid("expects one input");
  if (c.InShape(0).size() != 4) return c.Unsupported("LOCAL_RESPONSE_NORMALIZATION of other than a 4-D input");
  auto a = std::make_shared<ir::LrnAttrs>();
  const int radius = c.Option<int32_t>(0, 0);
  if (radius < 0) return c.UnsupportedAttribute("radius", "a negative radius");
  a->before = a->after = radius;
  a->bias = c.Option<float>(1, 0.0f);
  a->alpha = c.Option<float>(2, 0.0f);
  a->beta = c.Option<float>(3, 0.0f);
  a->channels_last = true;
  c.node().type = ir::LrnOp();
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

Status TopKV2(ConverterContext& c) {
  if (c.num_inputs() != 2 || c.node().outputs.size() != 2) return c.Invalid("expects the input and k; two outputs");
  std::vector<int> k;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, "k", &k));
  const Shape x = c.InShape(0);
  if (x.empty()) return c.Unsupported("TOPK_V2 of a scalar");
  if (k.size() != 1 || k[0] < 1 || k[0] > x.back()) {
    return c.Unsupported("k " + (k.size() == 1 ? std::to_string(k[0]) : std::string("of several values")) +
                         " (1 to the last axis's " + std::to_string(x.back()) + ")");
  }
  auto a = std::make_shared<ir::TopKAttrs>();
  a->axis = static_cast<int>(x.size()) - 1;
  a->k = k[0];
  a->largest = true;
  const int in = c.node().inputs[0];
  RILL_INF_RETURN_IF_ERROR(c.Emit(ir::TopKValuesOp(), {in}, "", c.node().outputs[0], {}, a).status());
  RILL_INF_RETURN_IF_ERROR(c.Emit(ir::TopKIndicesOp(), {in}, "", c.node().outputs[1], {}, a).status());
  c.Lowered();
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteConverter({kMean}, Mean) && RegisterTfLiteConverter({kSoftmax}, Softmax) &&
    RegisterTfLiteConverter({kLocalResponseNormalization}, LocalResponseNormalization) &&
    RegisterTfLiteConverter({kSum, kReduceProd, kReduceMax, kReduceMin, kReduceAny}, Reduce) &&
    RegisterTfLiteConverter({kArgMax, kArgMin}, ArgMinMax) && RegisterTfLiteConverter({kLogSoftmax}, LogSoftmax) &&
    RegisterTfLiteConverter({kL2Normalization}, L2Normalization) && RegisterTfLiteConverter({kTopKV2}, TopKV2);

}  // namespace
}  // namespace rill::inference::tflite
