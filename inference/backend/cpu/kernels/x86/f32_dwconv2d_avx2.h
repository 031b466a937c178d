// Depthwise 2-D convolution for x86, depth multiplier 1: NHWC keeps channels
// contiguous, so 8 (16) channels of one output pixel are one vector. With
// AVX-512, 3x3 windows at stride 1 or 2 run a row kernel (several pixels
// and two rows per step, taps in registers), 5x5 and 7x7 ones at stride 1 or
// 2 the row-taps kernel of f32_dwconv2d_avx512.h; everything else runs the
// AVX2 per-pixel path.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DWCONV2D_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DWCONV2D_AVX2_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

void DepthwiseConv2DAvx2(const ConvParams& p, const float* input, const float* filter, const float* bias,
                         float* output);
// Output rows [row_begin, row_end) of the batch*out_h rows (for threads).
void DepthwiseConv2DAvx2Rows(const ConvParams& p, const float* input, const float* filter, const float* bias,
                             float* output, int row_begin, int row_end);
// Whether the rows above run on an AVX-512 row kernel (3x3/5x5/7x7, stride
// 1/2, dilation 1) on this CPU.
bool DepthwiseConv2DHasAvx512Rows(const ConvParams& p);
// The ISA name of the code that runs `p` on this CPU, for kernel names:
// "avx512_rowtaps" for the 5x5/7x7 row-taps kernel, else "avx2" (the 3x3
// AVX-512 row kernel keeps its historic name).
const char* DepthwiseConv2DIsa(const ConvParams& p);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DWCONV2D_AVX2_H_
