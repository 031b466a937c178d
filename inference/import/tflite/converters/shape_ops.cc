// CONCATENATION, RESHAPE, PAD and DEPTH_TO_SPACE.
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

const bool kRegistered = RegisterTfLiteConverter({kConcatenation}, Concatenation) &&
                         RegisterTfLiteConverter({kReshape}, Reshape) && RegisterTfLiteConverter({kPad}, Pad) &&
                         RegisterTfLiteConverter({kDepthToSpace}, DepthToSpace);

}  // namespace
}  // namespace rill::inference::tflite
