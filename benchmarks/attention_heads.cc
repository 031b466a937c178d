// ATTENTION's heads on one thread, AVX-512: the kernel table's heads
// (kernels/x86/f32_attention_avx512.h: K transposed once, Q K^T and P V in
// register tiles over the operands as stored) beside the packed-GEMM path
// they replaced (K and V packed into the 6x32 GEMM's panels per head, the
// scale and the bias as passes of their own), on the transformers' head
// shapes; with the softmax's share and GMAC/s beside the core's FMA peak.
// Times are the thread's CPU time (best of --runs over all heads of a
// layer), so another process on the other core changes them little.
//
//   bazel build //benchmarks:attention_heads && bazel-bin/benchmarks/attention_heads [--runs=N]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "benchmarks/thread_seconds.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_attention_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_binary_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu {
namespace {

using ::rill::benchmarks::ThreadSeconds;

struct Shape {
  const char* model;
  int heads, m, n, d, dv;
  bool bias;  // a bias row per query (Swin's relative positions)
  float scale;
};

double Best(int runs, const std::function<void()>& f) {
  f();
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const double t0 = ThreadSeconds();
    f();
    best = std::min(best, ThreadSeconds() - t0);
  }
  return best;
}

void Run(const Shape& s, int runs) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
  };
  const size_t qsize = static_cast<size_t>(s.m) * s.d, ksize = static_cast<size_t>(s.n) * s.d;
  const size_t vsize = static_cast<size_t>(s.n) * s.dv, osize = static_cast<size_t>(s.m) * s.dv;
  const std::vector<float> q = random(qsize * s.heads), k = random(ksize * s.heads), v = random(vsize * s.heads);
  const std::vector<float> bias = s.bias ? random(static_cast<size_t>(s.m) * s.n) : std::vector<float>();
  std::vector<float> out(osize * s.heads);

  auto head = [&](int h) {
    AttentionHead a;
    a.m = s.m;
    a.n = s.n;
    a.d = s.d;
    a.dv = s.dv;
    a.q = q.data() + qsize * h;
    a.ldq = s.d;
    a.k = k.data() + ksize * h;
    a.ldk = s.d;
    a.v = v.data() + vsize * h;
    a.ldv = s.dv;
    if (s.bias) {
      a.bias = bias.data();
      a.bias_per_query = true;
      a.bias_ld = s.n;
    }
    a.scale = s.scale;
    a.out = out.data() + osize * h;
    a.ldo = s.dv;
    return a;
  };

  std::vector<float> keys(x86::AttentionKeysFloatsAvx512(s.n, s.d)), scores(x86::AttentionScoresFloatsAvx512(s.n));
  const double heads_s = Best(runs, [&] {
    for (int h = 0; h < s.heads; ++h) {
      const AttentionHead a = head(h);
      x86::AttentionKeysAvx512(a, keys.data());
      x86::AttentionRowsAvx512(a, keys.data(), 0, s.m, scores.data());
    }
  });
  const double keys_s = Best(runs, [&] {
    for (int h = 0; h < s.heads; ++h) x86::AttentionKeysAvx512(head(h), keys.data());
  });

  // The packed-GEMM path, in row blocks of 64 as the op ran it.
  std::vector<float> pk(x86::PackedWeightsFloats512(s.n, s.d)), pv(x86::PackedWeightsFloats512(s.dv, s.n));
  std::vector<float> block(static_cast<size_t>(64) * s.n);
  const double packed_s = Best(runs, [&] {
    for (int h = 0; h < s.heads; ++h) {
      const AttentionHead a = head(h);
      x86::PackWeightsNK512(a.k, s.n, s.d, pk.data());
      PackPanelsKN<x86::kGemm512Nr>(a.v, s.n, s.dv, pv.data());
      for (int r0 = 0; r0 < s.m; r0 += 64) {
        const int rows = std::min(64, s.m - r0);
        x86::GemmF32Avx512(rows, s.n, s.d, a.q + static_cast<size_t>(r0) * s.d, s.d, pk.data(), nullptr,
                           FusedActivation::kNone, block.data(), s.n);
        const long long count = static_cast<long long>(rows) * s.n;
        x86::BinaryAvx2(BinaryKind::kMul, count, block.data(), &s.scale, 1, FusedActivation::kNone, block.data());
        if (s.bias) {
          x86::BinaryAvx2(BinaryKind::kAdd, count, block.data(), a.bias + static_cast<size_t>(r0) * s.n, count,
                          FusedActivation::kNone, block.data());
        }
        x86::SoftmaxAvx512(rows, s.n, 1, block.data(), block.data(), 0, rows);
        x86::GemmF32Avx512(rows, s.dv, s.n, block.data(), s.n, pv.data(), nullptr, FusedActivation::kNone,
                           a.out + static_cast<size_t>(r0) * s.dv, s.dv);
      }
    }
  });
  std::vector<float> sm = random(static_cast<size_t>(s.m) * s.n);
  const double softmax_s = Best(runs, [&] {
    for (int h = 0; h < s.heads; ++h) x86::SoftmaxAvx512(s.m, s.n, 1, sm.data(), sm.data(), 0, s.m);
  });
  const double macs = 1.0 * s.heads * s.m * s.n * (s.d + s.dv);
  std::printf("%-10s %3d x m%-4d n%-4d d%-3d dv%-3d %s | heads %7.1f us %5.1f GMAC/s | packed GEMM %7.1f us %5.1f GMAC/s"
              " | %.2fx | keys %5.1f us, softmax %6.1f us\n",
              s.model, s.heads, s.m, s.n, s.d, s.dv, s.bias ? "bias" : "    ", heads_s * 1e6, macs / heads_s * 1e-9,
              packed_s * 1e6, macs / packed_s * 1e-9, packed_s / heads_s, keys_s * 1e6, softmax_s * 1e6);
}

}  // namespace
}  // namespace rill::inference::cpu

int main(int argc, char** argv) {
  using namespace rill::inference::cpu;
  int runs = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::atoi(argv[i] + 7);
  }
  if (!x86::GetCpuFeatures().avx512f) {
    std::fprintf(stderr, "attention_heads: this CPU has no AVX-512F\n");
    return 1;
  }
  const auto& table = CpuKernelsFor(rill::inference::AlgorithmPolicy::kAuto);
  if (table.fma_chain_gmacs != nullptr) {
    std::printf("one core's FMA peak: %.1f GMAC/s\n", table.fma_chain_gmacs(20000000));
  }
  const Shape shapes[] = {
      {"vit_b_16", 12, 197, 197, 64, 64, false, 0.125f},
      {"vit_b_32", 12, 50, 50, 64, 64, false, 0.125f},
      {"swin_t", 3 * 64, 49, 49, 32, 32, true, 0.17677669f},
      {"swin_t/s3", 12 * 4, 49, 49, 32, 32, true, 0.17677669f},
  };
  for (const Shape& s : shapes) Run(s, runs);
  return 0;
}
