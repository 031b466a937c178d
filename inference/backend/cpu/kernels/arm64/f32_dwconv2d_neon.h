// Depthwise 2-D convolution for AArch64, depth multiplier 1 (NHWC: four
// channels of one output pixel are one vector). 3x3 windows run the
// assembly row kernel (f32_dwconv3x3_rows_neon.S) over each output row's
// interior pixels; the border pixels, channel tails and every other window
// run a per-pixel NEON intrinsics path.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_DWCONV2D_NEON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_DWCONV2D_NEON_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::arm64 {

// Output rows [row_begin, row_end) of the batch * out_h rows (for threads).
void DepthwiseConv2DNeonRows(const ConvParams& p, const float* input, const float* filter, const float* bias,
                             float* output, int row_begin, int row_end);
// The same without the assembly row kernel: every pixel on the intrinsics
// path (what the tests compare the assembly against, beside the reference).
void DepthwiseConv2DNeonPixelRows(const ConvParams& p, const float* input, const float* filter, const float* bias,
                                  float* output, int row_begin, int row_end);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_DWCONV2D_NEON_H_
