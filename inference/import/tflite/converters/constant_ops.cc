// DEQUANTIZE and DENSIFY: fp16 and sparse weights. The importer folds them
// into dense fp32 constants once every operator is read.
#include "inference/import/tflite/tflite_converter.h"

namespace rill::inference::tflite {
namespace {

Status Dequantize(ConverterContext& c) {
  c.node().type = ir::OpType::kDequantize;
  return Status::Ok();
}

Status Densify(ConverterContext& c) {
  c.node().type = ir::OpType::kDensify;
  return Status::Ok();
}

const bool kRegistered =
    RegisterTfLiteConverter({kDequantize}, Dequantize) && RegisterTfLiteConverter({kDensify}, Densify);

}  // namespace
}  // namespace rill::inference::tflite
