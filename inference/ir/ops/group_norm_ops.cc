// Descriptor and shape function of GROUP_NORM (group_norm_ops.h).
#include "inference/ir/ops/group_norm_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status GroupNormShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 3));
  const auto* a = c.node().attrs_as<GroupNormAttrs>();
  if (a == nullptr) return c.Error("missing GroupNormAttrs");
  const Shape& x = c.In(0);
  if (x.size() < 2 || (a->channels_last && x.size() != 4)) {
    return c.Error("input " + ShapeToString(x) + " must be [N, C, ...] (or NHWC)");
  }
  const int channels = a->channels_last ? x[3] : x[1];
  if (a->groups < 1 || channels % a->groups != 0) {
    return c.Error(std::to_string(a->groups) + " groups do not divide " + std::to_string(channels) + " channels");
  }
  if (NumElements(c.In(1)) != channels || NumElements(c.In(2)) != channels) {
    return c.Error("scale and bias must have one value per channel (" + std::to_string(channels) + ")");
  }
  if (!(a->epsilon >= 0.0f)) return c.Error("epsilon must be >= 0");
  return c.SetOut(x);
}

}  // namespace

OpType GroupNormOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "GROUP_NORM", GroupNormShape});
  return t;
}

namespace {
const bool kRegistered = GroupNormOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
