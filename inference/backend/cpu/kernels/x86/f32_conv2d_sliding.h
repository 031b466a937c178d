// Direct (sliding-window) 2-D convolution for NHWC, vectorized over output
// channels: for each output pixel, every tap (ky, kx, ic) broadcasts one input
// value against a vector of output channels. No im2col copy and no K-loop
// overhead per GEMM tile, so it wins where GEMM is poor: few input channels
// (the first layer of a network: Cin = 3, 3x3/5x5, stride 2), small and
// strided convs. Register tile: R output pixels x NB vectors of output
// channels (R * NB = 12 accumulators). Filters are packed once at resize into
// blocks of `lanes` output channels: [block][kh][kw][in_c][lanes].
// Any stride, dilation and padding.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_SLIDING_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_SLIDING_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

// lanes: 16 for the AVX-512 kernel, 8 for AVX2.
size_t SlidingPackedFloats(const ConvParams& p, int lanes);
void PackSlidingWeights(const ConvParams& p, const float* filter_ohwi,
                        int lanes, float* packed);

// Output rows [row_begin, row_end) of batch * out_h rows. Rows are
// independent: any split over threads gives identical results.
void Conv2DSlidingRows(const ConvParams& p, const float* input,
                       const float* packed, const float* bias, bool avx512,
                       float* output, int row_begin, int row_end);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_SLIDING_H_
