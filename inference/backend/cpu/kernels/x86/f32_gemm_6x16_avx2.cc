#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"

#include <immintrin.h>

#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu::x86 {

size_t PackedWeightsFloats(int n, int k) {
  const size_t panels = static_cast<size_t>((n + kGemmNr - 1) / kGemmNr);
  return panels * kGemmNr * static_cast<size_t>(k);
}

void PackWeightsNK(const float* w, int n, int k, float* packed) {
  const int panels = (n + kGemmNr - 1) / kGemmNr;
  for (int p = 0; p < panels; ++p) {
    float* dst = packed + static_cast<size_t>(p) * kGemmNr * k;
    for (int kk = 0; kk < k; ++kk) {
      for (int j = 0; j < kGemmNr; ++j) {
        const int col = p * kGemmNr + j;
        dst[kk * kGemmNr + j] = col < n ? w[static_cast<size_t>(col) * k + kk] : 0.0f;
      }
    }
  }
}

namespace {

// Depth of one pass over K: the whole K up to kKcMax (equal chunks past
// it), so each tile stores C once; the panel streams from L2. Passes of 256
// (a 16 KiB block kept in L1) reloaded C per pass and measured 3-4% slower
// over //benchmarks:fc_gemm's shapes (RILL_AVX2=1), as with AVX-512 (7%).
constexpr int kKcMax = 8192;

// One MR x 16 tile over a K block. `nr` (<= 16) columns are stored; the rest
// were padding. The first K block starts from the bias, later ones from C.
template <int MR>
__attribute__((target("avx2,fma"))) void MicroKernel(int k, const float* a, int lda, const float* w,
                                                      const float* bias16, bool accumulate, FusedActivation act,
                                                      float* c, int ldc, int nr) {
  __m256 acc0[MR], acc1[MR];
  if (accumulate) {
    if (nr == kGemmNr) {
#pragma GCC unroll 6
      for (int r = 0; r < MR; ++r) {
        acc0[r] = _mm256_loadu_ps(c + static_cast<size_t>(r) * ldc);
        acc1[r] = _mm256_loadu_ps(c + static_cast<size_t>(r) * ldc + 8);
      }
    } else {
      alignas(32) float tmp[kGemmNr] = {};
      for (int r = 0; r < MR; ++r) {
        for (int j = 0; j < nr; ++j) tmp[j] = c[static_cast<size_t>(r) * ldc + j];
        acc0[r] = _mm256_load_ps(tmp);
        acc1[r] = _mm256_load_ps(tmp + 8);
      }
    }
  } else {
    const __m256 b0 = _mm256_loadu_ps(bias16);
    const __m256 b1 = _mm256_loadu_ps(bias16 + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      acc0[r] = b0;
      acc1[r] = b1;
    }
  }
  const float* arow[MR];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) arow[r] = a + static_cast<size_t>(r) * lda;
  for (int p = 0; p < k; ++p) {
    const __m256 w0 = _mm256_loadu_ps(w + p * kGemmNr);
    const __m256 w1 = _mm256_loadu_ps(w + p * kGemmNr + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256 av = _mm256_broadcast_ss(arow[r] + p);
      acc0[r] = _mm256_fmadd_ps(av, w0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(av, w1, acc1[r]);
    }
  }
  if (act == FusedActivation::kRelu || act == FusedActivation::kRelu6 || act == FusedActivation::kReluN1To1) {
    const __m256 lo = _mm256_set1_ps(act == FusedActivation::kReluN1To1 ? -1.0f : 0.0f);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      acc0[r] = _mm256_max_ps(acc0[r], lo);
      acc1[r] = _mm256_max_ps(acc1[r], lo);
    }
    if (act != FusedActivation::kRelu) {
      const __m256 hi = _mm256_set1_ps(act == FusedActivation::kRelu6 ? 6.0f : 1.0f);
#pragma GCC unroll 6
      for (int r = 0; r < MR; ++r) {
        acc0[r] = _mm256_min_ps(acc0[r], hi);
        acc1[r] = _mm256_min_ps(acc1[r], hi);
      }
    }
  }
  if (nr == kGemmNr) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      _mm256_storeu_ps(c + static_cast<size_t>(r) * ldc, acc0[r]);
      _mm256_storeu_ps(c + static_cast<size_t>(r) * ldc + 8, acc1[r]);
    }
  } else {
    alignas(32) float tmp[kGemmNr];
    for (int r = 0; r < MR; ++r) {
      _mm256_store_ps(tmp, acc0[r]);
      _mm256_store_ps(tmp + 8, acc1[r]);
      for (int j = 0; j < nr; ++j) c[static_cast<size_t>(r) * ldc + j] = tmp[j];
    }
  }
  // tanh on the stored rows, still in L1 (in registers it would inline the
  // function 2 * MR times into every kernel).
  if (act == FusedActivation::kTanh) {
    for (int r = 0; r < MR; ++r) TanhInPlaceAvx2(c + static_cast<size_t>(r) * ldc, nr);
  }
}

using MicroKernelFn = void (*)(int, const float*, int, const float*, const float*, bool, FusedActivation, float*,
                               int, int);
constexpr MicroKernelFn kMicroKernels[kGemmMr + 1] = {nullptr,        MicroKernel<1>, MicroKernel<2>, MicroKernel<3>,
                                                      MicroKernel<4>, MicroKernel<5>, MicroKernel<6>};

}  // namespace

void GemmF32Avx2(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                 FusedActivation activation, float* c, int ldc) {
  const int panels = (n + kGemmNr - 1) / kGemmNr;
  const int chunks = k > kKcMax ? (k + kKcMax - 1) / kKcMax : 1;
  const int kKc = (k + chunks - 1) / chunks;
  for (int k0 = 0; k0 < k || k0 == 0; k0 += kKc) {
    const int kc = k - k0 < kKc ? k - k0 : kKc;
    const bool first = k0 == 0;
    const FusedActivation act = k0 + kc >= k ? activation : FusedActivation::kNone;
    for (int p = 0; p < panels; ++p) {
      const int col = p * kGemmNr;
      const int nr = n - col < kGemmNr ? n - col : kGemmNr;
      float bias16[kGemmNr] = {};
      if (bias && first) {
        for (int j = 0; j < nr; ++j) bias16[j] = bias[col + j];
      }
      const float* w = packed_w + static_cast<size_t>(p) * kGemmNr * k + static_cast<size_t>(k0) * kGemmNr;
      for (int row = 0; row < m; row += kGemmMr) {
        const int mr = m - row < kGemmMr ? m - row : kGemmMr;
        kMicroKernels[mr](kc, a + static_cast<size_t>(row) * lda + k0, lda, w, bias16, !first, act,
                          c + static_cast<size_t>(row) * ldc + col, ldc, nr);
      }
    }
    if (k == 0) break;
  }
}

}  // namespace rill::inference::cpu::x86
