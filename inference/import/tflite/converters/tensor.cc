// BATCH_MATMUL (inference/ir/ops/tensor_ops.h): BatchMatMulOptions adj_x
// (field 0) and adj_y (field 1); float operands only.
#include <memory>
#include <utility>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kBatchMatMul = 126;

Status BatchMatMul(ConverterContext& c) {
  if (c.Option<uint8_t>(2, 0) != 0) {
    return c.UnsupportedAttribute("asymmetric_quantize_inputs", "quantized inputs");
  }
  auto a = std::make_shared<ir::BatchMatMulAttrs>();
  a->adj_x = c.Option<uint8_t>(0, 0) != 0;
  a->adj_y = c.Option<uint8_t>(1, 0) != 0;
  c.node().type = ir::BatchMatMulOp();
  c.node().typed_attrs = std::move(a);
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kBatchMatMul}, BatchMatMul);

}  // namespace
}  // namespace rill::inference::tflite
