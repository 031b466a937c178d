// ADD and MUL (with a fused activation), PRELU (the slope is the second
// input, broadcast) and the one-input activations.
#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// AddOptions and MulOptions: fused_activation_function first.
Status Binary(ConverterContext& c) {
  c.node().type = c.opcode().builtin == kAdd ? ir::OpType::kAdd : ir::OpType::kMul;
  return c.ReadActivation(0, &c.node().attrs.activation);
}

Status PRelu(ConverterContext& c) {
  c.node().type = ir::OpType::kPRelu;
  return Status::Ok();
}

Status Activation(ConverterContext& c) {
  switch (c.opcode().builtin) {
    case kLogistic:
      c.node().type = ir::OpType::kLogistic;
      break;
    case kRelu:
      c.node().type = ir::OpType::kRelu;
      break;
    case kRelu6:
      c.node().type = ir::OpType::kRelu6;
      break;
    default:
      c.node().type = ir::OpType::kHardSwish;
      break;
  }
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kAdd, kMul}, Binary) && RegisterTfLiteConverter({kPRelu}, PRelu) &&
                         RegisterTfLiteConverter({kLogistic, kRelu, kRelu6, kHardSwish}, Activation);

}  // namespace
}  // namespace rill::inference::tflite
