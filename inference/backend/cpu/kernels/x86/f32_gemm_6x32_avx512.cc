#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"

#include <immintrin.h>

// GCC 12's avx512fintrin.h builds min/max on _mm512_undefined_ps(), which
// -Wmaybe-uninitialized flags inside inlined intrinsics (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {

namespace {
constexpr int kMr = 6;
constexpr int kNr = kGemm512Nr;
constexpr int kKc = 256;
}  // namespace

size_t PackedWeightsFloats512(int n, int k) {
  return static_cast<size_t>((n + kNr - 1) / kNr) * kNr * static_cast<size_t>(k);
}

void PackWeightsNK512(const float* w, int n, int k, float* packed) {
  const int panels = (n + kNr - 1) / kNr;
  for (int p = 0; p < panels; ++p) {
    float* dst = packed + static_cast<size_t>(p) * kNr * k;
    for (int kk = 0; kk < k; ++kk) {
      for (int j = 0; j < kNr; ++j) {
        const int col = p * kNr + j;
        dst[kk * kNr + j] = col < n ? w[static_cast<size_t>(col) * k + kk] : 0.0f;
      }
    }
  }
}

namespace {

template <int MR>
__attribute__((target("avx512f"))) void MicroKernel512(int k, const float* a, int lda, const float* w,
                                                        const float* bias32, bool accumulate, FusedActivation act,
                                                        float* c, int ldc, int nr) {
  // Columns [0, 16) and [16, 32) each get a store mask for the last panel.
  const __mmask16 m0 = nr >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << nr) - 1);
  const __mmask16 m1 = nr >= 32 ? static_cast<__mmask16>(0xFFFF)
                                : nr > 16 ? static_cast<__mmask16>((1u << (nr - 16)) - 1) : static_cast<__mmask16>(0);
  __m512 acc0[MR], acc1[MR];
  if (accumulate) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      acc0[r] = _mm512_maskz_loadu_ps(m0, c + static_cast<size_t>(r) * ldc);
      acc1[r] = _mm512_maskz_loadu_ps(m1, c + static_cast<size_t>(r) * ldc + 16);
    }
  } else {
    const __m512 b0 = _mm512_loadu_ps(bias32);
    const __m512 b1 = _mm512_loadu_ps(bias32 + 16);
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
    const __m512 w0 = _mm512_loadu_ps(w + p * kNr);
    const __m512 w1 = _mm512_loadu_ps(w + p * kNr + 16);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(arow[r][p]);
      acc0[r] = _mm512_fmadd_ps(av, w0, acc0[r]);
      acc1[r] = _mm512_fmadd_ps(av, w1, acc1[r]);
    }
  }
  if (act == FusedActivation::kRelu || act == FusedActivation::kRelu6 || act == FusedActivation::kReluN1To1) {
    const __m512 lo = _mm512_set1_ps(act == FusedActivation::kReluN1To1 ? -1.0f : 0.0f);
    const __m512 hi = _mm512_set1_ps(act == FusedActivation::kRelu ? 3.402823466e38f
                                     : act == FusedActivation::kRelu6 ? 6.0f : 1.0f);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      acc0[r] = _mm512_min_ps(_mm512_max_ps(acc0[r], lo), hi);
      acc1[r] = _mm512_min_ps(_mm512_max_ps(acc1[r], lo), hi);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    _mm512_mask_storeu_ps(c + static_cast<size_t>(r) * ldc, m0, acc0[r]);
    _mm512_mask_storeu_ps(c + static_cast<size_t>(r) * ldc + 16, m1, acc1[r]);
  }
  if (act == FusedActivation::kTanh) {
    for (int r = 0; r < MR; ++r) {
      for (int j = 0; j < nr; ++j) {
        float& v = c[static_cast<size_t>(r) * ldc + j];
        v = ApplyActivation(v, act);
      }
    }
  }
}

using MicroKernelFn = void (*)(int, const float*, int, const float*, const float*, bool, FusedActivation, float*,
                               int, int);
constexpr MicroKernelFn kKernels[kMr + 1] = {nullptr,           MicroKernel512<1>, MicroKernel512<2>,
                                             MicroKernel512<3>, MicroKernel512<4>, MicroKernel512<5>,
                                             MicroKernel512<6>};

}  // namespace

void GemmF32Avx512(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                   FusedActivation activation, float* c, int ldc) {
  const int panels = (n + kNr - 1) / kNr;
  for (int k0 = 0; k0 < k || k0 == 0; k0 += kKc) {
    const int kc = k - k0 < kKc ? k - k0 : kKc;
    const bool first = k0 == 0;
    const FusedActivation act = k0 + kc >= k ? activation : FusedActivation::kNone;
    for (int p = 0; p < panels; ++p) {
      const int col = p * kNr;
      const int nr = n - col < kNr ? n - col : kNr;
      float bias32[kNr] = {};
      if (bias && first) {
        for (int j = 0; j < nr; ++j) bias32[j] = bias[col + j];
      }
      const float* w = packed_w + static_cast<size_t>(p) * kNr * k + static_cast<size_t>(k0) * kNr;
      for (int row = 0; row < m; row += kMr) {
        const int mr = m - row < kMr ? m - row : kMr;
        kKernels[mr](kc, a + static_cast<size_t>(row) * lda + k0, lda, w, bias32, !first, act,
                     c + static_cast<size_t>(row) * ldc + col, ldc, nr);
      }
    }
    if (k == 0) break;
  }
}

}  // namespace rill::inference::cpu::x86
