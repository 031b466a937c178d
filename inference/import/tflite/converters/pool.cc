// AVERAGE_POOL_2D and MAX_POOL_2D.
#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// Pool2DOptions: padding, stride_w, stride_h, filter_width, filter_height,
// fused_activation_function.
Status Pool2D(ConverterContext& c) {
  ir::Node& node = c.node();
  ir::OpAttrs& a = node.attrs;
  node.type = c.opcode().builtin == kMaxPool2D ? ir::OpType::kMaxPool2D : ir::OpType::kAveragePool2D;
  a.padding = c.ReadPadding(0);
  a.stride_w = c.Option<int32_t>(1, 0);
  a.stride_h = c.Option<int32_t>(2, 0);
  a.kernel_w = c.Option<int32_t>(3, 0);
  a.kernel_h = c.Option<int32_t>(4, 0);
  return c.ReadActivation(5, &a.activation);
}

const bool kRegistered = RegisterTfLiteConverter({kAveragePool2D, kMaxPool2D}, Pool2D);

}  // namespace
}  // namespace rill::inference::tflite
