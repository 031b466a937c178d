// Packed single-precision GEMM for x86 AVX-512F: a 6x32 register tile
// (12 zmm accumulators) over weights packed into 32-column panels. Same
// contract as f32_gemm_6x16_avx2.h; callers check GetCpuFeatures().avx512f.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X32_AVX512_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X32_AVX512_H_

#include <cstddef>
#include <cstdint>

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

constexpr int kGemm512Nr = 32;

size_t PackedWeightsFloats512(int n, int k);
void PackWeightsNK512(const float* w, int n, int k, float* packed);
void GemmF32Avx512(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                   FusedActivation activation, float* c, int ldc);
// The same with a residual (a conv's fused skip connection) added to each
// output before the activation, in the microkernel's registers:
//   c[i][j] = act(sum + bias[j] + (j < res_c ? residual[i * res_ld + j] : 0)).
// Same value, bit for bit, as GemmF32Avx512 without activation followed by
// ResidualAddAvx2, without a second pass over the output.
void GemmF32Avx512Residual(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                           FusedActivation activation, float* c, int ldc, const float* residual, int res_ld,
                           int res_c);
// One row (a FULLY_CONNECTED layer at batch 1): y = act(x W^T + bias) over
// the same packed panels. Bound by reading the weights once: each panel's
// k steps go two at a time into two accumulator pairs (even and odd k,
// summed at the end), which keeps more loads in flight than the GEMM's
// one-row tile (measured 25 -> 32 GB/s from memory, 63 -> 82 GB/s from L3).
void GemvF32Avx512(int n, int k, const float* x, const float* packed_w, const float* bias,
                   FusedActivation activation, float* y);

// Half-precision weights (SessionConfig::precision kFp16): the same panels
// with IEEE binary16 values (FloatToHalf, round to nearest even), half the
// bytes. The GEMMs convert each panel's k chunk to fp32 in L1 before its row
// tiles (exact: the results equal GemmF32Avx512's on the rounded weights, bit
// for bit); the GEMV converts in registers, reading half the bytes.
void PackWeightsNK512Half(const float* w, int n, int k, uint16_t* packed);
void GemmF16wAvx512(int m, int n, int k, const float* a, int lda, const uint16_t* packed_w, const float* bias,
                    FusedActivation activation, float* c, int ldc);
void GemmF16wAvx512Residual(int m, int n, int k, const float* a, int lda, const uint16_t* packed_w,
                            const float* bias, FusedActivation activation, float* c, int ldc, const float* residual,
                            int res_ld, int res_c);
void GemvF16wAvx512(int n, int k, const float* x, const uint16_t* packed_w, const float* bias,
                    FusedActivation activation, float* y);

// bfloat16 (SessionConfig::precision kBf16; CPUs with AVX512-BF16, checked
// by the caller: CpuFeatures::avx512bf16): the weights packed in k pairs
// (panel [k / 2][32 columns][2], k padded to even with zeros), the rows of A
// rounded to bfloat16 (nearest even) as the driver reads them, 48 rows x 256
// k steps at a time into an L1 buffer; vdpbf16ps multiplies two k steps per
// lane and sums them in fp32 (two MACs per lane and instruction: on Zen 4
// twice the fp32 FMA rate). Results are those of the bf16-rounded operands
// up to the fp32 summation order.
using ::rill::inference::cpu::Bf16;
using ::rill::inference::cpu::Bf16PanelDepth;
// Elements of the packed panels (between the panels' first columns `col`
// and 0, col a multiple of 32: col * Bf16PanelDepth(k)).
size_t PackedWeightsBf16(int n, int k);
void PackWeightsNK512Bf16(const float* w, int n, int k, Bf16* packed);
// Float panels of an [n, k] matrix (PackWeightsNK512 layout) to bf16 panels
// (PackWeightsNK512Bf16 layout, PackedWeightsBf16(n, k) elements).
void PanelsToBf16(const float* panels, int n, int k, Bf16* packed);
void GemmBf16Avx512(int m, int n, int k, const float* a, int lda, const Bf16* packed_w, const float* bias,
                    FusedActivation activation, float* c, int ldc);
void GemmBf16Avx512Residual(int m, int n, int k, const float* a, int lda, const Bf16* packed_w, const float* bias,
                            FusedActivation activation, float* c, int ldc, const float* residual, int res_ld,
                            int res_c);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X32_AVX512_H_
