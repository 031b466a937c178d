// Packed single-precision GEMM for x86 AVX-512F: a 6x32 register tile
// (12 zmm accumulators) over weights packed into 32-column panels. Same
// contract as f32_gemm_6x16_avx2.h; callers check GetCpuFeatures().avx512f.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X32_AVX512_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X32_AVX512_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

constexpr int kGemm512Nr = 32;

size_t PackedWeightsFloats512(int n, int k);
void PackWeightsNK512(const float* w, int n, int k, float* packed);
void GemmF32Avx512(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                   FusedActivation activation, float* c, int ldc);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_6X32_AVX512_H_
