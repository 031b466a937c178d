// Strassen's recursion over the packed GEMM: C = act(bias + A W^T) with A
// [m, k] (activations) and W [n, k] (constant weights). Each level splits
// m, n and k in halves (odd sizes are zero-padded) and forms 7 half-size
// products instead of 8; the leaves run on the packed GEMM microkernels.
// Because W is constant, the 7^depth combinations of its blocks are formed
// and packed once at resize, so a run only adds blocks of A and of the
// products. Temporaries live in caller-provided scratch (planned by the
// session); the operation order is fixed, so results are deterministic.
// Strassen trades multiplies for O(n^2) additions and more rounding error
// (it grows by a few ulps per level); it pays only when m, n and k are all
// large (several hundred and more per leaf).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_STRASSEN_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_STRASSEN_H_

#include <cstddef>
#include <vector>

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"

namespace rill::inference::cpu::x86 {

using ::rill::inference::cpu::StrassenWeights;
// w is [n, k] row-major; avx512 selects PackWeightsNK512 (for GemmF32Avx512).
void PrepareStrassenWeights(const float* w, int n, int k, int depth,
                            bool avx512, StrassenWeights* out);

size_t StrassenScratchFloats(int m, int n, int k, int depth);
// C rows [0, m) of one call; callers split large m into row blocks (each with
// its own scratch) to use threads.
void GemmStrassen(int m, const float* a, int lda, const StrassenWeights& w,
                  const float* bias, FusedActivation activation, GemmFn gemm,
                  float* c, int ldc, float* scratch);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_GEMM_STRASSEN_H_
