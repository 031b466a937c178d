// Descriptor and shape function of ROI_ALIGN (roi_align_ops.h).
#include "inference/ir/ops/roi_align_ops.h"

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status RoiAlignShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 3));
  const auto* a = c.node().attrs_as<RoiAlignAttrs>();
  if (a == nullptr) return c.Error("missing RoiAlignAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 2));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(2, 1));
  const Shape& rois = c.In(1);
  if (rois[1] != 4) return c.Error("rois " + ShapeToString(rois) + " must be [num_rois, 4]");
  if (c.In(2)[0] != rois[0]) {
    return c.Error("batch_indices " + ShapeToString(c.In(2)) + " must have one index per roi (" +
                   std::to_string(rois[0]) + ")");
  }
  if (a->out_h < 1 || a->out_w < 1 || a->sampling_ratio < 0) {
    return c.Error("output_height, output_width must be >= 1 and sampling_ratio >= 0");
  }
  return c.SetOut({rois[0], c.In(0)[a->nhwc ? 3 : 1], a->out_h, a->out_w});
}

}  // namespace

OpType RoiAlignOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "ROI_ALIGN", RoiAlignShape});
  return t;
}

namespace {
const bool kRegistered = RoiAlignOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
