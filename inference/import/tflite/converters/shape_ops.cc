// CONCATENATION, RESHAPE, PAD, DEPTH_TO_SPACE and STRIDED_SLICE.
#include <string>
#include <vector>

#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// ConcatenationOptions: axis, fused_activation_function.
Status Concatenation(ConverterContext& c) {
  c.node().type = ir::OpType::kConcatenation;
  c.node().attrs.axis = c.Option<int32_t>(0, 0);
  return c.ReadActivation(1, &c.node().attrs.activation);
}

// ReshapeOptions: new_shape; or the shape as a second input.
Status Reshape(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::OpType::kReshape;
  const ConverterContext::Vector new_shape = c.OptionVector(0, 4);
  node.attrs.new_shape = c.Ints(new_shape);
  // A second input may be absent or an empty placeholder; use options then.
  if (node.inputs.size() >= 2 && node.inputs[1] >= 0 && !c.graph().tensors[node.inputs[1]].is_constant() &&
      new_shape.valid) {
    node.inputs.resize(1);
  }
  return Status::Ok();
}

// The paddings are the second input.
Status Pad(ConverterContext& c) {
  c.node().type = ir::OpType::kPad;
  return Status::Ok();
}

// DepthToSpaceOptions: block_size.
Status DepthToSpace(ConverterContext& c) {
  c.node().type = ir::OpType::kDepthToSpace;
  c.node().attrs.block_size = c.Option<int32_t>(0, 0);
  return Status::Ok();
}

// StridedSliceOptions: begin_mask, end_mask, ellipsis_mask, new_axis_mask,
// shrink_axis_mask, offset. begin, end and strides are constant int32 inputs
// of the input's rank; they become a SLICE's per-axis start/end/step (a
// masked begin or end takes the whole axis in the step's direction).
Status StridedSlice(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::OpType::kSlice;
  const int begin_mask = c.Option<int32_t>(0, 0);
  const int end_mask = c.Option<int32_t>(1, 0);
  if (c.Option<int32_t>(2, 0) != 0) return c.UnsupportedAttribute("ellipsis_mask", "ellipsis_mask is not supported");
  if (c.Option<int32_t>(3, 0) != 0) return c.UnsupportedAttribute("new_axis_mask", "new_axis_mask is not supported");
  if (c.Option<int32_t>(4, 0) != 0) {
    return c.UnsupportedAttribute("shrink_axis_mask", "shrink_axis_mask is not supported");
  }
  if (c.Option<uint8_t>(5, 0) != 0) return c.UnsupportedAttribute("offset", "offset = true is not supported");
  if (node.inputs.size() != 4) return c.Invalid("expects 4 inputs, has " + std::to_string(node.inputs.size()));
  for (int i = 1; i < 4; ++i) {
    if (node.inputs[i] < 0 || !c.graph().tensors[node.inputs[i]].is_constant()) {
      return c.Unsupported("begin, end and strides must be constants");
    }
  }
  std::vector<int> begin, end, strides;
  RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(c.graph(), node, 1, &begin));
  RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(c.graph(), node, 2, &end));
  RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(c.graph(), node, 3, &strides));
  const size_t rank = begin.size();
  if (rank == 0 || rank > 6 || end.size() != rank || strides.size() != rank) {
    return c.Invalid("begin, end and strides must have one value per axis (at most 6)");
  }
  constexpr long long kWhole = 1LL << 40;  // past either end of any axis
  ir::OpAttrs& a = node.attrs;
  a.slice_start.assign(rank, 0);
  a.slice_end.assign(rank, 0);
  a.slice_step.assign(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    if (strides[d] == 0) return c.Invalid("stride 0 on axis " + std::to_string(d));
    const bool forward = strides[d] > 0;
    a.slice_step[d] = strides[d];
    a.slice_start[d] = (begin_mask >> d) & 1 ? (forward ? 0 : kWhole) : begin[d];
    a.slice_end[d] = (end_mask >> d) & 1 ? (forward ? kWhole : -kWhole) : end[d];
  }
  node.inputs.resize(1);
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kConcatenation}, Concatenation) &&
                         RegisterTfLiteConverter({kReshape}, Reshape) && RegisterTfLiteConverter({kPad}, Pad) &&
                         RegisterTfLiteConverter({kDepthToSpace}, DepthToSpace) &&
                         RegisterTfLiteConverter({kStridedSlice}, StridedSlice);

}  // namespace
}  // namespace rill::inference::tflite
