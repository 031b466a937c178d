// MAX_ROI_POOL: ONNX's MaxRoiPool (Fast R-CNN's RoI pooling), a registered
// op (docs/design.md, "How to add an op").
//
// x [N, H, W, C] (the engine's NHWC layout of an NCHW value), rois [R, 5] of
// (batch index, x1, y1, x2, y2) in the input image's coordinates ->
// [R, pooled_h, pooled_w, C] (NHWC: ONNX's [R, C, pooled_h, pooled_w]).
// As ONNX Runtime 1.30 computes it: the box's corners are scaled by
// spatial_scale and rounded half away from zero (std::round, in float), the
// box is (x2 - x1 + 1) x (y2 - y1 + 1) pixels (at least 1x1), bin (i, j)
// covers rows [floor(i * h / pooled_h), ceil((i + 1) * h / pooled_h)) of it
// (bin sizes in float), clipped to the map, and gives the largest value in
// it, 0 for an empty bin (negative values included: the bin's largest). A
// batch index outside the input gives zeros.
#ifndef RILL_INFERENCE_IR_OPS_MAX_ROI_POOL_OPS_H_
#define RILL_INFERENCE_IR_OPS_MAX_ROI_POOL_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct MaxRoiPoolAttrs : TypedAttrs {
  int pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1.0f;
};

OpType MaxRoiPoolOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_MAX_ROI_POOL_OPS_H_
