// GELU (builtin 150; GeluOptions { approximate: bool }) as the registered
// op GELU (ir/ops/math_ops.h): approximate selects the tanh form.
#include <memory>

#include "inference/import/tflite/tflite_converter.h"
#include "inference/ir/ops/math_ops.h"

namespace rill::inference::tflite {
namespace {

constexpr int32_t kGelu = 150;

Status Gelu(ConverterContext& c) {
  if (c.node().inputs.size() != 1) return c.Invalid("GELU takes one input");
  auto attrs = std::make_shared<ir::UnaryMathAttrs>();
  attrs->tanh_approximation = c.Option<uint8_t>(0, 0) != 0;
  c.node().type = ir::UnaryMathOp(ir::UnaryFn::kGelu);
  c.node().typed_attrs = attrs;
  return Status::Ok();
}

const bool kRegistered = RegisterTfLiteConverter({kGelu}, Gelu);

}  // namespace
}  // namespace rill::inference::tflite
