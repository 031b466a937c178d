// Direct grouped convolution for NHWC with AVX-512, for groups narrower than
// a vector (ResNeXt's and RegNet's 4- or 8-channel groups, where a GEMM per
// group fills a quarter or half of a 16-column tile and gathers a few floats
// per im2col copy). A vector holds 16 output channels: 16 / ocg whole groups,
// whose input channels (16 / ocg * icg <= 16 of them) are one vector load per
// input pixel. For input channel j of every group, a permute spreads each
// group's j-th input over that group's lanes, and one FMA with the packed
// weights [block][tap][j][16] accumulates: per tap, icg permutes and FMAs
// for 16 outputs of a pixel. Register tile: 8 pixels x 16 channels.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_GROUPED_AVX512_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_GROUPED_AVX512_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

// Whether the kernel computes this conv: groups > 1 whose output channels
// divide 16 and whose input channels fit the vector with them.
bool GroupedDirectApplies(const ConvParams& p);

size_t GroupedDirectPackedFloats(const ConvParams& p);
void PackGroupedDirectWeights(const ConvParams& p, const float* filter_ohwi, float* packed);

// Output rows [row_begin, row_end) of batch * out_h rows (independent: any
// split over threads gives the same results). Honours p.out_stride.
void Conv2DGroupedDirectRows(const ConvParams& p, const float* input, const float* packed, const float* bias,
                             float* output, int row_begin, int row_end);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_GROUPED_AVX512_H_
