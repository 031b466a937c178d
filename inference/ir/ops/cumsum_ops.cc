// Descriptor and shape function of CUMSUM (cumsum_ops.h).
#include "inference/ir/ops/cumsum_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status CumSumShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const auto* a = c.node().attrs_as<CumSumAttrs>();
  if (a == nullptr) return c.Error("missing CumSumAttrs");
  const Shape& x = c.In(0);
  if (a->axis < 0 || a->axis >= static_cast<int>(x.size())) {
    return c.Error("axis " + std::to_string(a->axis) + " out of range for " + ShapeToString(x));
  }
  return c.SetOut(x);
}

}  // namespace

OpType CumSumOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "CUMSUM", CumSumShape});
  return t;
}

namespace {
const bool kRegistered = CumSumOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
