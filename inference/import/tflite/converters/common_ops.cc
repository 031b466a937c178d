// TFLite builtins beyond the MediaPipe models that map onto one engine op
// each: SUB and DIV (fused activation), TRANSPOSE (constant perm), SQUEEZE
// and EXPAND_DIMS (as RESHAPE), SLICE (constant begin and size), PADV2 (PAD
// with its constant value), LEAKY_RELU, RELU_N1_TO_1 (CLAMP) and the builtin
// TRANSPOSE_CONV (its output_shape input checked against what the padding
// gives).
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kReluN1To1 = 20;
constexpr int32_t kTranspose = 39;
constexpr int32_t kSub = 41;
constexpr int32_t kDiv = 42;
constexpr int32_t kSqueeze = 43;
constexpr int32_t kPadV2 = 60;
constexpr int32_t kSlice = 65;
constexpr int32_t kTransposeConv = 67;
constexpr int32_t kExpandDims = 70;
constexpr int32_t kLeakyRelu = 98;

// The declared shape of input `i` (the importer checks it against the model).
const Shape& InShape(ConverterContext& c, size_t i) { return c.graph().tensors[c.node().inputs[i]].shape; }

Status ConstInput(ConverterContext& c, int i, const char* what, std::vector<int>* v) {
  if (static_cast<int>(c.node().inputs.size()) <= i || c.node().inputs[i] < 0 ||
      !ir::ReadConstInts(c.graph(), c.node(), i, v).ok()) {
    return c.Unsupported(std::string(what) + " that is not a constant int32 tensor");
  }
  return Status::Ok();
}

// SubOptions and DivOptions: fused_activation_function first.
Status SubDiv(ConverterContext& c) {
  c.node().type = c.opcode().builtin == kSub ? ir::OpType::kSub : ir::OpType::kDiv;
  return c.ReadActivation(0, &c.node().attrs.activation);
}

Status Transpose(ConverterContext& c) {
  std::vector<int> perm;
  RILL_INF_RETURN_IF_ERROR(ConstInput(c, 1, "perm", &perm));
  c.node().type = ir::OpType::kTranspose;
  c.node().attrs.perm = perm;
  c.node().inputs.resize(1);
  return Status::Ok();
}

// SqueezeOptions: squeeze_dims (empty: every axis of size 1).
Status Squeeze(ConverterContext& c) {
  const Shape& x = InShape(c, 0);
  const int rank = static_cast<int>(x.size());
  std::vector<int> dims = c.Ints(c.OptionVector(0, 4));
  std::vector<bool> drop(rank, dims.empty());
  if (dims.empty()) {
    for (int d = 0; d < rank; ++d) drop[d] = x[d] == 1;
  }
  for (int d : dims) {
    if (d < -rank || d >= rank) return c.Invalid("squeeze_dims value " + std::to_string(d) + " out of range");
    const int a = (d + rank) % rank;
    if (x[a] != 1) return c.Invalid("squeeze_dims names axis " + std::to_string(a) + " of size " + std::to_string(x[a]));
    drop[a] = true;
  }
  std::vector<int> shape;
  for (int d = 0; d < rank; ++d) {
    if (!drop[d]) shape.push_back(x[d]);
  }
  c.node().type = ir::OpType::kReshape;
  c.node().attrs.new_shape = shape;
  c.node().inputs.resize(1);
  return Status::Ok();
}

Status ExpandDims(ConverterContext& c) {
  std::vector<int> axis;
  RILL_INF_RETURN_IF_ERROR(ConstInput(c, 1, "axis", &axis));
  const Shape& x = InShape(c, 0);
  const int rank = static_cast<int>(x.size());
  if (axis.size() != 1 || axis[0] < -rank - 1 || axis[0] > rank) return c.Invalid("axis out of range");
  const int at = axis[0] < 0 ? axis[0] + rank + 1 : axis[0];
  std::vector<int> shape(x.begin(), x.end());
  shape.insert(shape.begin() + at, 1);
  c.node().type = ir::OpType::kReshape;
  c.node().attrs.new_shape = shape;
  c.node().inputs.resize(1);
  return Status::Ok();
}

// SLICE: begin and size per axis (size -1: to the end).
Status Slice(ConverterContext& c) {
  std::vector<int> begin, size;
  RILL_INF_RETURN_IF_ERROR(ConstInput(c, 1, "begin", &begin));
  RILL_INF_RETURN_IF_ERROR(ConstInput(c, 2, "size", &size));
  const Shape& x = InShape(c, 0);
  if (begin.size() != x.size() || size.size() != x.size()) return c.Invalid("begin and size need one value per axis");
  ir::OpAttrs& a = c.node().attrs;
  for (size_t d = 0; d < x.size(); ++d) {
    const long long end = size[d] < 0 ? x[d] : static_cast<long long>(begin[d]) + size[d];
    if (begin[d] < 0 || end > x[d] || end < begin[d]) return c.Invalid("slice out of range on axis " + std::to_string(d));
    a.slice_start.push_back(begin[d]);
    a.slice_end.push_back(end);
    a.slice_step.push_back(1);
  }
  c.node().type = ir::OpType::kSlice;
  c.node().inputs.resize(1);
  return Status::Ok();
}

Status PadV2(ConverterContext& c) {
  if (c.node().inputs.size() != 3) return c.Invalid("expects the input, the paddings and the value");
  c.node().type = ir::OpType::kPad;
  return Status::Ok();
}

// LeakyReluOptions: alpha.
Status LeakyRelu(ConverterContext& c) {
  c.node().type = ir::OpType::kLeakyRelu;
  c.node().attrs.alpha = c.Option<float>(0, 0.0f);
  return Status::Ok();
}

Status ReluN1To1(ConverterContext& c) {
  c.node().type = ir::OpType::kClamp;
  c.node().attrs.clamp_min = -1.0f;
  c.node().attrs.clamp_max = 1.0f;
  return Status::Ok();
}

// TRANSPOSE_CONV: inputs output_shape, weights [O, kh, kw, I], input,
// [bias]; TransposeConvOptions: padding, stride_w, stride_h,
// fused_activation_function.
Status TransposeConv(ConverterContext& c) {
  ir::Node& node = c.node();
  if (node.inputs.size() < 3 || node.inputs.size() > 4) return c.Invalid("expects output_shape, weights, input[, bias]");
  std::vector<int> out_shape;
  RILL_INF_RETURN_IF_ERROR(ConstInput(c, 0, "output_shape", &out_shape));
  ir::OpAttrs& a = node.attrs;
  a.padding = c.ReadPadding(0);
  a.stride_w = c.Option<int32_t>(1, 0);
  a.stride_h = c.Option<int32_t>(2, 0);
  RILL_INF_RETURN_IF_ERROR(c.ReadActivation(3, &a.activation));
  if (a.stride_w <= 0 || a.stride_h <= 0 || a.stride_w > 1024 || a.stride_h > 1024) return c.Invalid("invalid strides");
  const Shape& w = InShape(c, 1);
  const Shape& x = InShape(c, 2);
  if (w.size() != 4 || x.size() != 4 || out_shape.size() != 4) return c.Invalid("expects 4-D weights, input and output");
  // The engine sizes the output from the padding (SAME: in * stride; VALID:
  // (in - 1) * stride + kernel); a model asking for another size is refused.
  if (out_shape[1] != ir::TransposeConvOutputSize(x[1], w[1], a.stride_h, a.padding) ||
      out_shape[2] != ir::TransposeConvOutputSize(x[2], w[2], a.stride_w, a.padding)) {
    return c.Unsupported("an output_shape other than the padding gives");
  }
  std::vector<int> inputs = {node.inputs[2], node.inputs[1]};
  if (node.inputs.size() == 4 && node.inputs[3] >= 0) inputs.push_back(node.inputs[3]);
  node.inputs = inputs;
  node.type = ir::OpType::kTransposeConv2D;
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteConverter({kSub, kDiv}, SubDiv) && RegisterTfLiteConverter({kTranspose}, Transpose) &&
    RegisterTfLiteConverter({kSqueeze}, Squeeze) && RegisterTfLiteConverter({kExpandDims}, ExpandDims) &&
    RegisterTfLiteConverter({kSlice}, Slice) && RegisterTfLiteConverter({kPadV2}, PadV2) &&
    RegisterTfLiteConverter({kLeakyRelu}, LeakyRelu) && RegisterTfLiteConverter({kReluN1To1}, ReluN1To1) &&
    RegisterTfLiteConverter({kTransposeConv}, TransposeConv);

}  // namespace
}  // namespace rill::inference::tflite
