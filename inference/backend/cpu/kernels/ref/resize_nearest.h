// Reference nearest-neighbour resize, NHWC: TFLite's RESIZE_NEAREST_NEIGHBOR
// (align_corners, half_pixel_centers) and ONNX Resize's mode "nearest" with
// every coordinate_transformation_mode and every nearest_mode, computed as
// TFLite's and ONNX Runtime's kernels compute them (float arithmetic, same
// order), so ties land on the same pixel.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_NEAREST_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_NEAREST_H_

#include "inference/backend/cpu/kernels/ref/resize_coordinate.h"
#include "inference/ir/graph.h"

namespace rill::inference::cpu {

struct ResizeNearestParams {
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  ir::ResizeCoordinate coordinate = ir::ResizeCoordinate::kTflite;
  ir::NearestRounding rounding = ir::NearestRounding::kRoundPreferFloor;
  bool align_corners = false, half_pixel_centers = false;  // kTflite
  float scale_h = 0.0f, scale_w = 0.0f;                     // ONNX modes; 0: out / in
  float roi_start_h = 0.0f, roi_start_w = 0.0f, roi_end_h = 1.0f, roi_end_w = 1.0f;  // kTfCropAndResize
  float extrapolation_value = 0.0f;                                                  // kTfCropAndResize
};

// The input index (in [0, axis.in_size)) that output index `out_index`
// copies, or -1 where tf_crop_and_resize extrapolates (the output is
// extrapolation_value).
int NearestSourceIndex(const ResizeNearestParams& p, const ResizeAxis& axis, int out_index);

void ResizeNearestRef(const ResizeNearestParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_NEAREST_H_
