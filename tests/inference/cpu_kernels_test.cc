// The CPU kernel table (kernels/cpu_kernels.h): what each policy gets, what
// the x86 filler puts in it for each CPU, and the ISA-neutral code the ops
// run over it (GemmPanels, AddResidual's fallback) against the reference
// kernels.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/ref/dequantize.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/ref/residual_add.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "tests/inference/test_util.h"

#if defined(__x86_64__)
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/x86_kernels.h"
#endif

namespace rill::inference::cpu {
namespace {

// Whether a table has no optimized kernel at all (the entries every group's
// users test).
bool Empty(const CpuKernels& k) {
  return !k.gemm[0] && !k.gemm[1] && !k.im2col && !k.sliding[0] && !k.sliding[1] && !k.grouped_direct &&
         !k.winograd && !k.strassen && !k.transpose_conv && !k.depthwise && k.elementwise.binary == nullptr &&
         k.elementwise.hard_swish == nullptr && k.elementwise.residual_add == nullptr &&
         k.elementwise.prelu == nullptr &&
         k.transcendental.logistic == nullptr && k.transcendental.silu == nullptr &&
         k.transcendental.softmax == nullptr && k.pool.max_rows == nullptr && k.pool.average_rows == nullptr &&
         k.pool.mean == nullptr && k.data.transpose == nullptr && k.data.concatenation == nullptr &&
         k.data.pad == nullptr && k.data.resize_bilinear == nullptr && k.data.separable_rows == nullptr &&
         k.bf16_gemm_pays == nullptr;
}

TEST(CpuKernelsTest, ReferencePolicyGetsNoOptimizedKernels) {
  const CpuKernels& k = CpuKernelsFor(AlgorithmPolicy::kReference);
  EXPECT_STREQ(k.isa, "ref");
  EXPECT_TRUE(Empty(k));
  EXPECT_EQ(k.widest_gemm(), nullptr);
  EXPECT_FALSE(ConvIsaFeatures(k, PanelType::kF32).narrow);
}

TEST(CpuKernelsTest, AutoAndTuneShareOneTableFilledOnce) {
  const CpuKernels& a = CpuKernelsFor(AlgorithmPolicy::kAuto);
  EXPECT_EQ(&a, &CpuKernelsFor(AlgorithmPolicy::kTune));
  EXPECT_EQ(&a, &CpuKernelsFor(AlgorithmPolicy::kAuto));
  EXPECT_NE(&a, &CpuKernelsFor(AlgorithmPolicy::kReference));
}

#if defined(__x86_64__)
x86::CpuFeatures Features(bool avx2, bool avx512, bool bf16) {
  x86::CpuFeatures f;
  f.avx2 = f.fma = avx2;
  f.avx512f = avx512;
  f.avx512bf16 = bf16;
  return f;
}

TEST(CpuKernelsTest, HostTableFollowsCpuid) {
  const x86::CpuFeatures& f = x86::GetCpuFeatures();
  const CpuKernels& k = CpuKernelsFor(AlgorithmPolicy::kAuto);
  const std::string isa = f.avx512f && x86::HasAvx2Fma() ? "avx512" : x86::HasAvx2Fma() ? "avx2" : "sse2";
  EXPECT_EQ(k.isa, isa);
  EXPECT_EQ(static_cast<bool>(k.gemm[CpuKernels::kNarrowGemm]), x86::HasAvx2Fma());
  EXPECT_EQ(static_cast<bool>(k.gemm[CpuKernels::kWideGemm]), isa == "avx512");
  EXPECT_EQ(k.gemm[CpuKernels::kWideGemm].gemm_bf16 != nullptr, isa == "avx512" && f.avx512bf16);
  EXPECT_EQ(k.has_bf16, isa == "avx512" && f.avx512bf16);
}

TEST(CpuKernelsTest, X86FillerPerCpu) {
  // Baseline x86-64: the portable copies only.
  const CpuKernels sse2 = x86::KernelTable(Features(false, false, false));
  EXPECT_STREQ(sse2.isa, "sse2");
  EXPECT_NE(sse2.data.pad, nullptr);
  EXPECT_NE(sse2.data.concatenation, nullptr);
  EXPECT_NE(sse2.data.transpose, nullptr);
  CpuKernels rest = sse2;
  rest.isa = "ref";
  rest.vector_lanes = 1;
  rest.data = DataKernels();
  EXPECT_TRUE(Empty(rest));

  const CpuKernels avx2 = x86::KernelTable(Features(true, false, false));
  EXPECT_STREQ(avx2.isa, "avx2");
  EXPECT_EQ(avx2.vector_lanes, 8);
  EXPECT_STREQ(avx2.gemm[CpuKernels::kNarrowGemm].name, "6x16_avx2");
  EXPECT_FALSE(avx2.gemm[CpuKernels::kWideGemm]);
  EXPECT_FALSE(avx2.sliding[1]);
  EXPECT_FALSE(avx2.grouped_direct);
  EXPECT_STREQ(avx2.winograd.isa, "avx2");
  EXPECT_STREQ(avx2.transcendental.isa, "avx2");
  EXPECT_STREQ(avx2.elementwise.prelu_isa, "avx2");
  EXPECT_NE(avx2.elementwise.prelu, nullptr);
  EXPECT_EQ(avx2.widest_gemm(), &avx2.gemm[CpuKernels::kNarrowGemm]);
  const IsaFeatures f2 = ConvIsaFeatures(avx2, PanelType::kBf16);
  EXPECT_TRUE(f2.narrow && f2.winograd && f2.strassen);
  EXPECT_FALSE(f2.wide || f2.bf16 || f2.wide_gemv || f2.grouped_direct != nullptr);

  const CpuKernels avx512 = x86::KernelTable(Features(true, true, false));
  EXPECT_STREQ(avx512.isa, "avx512");
  EXPECT_EQ(avx512.vector_lanes, 16);
  EXPECT_STREQ(avx512.gemm[CpuKernels::kWideGemm].name, "6x32_avx512");
  EXPECT_EQ(avx512.gemm[CpuKernels::kWideGemm].nr, 32);
  EXPECT_NE(avx512.gemm[CpuKernels::kWideGemm].gemm_f16, nullptr);
  EXPECT_EQ(avx512.gemm[CpuKernels::kWideGemm].gemm_bf16, nullptr);
  EXPECT_EQ(avx512.bf16_gemm_pays, nullptr);
  EXPECT_STREQ(avx512.sliding[1].isa, "avx512");
  EXPECT_STREQ(avx512.depthwise.isa, "avx2");  // the names these kernels have always had
  EXPECT_STREQ(avx512.transcendental.isa, "avx512");
  EXPECT_STREQ(avx512.elementwise.prelu_isa, "avx512");
  EXPECT_NE(avx512.elementwise.prelu, avx2.elementwise.prelu);
  const IsaFeatures f512 = ConvIsaFeatures(avx512, PanelType::kBf16);
  EXPECT_TRUE(f512.wide && f512.wide_gemv && f512.grouped_direct != nullptr);
  EXPECT_FALSE(f512.bf16);  // no bf16 GEMM without AVX512-BF16

  const CpuKernels bf16 = x86::KernelTable(Features(true, true, true));
  EXPECT_NE(bf16.gemm[CpuKernels::kWideGemm].gemm_bf16, nullptr);
  EXPECT_NE(bf16.bf16_gemm_pays, nullptr);
  EXPECT_TRUE(ConvIsaFeatures(bf16, PanelType::kBf16).bf16);
}
#endif  // __x86_64__

// GemmPanels on every GEMM microkernel of this CPU's table, fp32 and (where
// the kernel has them) half panels, against FullyConnectedRef on the same
// (rounded) weights; column offsets and the one-row and residual calls
// included.
TEST(CpuKernelsTest, GemmPanelsMatchReference) {
  const CpuKernels& k = CpuKernelsFor(AlgorithmPolicy::kAuto);
  if (!k.gemm[0]) GTEST_SKIP() << "no GEMM kernel on this CPU";
  std::mt19937 rng(3);
  const int m = 13, n = 70, k_dim = 37;
  const std::vector<float> a = testing::RandomFloats(static_cast<size_t>(m) * k_dim, &rng);
  const std::vector<float> w = testing::RandomFloats(static_cast<size_t>(n) * k_dim, &rng);
  const std::vector<float> bias = testing::RandomFloats(n, &rng);
  const std::vector<float> residual = testing::RandomFloats(static_cast<size_t>(m) * n, &rng);
  int checked = 0;
  for (const GemmKernels& gemm : k.gemm) {
    if (!gemm) continue;
    for (PanelType type : {PanelType::kF32, PanelType::kF16}) {
      GemmPanels panels;
      panels.Pack(w.data(), n, k_dim, gemm, type);
      if (panels.type() != type) continue;
      std::vector<float> w_used = w;
      if (type == PanelType::kF16) {
        for (float& v : w_used) v = HalfToFloat(FloatToHalf(v));
      }
      std::vector<float> want(static_cast<size_t>(m) * n);
      FullyConnectedRef(m, k_dim, n, FusedActivation::kRelu6, a.data(), w_used.data(), bias.data(), want.data());
      const std::string what = std::string(gemm.name) + (type == PanelType::kF16 ? " f16" : " f32");
      // Half panels on an fp16-arithmetic CPU (ARMv8.2) also multiply and
      // sum in halves: 2e-3 of (1 + sum |a w|) (arm64_kernels_test), here
      // at most 2e-3 * 38.
      const float tol = type == PanelType::kF16 && k.has_fp16_arith ? 8e-2f : 1e-4f;

      // Columns from a panel boundary on: [nr, n) after [0, nr).
      std::vector<float> got(want.size(), 99.0f);
      panels.Gemm(m, gemm.nr, k_dim, a.data(), k_dim, 0, bias.data(), FusedActivation::kRelu6, got.data(), n);
      panels.Gemm(m, n - gemm.nr, k_dim, a.data(), k_dim, gemm.nr, bias.data() + gemm.nr, FusedActivation::kRelu6,
                  got.data() + gemm.nr, n);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], tol) << what << " at " << i;

      std::vector<float> row(n, 99.0f);
      panels.Gemv(n, k_dim, a.data(), 0, bias.data(), FusedActivation::kRelu6, row.data());
      for (int j = 0; j < n; ++j) ASSERT_NEAR(row[j], want[j], tol) << what << " gemv at " << j;

      if (panels.has_residual_epilogue()) {
        std::vector<float> plain(want.size());
        FullyConnectedRef(m, k_dim, n, FusedActivation::kNone, a.data(), w_used.data(), bias.data(), plain.data());
        ResidualAddRef(m, n, residual.data(), n, FusedActivation::kRelu, plain.data());
        std::vector<float> fused(want.size(), 99.0f);
        panels.GemmResidual(m, n, k_dim, a.data(), k_dim, 0, bias.data(), FusedActivation::kRelu, fused.data(), n,
                            residual.data(), n, n);
        for (size_t i = 0; i < plain.size(); ++i) ASSERT_NEAR(fused[i], plain[i], tol) << what << " residual " << i;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 1);
}

// The plain fallback of the fused residual (tables without the kernel) and
// the table's kernel write the same bits on a window of the output.
TEST(CpuKernelsTest, AddResidualFallbackMatchesKernel) {
  const CpuKernels& host = CpuKernelsFor(AlgorithmPolicy::kAuto);
  const CpuKernels& none = CpuKernelsFor(AlgorithmPolicy::kReference);
  std::mt19937 rng(5);
  const int rows = 9, out_c = 21, ldy = 24, res_c = 13;
  const std::vector<float> residual = testing::RandomFloats(static_cast<size_t>(rows) * res_c, &rng);
  const std::vector<float> y0 = testing::RandomFloats(static_cast<size_t>(rows) * ldy, &rng, -8.0f, 8.0f);
  for (FusedActivation act : {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6}) {
    std::vector<float> a = y0, b = y0;
    AddResidual(host, residual.data(), res_c, a.data(), ldy, 2, 8, 3, out_c, act);
    AddResidual(none, residual.data(), res_c, b.data(), ldy, 2, 8, 3, out_c, act);
    EXPECT_EQ(a, b);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < ldy; ++c) {
        if (r < 2 || r >= 8 || c < 3 || c >= out_c) {
          ASSERT_EQ(b[r * ldy + c], y0[r * ldy + c]) << r << "," << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace rill::inference::cpu
