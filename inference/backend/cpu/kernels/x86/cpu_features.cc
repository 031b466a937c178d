#include "inference/backend/cpu/kernels/x86/cpu_features.h"

#include <algorithm>
#include <ctime>
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

double ThreadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// `rounds` rounds of 12 independent chains of OP (enough to hide the latency
// on every x86 core), in GMAC/s with MACS multiply-accumulates per
// instruction; the chains feed a volatile sink so the loop is kept. Timed
// by the thread's CPU time: on a busy machine wall time would count the
// time the thread waited for a core (a peak measured low by a third at a
// load average of 7 on 2 cores).
#define RILL_CHAINS(V, INIT, OP, MACS)                                                          \
  V acc[12];                                                                                    \
  for (int i = 0; i < 12; ++i) acc[i] = INIT(0.001f * i);                                        \
  const double t0 = ThreadSeconds();                                                             \
  for (long n = 0; n < rounds; ++n) {                                                           \
    _Pragma("GCC unroll 12") for (int i = 0; i < 12; ++i) acc[i] = OP(acc[i]);                  \
  }                                                                                             \
  const double s = std::max(ThreadSeconds() - t0, 1e-9);                                         \
  float lane0[sizeof(V) / sizeof(float)];                                                       \
  volatile float sink = 0;                                                                      \
  for (int i = 0; i < 12; ++i) {                                                                \
    std::memcpy(lane0, &acc[i], sizeof(lane0));                                                 \
    sink = sink + lane0[0];                                                                     \
  }                                                                                             \
  return static_cast<double>(rounds) * 12 * (MACS) / s / 1e9;

__attribute__((target("avx512f"))) double Fma512Gmacs(long rounds) {
  const __m512 b = _mm512_set1_ps(0.99999f), c = _mm512_set1_ps(1e-6f);
  auto op = [&](__m512 x) __attribute__((target("avx512f"))) { return _mm512_fmadd_ps(x, b, c); };
  RILL_CHAINS(__m512, _mm512_set1_ps, op, 16)
}

__attribute__((target("avx2,fma"))) double Fma256Gmacs(long rounds) {
  const __m256 b = _mm256_set1_ps(0.99999f), c = _mm256_set1_ps(1e-6f);
  auto op = [&](__m256 x) __attribute__((target("avx2,fma"))) { return _mm256_fmadd_ps(x, b, c); };
  RILL_CHAINS(__m256, _mm256_set1_ps, op, 8)
}

// vdpbf16ps: two multiplies per lane, 32 per instruction.
__attribute__((target("avx512f,avx512bf16"))) double DpBf16Gmacs(long rounds) {
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.001f), _mm512_set1_ps(0.002f));
  const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.003f), _mm512_set1_ps(0.001f));
  auto op = [&](__m512 x) __attribute__((target("avx512f,avx512bf16"))) { return _mm512_dpbf16_ps(x, a, b); };
  RILL_CHAINS(__m512, _mm512_set1_ps, op, 32)
}
#undef RILL_CHAINS

}  // namespace
#endif

double FmaChainGmacs(long rounds) {
#if defined(__x86_64__) || defined(__i386__)
  if (GetCpuFeatures().avx512f) return Fma512Gmacs(rounds);
  if (HasAvx2Fma()) return Fma256Gmacs(rounds);
#endif
  (void)rounds;
  return -1;
}

bool Bf16GemmPays() {
  static const bool pays = [] {
    if (!GetCpuFeatures().avx512bf16) return false;
    if (const char* env = std::getenv("RILL_BF16")) {
      if (std::strcmp(env, "0") == 0) return false;
      if (std::strcmp(env, "1") == 0) return true;
    }
#if defined(__x86_64__) || defined(__i386__)
    constexpr long kRounds = 4000;  // 48k instructions per measurement: ~30-100 us
    double fma = 0, dp = 0;
    for (int round = 0; round < 5; ++round) {  // interleaved, best of 5
      fma = std::max(fma, Fma512Gmacs(kRounds));
      dp = std::max(dp, DpBf16Gmacs(kRounds));
    }
    return dp >= 1.3 * fma;
#else
    return false;
#endif
  }();
  return pays;
}

}  // namespace rill::inference::cpu::x86
