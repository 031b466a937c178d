#include "inference/backend/cpu/kernels/x86/f32_prelu.h"

#include <immintrin.h>

#include "inference/backend/cpu/kernels/x86/f32_simd.h"

namespace rill::inference::cpu::x86 {
namespace {

// A slope period shorter than this is repeated into a stack buffer of about
// this many floats, so that narrow channel counts (3, 4, 12) still run whole
// vectors instead of a scalar tail every period.
constexpr long long kRepeat = 256;

// Runs `run(n, x, slope, period, out)` over periods of the slope, a short
// period first widened to a multiple of itself near kRepeat.
template <class Run>
inline void ByPeriods(long long n, const float* x, const float* slope, long long period, float* out, Run run) {
  if (period >= n) {
    run(n, x, slope, out);
    return;
  }
  float repeated[kRepeat];
  if (period < kRepeat / 2) {
    const long long copies = kRepeat / period;
    for (long long c = 0; c < copies; ++c) {
      for (long long j = 0; j < period; ++j) repeated[c * period + j] = slope[j];
    }
    period *= copies;
    slope = repeated;
  }
  for (long long base = 0; base < n; base += period) {
    run(n - base < period ? n - base : period, x + base, slope, out + base);
  }
}

__attribute__((target("avx2,fma"))) void RunAvx2(long long n, const float* x, const float* slope, float* out) {
  const __m256 zero = _mm256_setzero_ps();
  long long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
    const __m256 s0 = _mm256_mul_ps(v0, _mm256_loadu_ps(slope + i));
    const __m256 s1 = _mm256_mul_ps(v1, _mm256_loadu_ps(slope + i + 8));
    // Lanes with x >= 0 (ordered: a NaN takes the product, as the reference).
    _mm256_storeu_ps(out + i, _mm256_blendv_ps(s0, v0, _mm256_cmp_ps(v0, zero, _CMP_GE_OQ)));
    _mm256_storeu_ps(out + i + 8, _mm256_blendv_ps(s1, v1, _mm256_cmp_ps(v1, zero, _CMP_GE_OQ)));
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 s = _mm256_mul_ps(v, _mm256_loadu_ps(slope + i));
    _mm256_storeu_ps(out + i, _mm256_blendv_ps(s, v, _mm256_cmp_ps(v, zero, _CMP_GE_OQ)));
  }
  for (; i < n; ++i) out[i] = x[i] >= 0.0f ? x[i] : x[i] * slope[i];
}

__attribute__((target("avx512f"))) void RunAvx512(long long n, const float* x, const float* slope, float* out) {
  const __m512 zero = _mm512_setzero_ps();
  long long i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
    // The product only where x < 0 or NaN (not x >= 0, unordered true).
    const __mmask16 m0 = _mm512_cmp_ps_mask(v0, zero, _CMP_NGE_UQ);
    const __mmask16 m1 = _mm512_cmp_ps_mask(v1, zero, _CMP_NGE_UQ);
    _mm512_storeu_ps(out + i, _mm512_mask_mul_ps(v0, m0, v0, _mm512_loadu_ps(slope + i)));
    _mm512_storeu_ps(out + i + 16, _mm512_mask_mul_ps(v1, m1, v1, _mm512_loadu_ps(slope + i + 16)));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = simd::LaneMask(static_cast<int>(n - i));
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __mmask16 neg = _mm512_cmp_ps_mask(v, zero, _CMP_NGE_UQ);
    _mm512_mask_storeu_ps(out + i, m, _mm512_mask_mul_ps(v, neg, v, _mm512_maskz_loadu_ps(m, slope + i)));
  }
}

}  // namespace

void PReluAvx2(long long n, const float* x, const float* slope, long long slope_period, float* out) {
  ByPeriods(n, x, slope, slope_period, out, RunAvx2);
}

void PReluAvx512(long long n, const float* x, const float* slope, long long slope_period, float* out) {
  ByPeriods(n, x, slope, slope_period, out, RunAvx512);
}

}  // namespace rill::inference::cpu::x86
