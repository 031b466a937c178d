// The AVX-512 fp32 GEMM on the transformers' FULLY_CONNECTED shapes (ViT-B/16,
// Swin-T, ConvNeXt-T at 224) and on resnet50's convolutions as GEMMs, one
// thread: GMAC/s per shape beside the core's measured FMA peak (12
// independent zmm FMA chains), and Strassen at depth 1 beside it. Times are
// the thread's CPU time (best of --runs), so another process on the other
// core changes them little; compare kernels within one run or one machine.
//
//   bazel build //benchmarks:fc_gemm && [RILL_AVX2=1] bazel-bin/benchmarks/fc_gemm [--runs=N]
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/thread_seconds.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_strassen.h"

namespace rill::inference::cpu {
namespace {

using ::rill::benchmarks::ThreadSeconds;

// 12 independent FMA chains (latency 4, one or two per cycle: enough to
// fill the pipes), 16 lanes each: MACs per second at the core's peak.
__attribute__((target("avx512f"), noinline)) double PeakGmacs() {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-3f);
  constexpr long long kIters = 20000000;
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    const double t0 = ThreadSeconds();
    for (long long it = 0; it < kIters; ++it) {
#pragma GCC unroll 12
      for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    best = std::min(best, ThreadSeconds() - t0);
  }
  float sink[16];
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  _mm512_storeu_ps(sink, s);
  if (sink[0] == 12345.0f) std::printf(" ");
  return static_cast<double>(kIters) * 12 * 16 / best / 1e9;
}

struct FcShape {
  const char* model;
  int m, k, n;
};

int Main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::max(1, std::atoi(argv[i] + 7));
  }
  if (!x86::GetCpuFeatures().avx512f) {
    std::printf("fc_gemm: this CPU has no AVX-512; nothing to time\n");
    return 1;
  }
  // RILL_AVX2=1: the AVX2 6x16 GEMM (the kernel of CPUs without AVX-512)
  // on the same shapes, against the same peak.
  const bool avx2 = std::getenv("RILL_AVX2") != nullptr;
  const double peak = PeakGmacs();
  std::printf("FMA peak (one thread): %.1f GMAC/s\n\n", peak);
  std::printf(
      "| model | M | K | N | best ms | GMAC/s | of peak | Strassen d1 ms (plain / it) | its max error |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  const FcShape shapes[] = {
      {"vit_b_16 qkv", 197, 768, 2304},  {"vit_b_16 proj", 197, 768, 768},   {"vit_b_16 mlp1", 197, 768, 3072},
      {"vit_b_16 mlp2", 197, 3072, 768}, {"swin_t s1 qkv", 3136, 96, 288},   {"swin_t s1 mlp1", 3136, 96, 384},
      {"swin_t s1 mlp2", 3136, 384, 96}, {"swin_t s3 qkv", 196, 384, 1152}, {"swin_t s3 mlp1", 196, 384, 1536},
      {"swin_t s3 mlp2", 196, 1536, 384}, {"convnext s3 mlp1", 196, 384, 1536},
      {"swin_t s4 qkv", 49, 768, 2304},   {"swin_t s4 mlp2", 49, 3072, 768},   {"convnext s2 mlp2", 784, 768, 192},
      // resnet50's 1x1 convolutions and its 3x3 ones as im2col GEMMs.
      {"resnet50 l1 3x3", 3136, 576, 64}, {"resnet50 l2 1x1", 784, 512, 128}, {"resnet50 l3 1x1", 196, 1024, 256},
      {"resnet50 l3 3x3", 196, 2304, 256}, {"resnet50 l4 1x1", 49, 2048, 512}, {"resnet50 l4 3x3", 49, 4608, 512},
  };
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  double total_ms = 0, total_gmac = 0;
  for (const FcShape& s : shapes) {
    std::vector<float> a(static_cast<size_t>(s.m) * s.k), w(static_cast<size_t>(s.n) * s.k), bias(s.n);
    for (float& v : a) v = dist(rng);
    for (float& v : w) v = dist(rng);
    for (float& v : bias) v = dist(rng);
    std::vector<float> packed(x86::PackedWeightsFloats512(s.n, s.k)), c(static_cast<size_t>(s.m) * s.n);
    if (avx2) {
      packed.resize(x86::PackedWeightsFloats(s.n, s.k));
      x86::PackWeightsNK(w.data(), s.n, s.k, packed.data());
    } else {
      x86::PackWeightsNK512(w.data(), s.n, s.k, packed.data());
    }
    x86::StrassenWeights sw;
    x86::PrepareStrassenWeights(w.data(), s.n, s.k, 1, !avx2, &sw);
    std::vector<float> scratch(x86::StrassenScratchFloats(s.m, s.n, s.k, 1) + 1), c2(c.size());
    double best = 1e30, best_s = 1e30;
    for (int run = 0; run < runs + 1; ++run) {
      double t0 = ThreadSeconds();
      (avx2 ? x86::GemmF32Avx2 : x86::GemmF32Avx512)(s.m, s.n, s.k, a.data(), s.k, packed.data(), bias.data(),
                                                     FusedActivation::kNone, c.data(), s.n);
      if (run > 0) best = std::min(best, ThreadSeconds() - t0);
      t0 = ThreadSeconds();
      x86::GemmStrassen(s.m, a.data(), s.k, sw, bias.data(), FusedActivation::kNone,
                        avx2 ? x86::GemmF32Avx2 : x86::GemmF32Avx512, c2.data(),
                        s.n, scratch.data());
      if (run > 0) best_s = std::min(best_s, ThreadSeconds() - t0);
    }
    double err = 0, mag = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      err = std::max(err, static_cast<double>(std::fabs(c[i] - c2[i])));
      mag = std::max(mag, static_cast<double>(std::fabs(c[i])));
    }
    const double gmac = static_cast<double>(s.m) * s.k * s.n / 1e9;
    total_ms += best * 1e3;
    total_gmac += gmac;
    std::printf("| %s | %d | %d | %d | %.3f | %.1f | %.0f%% | %.3f (%.2fx) | %.2g of %.3g |\n", s.model, s.m, s.k, s.n,
                best * 1e3, gmac / best, 100.0 * gmac / best / peak, best_s * 1e3, best / best_s, err, mag);
  }
  std::printf("| all | | | | %.3f | %.1f | %.0f%% | | |\n", total_ms, total_gmac / total_ms * 1e3,
              100.0 * total_gmac / total_ms * 1e3 / peak);
  return 0;
}

}  // namespace
}  // namespace rill::inference::cpu

int main(int argc, char** argv) { return rill::inference::cpu::Main(argc, argv); }
