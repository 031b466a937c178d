// Descriptor and shape function of LOCAL_RESPONSE_NORM (lrn_ops.h).
#include "inference/ir/ops/lrn_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status LrnShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const auto* a = c.node().attrs_as<LrnAttrs>();
  if (a == nullptr) return c.Error("missing LrnAttrs");
  const Shape& x = c.In(0);
  if (x.size() < 2 || (a->channels_last && x.size() != 4)) {
    return c.Error("input " + ShapeToString(x) + " must be [N, C, ...] (or NHWC)");
  }
  if (a->before < 0 || a->after < 0) return c.Error("a negative window");
  return c.SetOut(x);
}

}  // namespace

OpType LrnOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "LOCAL_RESPONSE_NORM", LrnShape});
  return t;
}

namespace {
const bool kRegistered = LrnOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
