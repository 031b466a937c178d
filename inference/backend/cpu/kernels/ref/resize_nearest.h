// Reference nearest-neighbour resize, NHWC: TFLite's RESIZE_NEAREST_NEIGHBOR
// (align_corners, half_pixel_centers) and ONNX Resize's mode "nearest" with
// every coordinate_transformation_mode but tf_crop_and_resize and every
// nearest_mode, computed as TFLite's and ONNX Runtime's kernels compute them
// (float arithmetic, same order), so ties land on the same pixel.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_NEAREST_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_NEAREST_H_

#include "inference/ir/graph.h"

namespace rill::inference::cpu {

struct ResizeNearestParams {
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  ir::NearestCoordinate coordinate = ir::NearestCoordinate::kTflite;
  ir::NearestRounding rounding = ir::NearestRounding::kRoundPreferFloor;
  bool align_corners = false, half_pixel_centers = false;  // kTflite
  float scale_h = 0.0f, scale_w = 0.0f;                     // ONNX modes; 0: out / in
};

// The input index (in [0, in_size)) that output index `out_index` copies.
// `scale` is the ONNX scale of that axis (0: out_size / in_size).
int NearestSourceIndex(const ResizeNearestParams& p, int out_index, int in_size, int out_size, float scale);

void ResizeNearestRef(const ResizeNearestParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_NEAREST_H_
