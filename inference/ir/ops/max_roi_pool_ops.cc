// Descriptor and shape function of MAX_ROI_POOL (max_roi_pool_ops.h).
#include "inference/ir/ops/max_roi_pool_ops.h"

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status MaxRoiPoolShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  const auto* a = c.node().attrs_as<MaxRoiPoolAttrs>();
  if (a == nullptr) return c.Error("missing MaxRoiPoolAttrs");
  if (a->pooled_h < 1 || a->pooled_w < 1) return c.Error("pooled_shape must be positive");
  const Shape& x = c.In(0);
  const Shape& rois = c.In(1);
  if (x.size() != 4) return c.Error("input must be [N, H, W, C], is " + ShapeToString(x));
  if (rois.size() != 2 || rois[1] != 5) return c.Error("rois must be [R, 5], is " + ShapeToString(rois));
  return c.SetOut({rois[0], a->pooled_h, a->pooled_w, x[3]});
}

}  // namespace

OpType MaxRoiPoolOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "MAX_ROI_POOL", MaxRoiPoolShape});
  return t;
}

namespace {
const bool kRegistered = MaxRoiPoolOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
