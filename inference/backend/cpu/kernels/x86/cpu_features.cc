#include "inference/backend/cpu/kernels/x86/cpu_features.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace rill::inference::cpu::x86 {

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    // GCC's checks also require the OS to save the wide registers (XGETBV).
    f.avx2 = __builtin_cpu_supports("avx2");
    f.fma = __builtin_cpu_supports("fma");
    f.avx512f = __builtin_cpu_supports("avx512f");
    f.avx512bf16 = f.avx512f && __builtin_cpu_supports("avx512bf16");
#endif
    return f;
  }();
  return features;
}

#if defined(__x86_64__) || defined(__i386__)
namespace {

constexpr int kChains = 12;
constexpr long kIters = 4000;  // 48k instructions per chain set: ~30-100 us

// Seconds for kIters rounds of kChains dependent chains; the results feed a
// volatile sink so the loop is kept.
__attribute__((target("avx512f"))) double FmaSeconds() {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 b = _mm512_set1_ps(0.99999f), c = _mm512_set1_ps(1e-6f);
  const auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < kIters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], b, c);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  volatile float sink = 0;
  for (int i = 0; i < kChains; ++i) sink = sink + _mm512_cvtss_f32(acc[i]);
  return s;
}

__attribute__((target("avx512f,avx512bf16"))) double DpBf16Seconds() {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.001f), _mm512_set1_ps(0.002f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.003f), _mm512_set1_ps(0.001f));
  const auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < kIters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  volatile float sink = 0;
  for (int i = 0; i < kChains; ++i) sink = sink + _mm512_cvtss_f32(acc[i]);
  return s;
}

}  // namespace
#endif

bool Bf16GemmPays() {
  static const bool pays = [] {
    if (!GetCpuFeatures().avx512bf16) return false;
    if (const char* env = std::getenv("RILL_BF16")) {
      if (std::strcmp(env, "0") == 0) return false;
      if (std::strcmp(env, "1") == 0) return true;
    }
#if defined(__x86_64__) || defined(__i386__)
    double fma = 1e30, dp = 1e30;
    for (int round = 0; round < 5; ++round) {
      const double f = FmaSeconds(), d = DpBf16Seconds();
      fma = f < fma ? f : fma;
      dp = d < dp ? d : dp;
    }
    // Same instruction count: vdpbf16ps does twice the multiplies.
    return 2.0 * fma / dp >= 1.3;
#else
    return false;
#endif
  }();
  return pays;
}

}  // namespace rill::inference::cpu::x86
