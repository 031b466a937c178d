// Reference bilinear resize, NHWC: TFLite's RESIZE_BILINEAR (align_corners,
// half_pixel_centers) and ONNX Resize's mode "linear" with every
// coordinate_transformation_mode, its source taps and weights computed as
// ONNX Runtime 1.30 computes them (antialias=1 runs the separable kernel,
// resize_separable.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_

#include "inference/backend/cpu/kernels/ref/resize_coordinate.h"
#include "inference/ir/graph.h"

namespace rill::inference::cpu {

struct ResizeParams {
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  ir::ResizeCoordinate coordinate = ir::ResizeCoordinate::kTflite;
  bool align_corners = false;       // kTflite
  bool half_pixel_centers = false;  // kTflite
  // ONNX modes: the model's scales (coordinates divide by them, as ONNX
  // Runtime computes them: floor(in * 1.5) / in is not 1.5); 0: out / in.
  float scale_h = 0.0f, scale_w = 0.0f;
  float roi_start_h = 0.0f, roi_start_w = 0.0f, roi_end_h = 1.0f, roi_end_w = 1.0f;  // kTfCropAndResize
  float extrapolation_value = 0.0f;                                                  // kTfCropAndResize
};

// The two source pixels of an output index along one axis and their weights.
struct BilinearTap {
  int lo, hi;
  float w_lo, w_hi;
  bool outside;  // tf_crop_and_resize: the source is outside the input, the output extrapolation_value
};
BilinearTap BilinearSourceTap(const ResizeParams& p, const ResizeAxis& axis, int out_index);

void ResizeBilinearRef(const ResizeParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_
