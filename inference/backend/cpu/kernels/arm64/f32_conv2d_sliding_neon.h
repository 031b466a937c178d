// Direct (sliding-window) 2-D convolution for AArch64 NEON intrinsics: four
// output channels per vector, two vectors per pass, filters packed once as
// [out_c / 4][kh][kw][in_c][4]. Honours in_stride and out_stride (one
// channel group of wider tensors).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV2D_SLIDING_NEON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV2D_SLIDING_NEON_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::arm64 {

size_t SlidingPackedFloats(const ConvParams& p);
void PackSlidingWeights(const ConvParams& p, const float* filter, float* packed);
void Conv2DSlidingNeonRows(const ConvParams& p, const float* input, const float* packed, const float* bias,
                           float* output, int row_begin, int row_end);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_CONV2D_SLIDING_NEON_H_
