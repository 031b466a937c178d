// Packed GEMMs for AArch64: C[m, n] = act(bias[n] + sum_k A[m, k] * W[n, k])
// on 8x12 register tiles (f32_gemm_8x12_neon.S; the ARMv8.2 fp16-arithmetic
// twin f16_gemm_8x12_neonfp16.S). W [n, k] (OHWI filters, FC weights) is
// packed once into 12-column panels, k-major; each call packs 8-row panels
// of A into a per-thread buffer and runs the assembly tile over every
// column panel, bias and activation fused in its epilogue. Tiles cut by m or
// n go through an 8x12 buffer.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_GEMM_8X12_NEON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_GEMM_8X12_NEON_H_

#include <cstddef>
#include <cstdint>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::arm64 {

constexpr int kGemmMr = 8;
constexpr int kGemmNr = 12;
// fp16 arithmetic: the k steps one half-precision sum runs before it is
// added to the fp32 result (bounds the rounding error's growth in k).
constexpr int kF16ChunkK = 128;

// Floats (or halves) of an [n, k] matrix packed into 12-column panels: n
// rounded up to 12, times k. Column j's panel starts at (j / 12) * 12 * k.
size_t PackedWeightsFloats12(int n, int k);
void PackWeightsNK12(const float* w, int n, int k, float* packed);
// The same panels in IEEE half precision (round to nearest even).
void PackWeightsNK12Half(const float* w, int n, int k, uint16_t* packed);

// fp32 GEMM over PackWeightsNK12 panels (`packed` at the panel of column 0).
void GemmF32Neon(int m, int n, int k, const float* a, int lda, const float* packed, const float* bias,
                 FusedActivation act, float* c, int ldc);
// The GEMM on half-precision arithmetic (A rounded to halves as packed,
// PackWeightsNK12Half panels, sums in halves per kF16ChunkK steps, then
// fp32). Only where HasFp16Arith().
void GemmF16Neon(int m, int n, int k, const float* a, int lda, const uint16_t* packed, const float* bias,
                 FusedActivation act, float* c, int ldc);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_GEMM_8X12_NEON_H_
