// Reference bilinear resize, NHWC, with TFLite's align_corners and
// half_pixel_centers conventions.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_

namespace rill::inference::cpu {

struct ResizeParams {
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  bool align_corners = false;
  bool half_pixel_centers = false;
  // ONNX Resize's scales: source coordinates divide by them, as ONNX Runtime
  // computes them (floor(in * 1.5) / in is not 1.5). 0: TFLite's rule, the
  // output index times in / out.
  float scale_h = 0.0f, scale_w = 0.0f;
};

// The two source pixels of an output index along one axis and the weight
// of the second. `scale`: the axis's ONNX scale (0: TFLite's rule).
struct BilinearTap {
  int lo, hi;
  float frac;  // weight of `hi`
};
BilinearTap BilinearSourceTap(const ResizeParams& p, int out_index, int in_size, int out_size, float scale);

void ResizeBilinearRef(const ResizeParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_BILINEAR_H_
