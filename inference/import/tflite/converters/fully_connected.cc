// FULLY_CONNECTED.
#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// FullyConnectedOptions: fused_activation_function, weights_format,
// keep_num_dims.
Status FullyConnected(ConverterContext& c) {
  ir::Node& node = c.node();
  node.type = ir::OpType::kFullyConnected;
  RILL_INF_RETURN_IF_ERROR(c.ReadActivation(0, &node.attrs.activation));
  if (c.Option<int8_t>(1, 0) != 0) return c.UnsupportedAttribute("weights_format", "shuffled weights format");
  node.attrs.keep_num_dims = c.Option<uint8_t>(2, 0) != 0;
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kFullyConnected}, FullyConnected);

}  // namespace
}  // namespace rill::inference::tflite
