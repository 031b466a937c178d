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
// The element type of packed GEMM panels: fp32 (AVX2 6x16 or AVX-512 6x32),
// IEEE halves (Precision::kFp16 on AVX-512) or bf16 k pairs (Precision::kBf16
// on AVX512-BF16).
enum class PanelType { kF32, kF16, kBf16 };
// kF16 for `f16` (Precision::kFp16) with AVX-512, kBf16 for `bf16`
// (Precision::kBf16) where bf16 GEMMs pay (Bf16GemmPays: AVX512-BF16 at the
// FMA's instruction rate), kF32 otherwise.
PanelType ChoosePanelType(bool f16, bool bf16, bool avx512);
// The suffix of kernel names ("", "_f16w", "_bf16") and of tuning-cache keys
// ("", ":f16w", ":bf16") for panels of `t`.
const char* PanelNameSuffix(PanelType t);
const char* PanelKeySuffix(PanelType t);
// An [n, k] weight matrix packed for one GEMM in panels of one PanelType. The
// calls take `col`, the first of the columns to multiply (a multiple of the
// panel width), and pick the kernel the panels were packed for.
struct GemmPanels {
  std::vector<float> f32;
  std::vector<uint16_t> f16;
  std::vector<Bf16> bf16;
  bool avx512 = false;
  PanelType type = PanelType::kF32;

  // kF16 and kBf16 need `wide` (AVX-512; kBf16 AVX512-BF16 too).
  void Pack(const float* w, int n, int k, bool wide, PanelType t);
  bool half() const { return type == PanelType::kF16; }
  size_t bytes() const {
    return f32.size() * sizeof(float) + f16.size() * sizeof(uint16_t) + bf16.size() * sizeof(Bf16);
  }
  // c = act(a W[col, col + n)^T + bias) over m rows.
  void Gemm(int m, int n, int k, const float* a, int lda, int col, const float* bias, FusedActivation act, float* c,
            int ldc) const;
  // The same with a residual in the epilogue (GemmF32Avx512Residual; AVX-512).
  void GemmResidual(int m, int n, int k, const float* a, int lda, int col, const float* bias, FusedActivation act,
                    float* c, int ldc, const float* residual, int res_ld, int res_c) const;
  // One row (GemvF32Avx512; AVX-512; bf16 panels: the GEMM's one-row tile).
  void Gemv(int n, int k, const float* x, int col, const float* bias, FusedActivation act, float* y) const;
};

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
