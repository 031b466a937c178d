// Packed single-precision GEMM for x86 AVX2/FMA: a 6x16 register-tile
// microkernel (12 accumulators) over weights packed once into 16-column
// panels. C[m, n] = act(bias[n] + sum_k A[m, k] * W[n, k]); W is [N, K]
// row-major, which is how OHWI conv filters and FC weights are stored.
// Callers must check HasAvx2Fma() first.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X16_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X16_AVX2_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

constexpr int kGemmMr = 6;
constexpr int kGemmNr = 16;

// Floats needed to pack an [n, k] weight matrix (n rounded up to 16).
size_t PackedWeightsFloats(int n, int k);
void PackWeightsNK(const float* w, int n, int k, float* packed);

void GemmF32Avx2(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                 FusedActivation activation, float* c, int ldc);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X16_AVX2_H_
