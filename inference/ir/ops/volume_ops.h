// 3-D convolution and pooling over NCDHW tensors (video models: torchvision's
// r3d_18, mc3_18, r2plus1d_18), as registered ops with typed attributes
// (docs/design.md, "How to add an op"). They keep ONNX's channels-first
// layout: the 2-D ops' NHWC does not apply to 5-D values, and the ops around
// them in such models (ReLU, Add, ReduceMean, Reshape) do not care.
//
// CONV_3D: x [N, C, D, H, W], filter [O, C / group, kd, kh, kw] (ONNX's),
//   optional bias [O] -> [N, O, D', H', W'], explicit padding per axis.
// CONV_TRANSPOSE_3D: x [N, C, D, H, W], filter [C, O / group, kd, kh, kw]
//   (ONNX's), optional bias [O] -> [N, O, D', H', W'] with
//   D' = (D - 1) * stride - pad_begin - pad_end + dilation * (kd - 1) + 1
//   + output_padding (ONNX ConvTranspose).
// POOL_3D: x [N, C, D, H, W] -> [N, C, D', H', W'], max or average
//   (count_include_pad as ONNX's AveragePool), floor or ceil output sizes.
#ifndef RILL_INFERENCE_IR_OPS_VOLUME_OPS_H_
#define RILL_INFERENCE_IR_OPS_VOLUME_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

// Per axis: depth, height, width.
struct Conv3dAttrs : TypedAttrs {
  int stride[3] = {1, 1, 1};
  int dilation[3] = {1, 1, 1};
  int pad_begin[3] = {0, 0, 0};
  int pad_end[3] = {0, 0, 0};
  int group = 1;
};

// CONV_TRANSPOSE_3D: Conv3dAttrs plus the output padding per axis.
struct ConvTranspose3dAttrs : Conv3dAttrs {
  int output_padding[3] = {0, 0, 0};
};

struct Pool3dAttrs : TypedAttrs {
  bool max = true;
  int kernel[3] = {1, 1, 1};
  int stride[3] = {1, 1, 1};
  int pad_begin[3] = {0, 0, 0};
  int pad_end[3] = {0, 0, 0};
  bool ceil_mode = false;
  bool count_include_pad = false;
};

OpType Conv3dOp();
OpType ConvTranspose3dOp();
OpType Pool3dOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_VOLUME_OPS_H_
