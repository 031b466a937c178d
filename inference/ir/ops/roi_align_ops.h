// ROI_ALIGN: ONNX's RoiAlign (opsets 10 and 16), a registered op
// (docs/design.md, "How to add an op"): the pooling of detection heads
// (Mask R-CNN, Faster R-CNN's box head).
//
// x [N, C, H, W] (channels-first; [N, H, W, C] with `nhwc`), rois [R, 4] of (x1, y1, x2, y2) in the
// input image's coordinates, batch_indices [R] -> [R, C, out_h, out_w]. Each
// output bin averages (or takes the largest of) sampling_ratio^2 bilinear
// samples of x inside its part of the box scaled by spatial_scale
// (sampling_ratio 0: ceil(box size / bins) per axis, per box). half_pixel
// (opset 16's default) shifts the box by half a pixel; output_half_pixel
// (opset 10's only mode) does not, and makes boxes at least 1x1. Samples
// more than one pixel outside the map count as 0, as ONNX Runtime computes
// them; its max mode takes, per sample, the largest of the four weighted
// corners, and that is what this op computes too.
#ifndef RILL_INFERENCE_IR_OPS_ROI_ALIGN_OPS_H_
#define RILL_INFERENCE_IR_OPS_ROI_ALIGN_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct RoiAlignAttrs : TypedAttrs {
  bool max_mode = false;    // "max", else "avg"
  bool half_pixel = true;   // coordinate_transformation_mode
  int out_h = 1, out_w = 1;
  int sampling_ratio = 0;   // 0: adaptive
  float spatial_scale = 1.0f;
  bool nhwc = false;        // x is [N, H, W, C] (the engine's layout of a conv's output); y stays [R, C, h, w]
};

OpType RoiAlignOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_ROI_ALIGN_OPS_H_
