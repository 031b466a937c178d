// GRID_SAMPLE: ONNX's GridSample (opset 16: 4-D), a registered op
// (docs/design.md, "How to add an op").
//
// x [N, C, H, W] (channels-first), grid [N, Ho, Wo, 2] of normalized
// (x, y) in [-1, 1] -> [N, C, Ho, Wo]: each output pixel samples x at its
// grid point, bilinear, nearest (round half to even) or bicubic (a =
// -0.75), outside the image by zeros, the border's value or a reflection;
// align_corners maps -1 and 1 to the corner pixels' centres (else to their
// outer edges), as ONNX Runtime computes it.
#ifndef RILL_INFERENCE_IR_OPS_GRID_SAMPLE_OPS_H_
#define RILL_INFERENCE_IR_OPS_GRID_SAMPLE_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct GridSampleAttrs : TypedAttrs {
  enum class Mode { kBilinear, kNearest, kBicubic };
  enum class PaddingMode { kZeros, kBorder, kReflection };
  Mode mode = Mode::kBilinear;
  PaddingMode padding = PaddingMode::kZeros;
  bool align_corners = false;
};

OpType GridSampleOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_GRID_SAMPLE_OPS_H_
