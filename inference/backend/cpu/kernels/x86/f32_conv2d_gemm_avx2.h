// 2-D convolution as GEMM for x86 AVX2/FMA: output pixels are GEMM rows,
// output channels GEMM columns. A 1x1/stride-1/unpadded conv reads its input
// directly; any other conv gathers tiles of rows (im2col) into scratch first.
// Filters (OHWI) are packed once (PackConvGemmWeights). A grouped conv is one
// GEMM per channel group, over the group's slice of input and output channels.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_GEMM_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_GEMM_AVX2_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"

namespace rill::inference::cpu::x86 {

// The packed GEMM the conv runs on (GemmF32Avx2 or GemmF32Avx512, with
// weights packed by the matching PackWeightsNK*).
using ::rill::inference::cpu::GemmFn;

// Packs an [n, k] weight matrix for GemmF32Avx512 (`avx512`) or GemmF32Avx2.
void PackGemmWeights(const float* w, int n, int k, bool avx512, std::vector<float>* packed);

// A conv's weights (OHWI, [out_c][kh][kw][in_c / groups]) packed for the
// tiles below: one packed [out_c / groups, kh * kw * in_c / groups] matrix per
// channel group, ConvGemmGroupStride floats apart.
void PackConvGemmWeights(const ConvParams& p, const float* filter, bool avx512, std::vector<float>* packed);
// (`bf16`: elements of PackConvGemmWeightsBf16's panels, k padded to even.)
size_t ConvGemmGroupStride(const ConvParams& p, bool bf16 = false);
// The same as half-precision panels for the AVX-512 GEMM (kFp16 weights;
// PackWeightsNK512Half), same strides in elements.
void PackGemmWeightsHalf(const float* w, int n, int k, std::vector<uint16_t>* packed);
void PackConvGemmWeightsHalf(const ConvParams& p, const float* filter, std::vector<uint16_t>* packed);
// Float panels of the AVX-512 GEMM (PackWeightsNK512 layout) to half panels,
// element by element; `packed` is freed.
void ToHalfPanels(std::vector<float>* packed, std::vector<uint16_t>* half);

bool ConvIsPointwise(const ConvParams& p);
// Scratch floats one tile needs (0 for pointwise convs).
size_t Conv2DGemmScratchFloats(const ConvParams& p);
// The work splits into independent tiles of output rows x output channels
// (for threads; each concurrent tile needs its own scratch), at least 8 where
// the layer is big enough. Every output is computed the same way whatever
// the tiling, so results do not depend on the number of threads.
int Conv2DGemmTiles(const ConvParams& p);
// The output window tile `tile` writes: GEMM rows (output pixels)
// [row_begin, row_end) and output channels [col_begin, col_end).
void Conv2DGemmTileWindow(const ConvParams& p, int tile, long long* row_begin, long long* row_end, int* col_begin,
                          int* col_end);
// `residual` (AVX-512 panels only; null: none): the conv's fused skip
// connection, [pixels, res_c], added in the GEMM's epilogue before the
// activation (GemmF32Avx512Residual).
void Conv2DGemmAvx2Tile(const ConvParams& p, const float* input, const float* packed_filter, const float* bias,
                        float* scratch, float* output, int tile, GemmFn gemm = nullptr,
                        const float* residual = nullptr, int res_c = 0);
// Conv2DGemmAvx2Tile over half-precision panels (PackConvGemmWeightsHalf) on
// the AVX-512 GEMM: the results equal the float panels' on the rounded
// weights, bit for bit.
void Conv2DGemmAvx512HalfTile(const ConvParams& p, const float* input, const uint16_t* packed_filter,
                              const float* bias, float* scratch, float* output, int tile,
                              const float* residual = nullptr, int res_c = 0);
// The same over bf16 panels (PackConvGemmWeightsBf16; AVX512-BF16): the
// input rounded to bf16 as the GEMM reads it.
void PackConvGemmWeightsBf16(const ConvParams& p, const float* filter, std::vector<Bf16>* packed);
void Conv2DGemmAvx512Bf16Tile(const ConvParams& p, const float* input, const Bf16* packed_filter, const float* bias,
                              float* scratch, float* output, int tile, const float* residual = nullptr,
                              int res_c = 0);
// All tiles in turn.
void Conv2DGemmAvx2(const ConvParams& p, const float* input, const float* packed_filter, const float* bias,
                    float* scratch, float* output);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_CONV2D_GEMM_AVX2_H_
