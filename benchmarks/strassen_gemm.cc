// Plain GEMM against Strassen (one and two levels) on large square GEMMs,
// AVX-512, one thread, best of three, beside the cost model's estimate at
// 2 GHz: the figures the cost model's Strassen constants come from.
//
//   bazel build //benchmarks:strassen_gemm && bazel-bin/benchmarks/strassen_gemm
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_strassen.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"

namespace rill::inference::cpu {
namespace {

std::vector<float> Random(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*rng);
  return v;
}

int Main() {
  if (!x86::GetCpuFeatures().avx512f) {
    std::printf("strassen_gemm: this CPU has no AVX-512; nothing to time\n");
    return 1;
  }
  std::printf("| size^3 | depth | best of 3 ms | estimate ms (2 GHz) |\n|---|---|---|---|\n");
  std::mt19937 rng(1);
  for (int size : {512, 1024, 2048}) {
    const std::vector<float> a = Random(static_cast<size_t>(size) * size, &rng);
    const std::vector<float> w = Random(static_cast<size_t>(size) * size, &rng);
    std::vector<float> c(static_cast<size_t>(size) * size);
    for (int depth : {0, 1, 2}) {
      x86::StrassenWeights sw;
      x86::PrepareStrassenWeights(w.data(), size, size, depth, true, &sw);
      std::vector<float> scratch(x86::StrassenScratchFloats(size, size, size, depth) + 1);
      double best = 1e30;
      for (int run = 0; run < 3; ++run) {
        const auto start = std::chrono::steady_clock::now();
        x86::GemmStrassen(size, a.data(), size, sw, nullptr, FusedActivation::kNone, x86::GemmF32Avx512, c.data(),
                          size, scratch.data());
        best = std::min(best,
                        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
      const ConvAlgo algo = depth == 0 ? ConvAlgo::kGemm6x32 : depth == 1 ? ConvAlgo::kStrassen1 : ConvAlgo::kStrassen2;
      std::printf("| %d | %d | %.2f | %.2f |\n", size, depth, best, EstimateGemmCycles(size, size, size, algo) / 2e6);
    }
  }
  return 0;
}

}  // namespace
}  // namespace rill::inference::cpu

int main() { return rill::inference::cpu::Main(); }
