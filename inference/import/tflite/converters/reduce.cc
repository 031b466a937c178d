// MEAN and SOFTMAX.
#include <string>

#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

// ReducerOptions: keep_dims. The axes are the second input.
Status Mean(ConverterContext& c) {
  c.node().type = ir::OpType::kMean;
  c.node().attrs.keep_dims = c.Option<uint8_t>(0, 0) != 0;
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

const bool kRegistered = RegisterTfLiteConverter({kMean}, Mean) && RegisterTfLiteConverter({kSoftmax}, Softmax);

}  // namespace
}  // namespace rill::inference::tflite
