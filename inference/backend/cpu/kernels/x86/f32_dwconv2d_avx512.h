// Depthwise 2-D convolution for x86 with AVX-512, large windows (5x5, 7x7),
// stride 1 or 2, dilation 1, depth multiplier 1, NHWC. The 49 taps of a 7x7
// window do not fit the 32 zmm registers next to the accumulators, so the
// kernel walks the window one filter row at a time: that row's K taps in
// registers, P output pixels along W (P = 16 at stride 1, 8 at stride 2; one
// accumulator each, 16 channels per zmm), every input column of the row
// loaded once for all the taps that read it: per filter row of a 16-pixel
// block, K + 15 + K loads for 16 K FMAs. Borders (padding) run the same blocks with the missing rows and
// columns skipped; channel tails use masked loads and stores.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DWCONV2D_AVX512_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DWCONV2D_AVX512_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

// Whether DepthwiseConv2DRowTapsAvx512 takes `p` (5x5 or 7x7 window, stride
// 1 or 2 in both directions, dilation 1, depth multiplier 1); says nothing of the
// CPU.
bool DepthwiseConv2DRowTapsTakes(const ConvParams& p);

// Output rows [oy_begin, oy_end) of one image (in_n, out_n: that image's
// tensors), bias + clamp-type activation fused (kTanh: the caller's, as
// kNone here). Needs AVX-512F.
void DepthwiseConv2DRowTapsAvx512(const ConvParams& p, const float* in_n, const float* filter, const float* bias,
                                  float* out_n, int oy_begin, int oy_end);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DWCONV2D_AVX512_H_
