// Reference separable resampling, NHWC: every output pixel is a weighted sum
// of the input pixels that a table of taps names along H and along W, summed
// along W first and then along H, in ONNX Runtime 1.30's float arithmetic
// and order. It runs RESIZE_BICUBIC (ONNX Resize mode "cubic": 4 taps a
// side, Keys' kernel with cubic_coeff_a, taps past the edge clamped or, with
// exclude_outside, dropped and the rest renormalized) and ONNX Resize with
// antialias=1 in modes linear and cubic (Pillow's filters stretched by
// max(1, 1 / scale), taps cut at the edges, weights normalized).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_SEPARABLE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_SEPARABLE_H_

#include <cstdint>
#include <vector>

#include "inference/backend/cpu/kernels/ref/resize_coordinate.h"
#include "inference/ir/graph.h"

namespace rill::inference::cpu {

enum class ResizeFilter { kCubic, kAntialiasLinear, kAntialiasCubic };

struct ResizeSeparableParams {
  int batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  ResizeFilter filter = ResizeFilter::kCubic;
  ir::ResizeCoordinate coordinate = ir::ResizeCoordinate::kHalfPixel;  // an ONNX mode
  float scale_h = 0.0f, scale_w = 0.0f;                                // the model's; 0: out / in
  float roi_start_h = 0.0f, roi_start_w = 0.0f, roi_end_h = 1.0f, roi_end_w = 1.0f;  // kTfCropAndResize
  float extrapolation_value = 0.0f;                                                  // kTfCropAndResize
  float cubic_coeff_a = -0.75f;
  bool exclude_outside = false;
};

// The taps of every output index along one axis.
struct ResizeTaps {
  int taps = 0;                 // per output index (unused ones have weight 0)
  std::vector<int> index;       // out x taps: input indices, inside the input
  std::vector<float> weight;    // out x taps
  // out: a sum along this axis is divided by it after the weights (ONNX
  // Runtime's exclude_outside renormalization of the H taps); 1 elsewhere.
  std::vector<float> divisor;
  std::vector<uint8_t> outside;  // out: 1 where the output is extrapolation_value (tf_crop_and_resize)
};

// The taps along H (`rows`; their renormalization left to `divisor`) or W
// (weights already renormalized, divisor 1).
void ComputeResizeSeparableTaps(const ResizeSeparableParams& p, bool rows, ResizeTaps* taps);

void ResizeSeparableRef(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                        const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIZE_SEPARABLE_H_
