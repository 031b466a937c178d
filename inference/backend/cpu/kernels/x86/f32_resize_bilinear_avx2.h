// Bilinear resize for x86 AVX2 over NHWC channel vectors; the reference
// kernel's taps (TFLite's and ONNX's conventions) and, for ONNX, its
// arithmetic. Source taps are computed once at resize, not per pixel.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_BILINEAR_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_BILINEAR_AVX2_H_

#include <vector>

#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"

namespace rill::inference::cpu::x86 {

using ResizeTap = BilinearTap;

// Taps for every output row (y) and column (x).
void ComputeResizeTaps(const ResizeParams& p, std::vector<ResizeTap>* y_taps, std::vector<ResizeTap>* x_taps);
void ResizeBilinearAvx2(const ResizeParams& p, const ResizeTap* y_taps, const ResizeTap* x_taps, const float* in,
                        float* out);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_RESIZE_BILINEAR_AVX2_H_
