// Reference bilinear resize, NHWC, with TFLite's align_corners and
// half_pixel_centers conventions.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_

namespace rill::inference::cpu {

struct ResizeParams {
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  bool align_corners = false;
  bool half_pixel_centers = false;
};

void ResizeBilinearRef(const ResizeParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_
