// The AArch64 kernels (NEON assembly and intrinsics, the ARMv8.2 fp16 GEMM)
// against the reference kernels on odd shapes: sizes that leave row and
// column tails of the 8x12 tile, k = 1, channel counts that are not
// multiples of four, 3x3 and 5x5 windows, strides 1 and 2, padding,
// dilation, batch 2, every fused activation. Runs under qemu-aarch64
// (`-cpu max`: HWCAP has ASIMDHP) in CI: bazel test --config=aarch64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/arm64/arm64_kernels.h"
#include "inference/backend/cpu/kernels/arm64/cpu_features.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv2d_gemm_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv2d_sliding_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv3x3s1_winograd_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_dwconv2d_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_gemm_8x12_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_prelu_neon.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/ref/prelu.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "tests/require.h"

namespace rill::inference::cpu::arm64 {
namespace {

constexpr FusedActivation kActs[] = {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6,
                                     FusedActivation::kReluN1To1, FusedActivation::kTanh};

std::vector<float> Random(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Reference GEMM in double: C = act(bias + A W^T).
std::vector<float> RefGemm(int m, int n, int k, const std::vector<float>& a, const std::vector<float>& w,
                           const float* bias, FusedActivation act) {
  std::vector<float> c(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = bias ? bias[j] : 0.0;
      for (int kk = 0; kk < k; ++kk) s += static_cast<double>(a[static_cast<size_t>(i) * k + kk]) * w[static_cast<size_t>(j) * k + kk];
      c[static_cast<size_t>(i) * n + j] = ApplyActivation(static_cast<float>(s), act);
    }
  }
  return c;
}

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  float d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

bool HasFp16() { return GetCpuFeatures().asimdhp; }

TEST(Arm64Features, FromHwcap) {
  EXPECT_FALSE(FeaturesFromHwcap(0).asimd);
  EXPECT_TRUE(FeaturesFromHwcap(1UL << 1).asimd);
  EXPECT_FALSE(FeaturesFromHwcap(1UL << 1).asimdhp);
  EXPECT_TRUE(FeaturesFromHwcap((1UL << 1) | (1UL << 10)).asimdhp);
  EXPECT_FALSE(FeaturesFromHwcap(1UL << 10).asimdhp);  // no fp16 vectors without NEON
  EXPECT_TRUE(GetCpuFeatures().asimd);  // every ARMv8-A Linux CPU
}

TEST(Arm64Table, ChoosesFromFeatures) {
  const CpuKernels none = KernelTable(CpuFeatures{});
  EXPECT_STREQ(none.isa, "ref");
  EXPECT_FALSE(none.gemm[CpuKernels::kNarrowGemm]);

  const CpuKernels neon = KernelTable(CpuFeatures{true, false});
  EXPECT_STREQ(neon.isa, "neon");
  EXPECT_EQ(neon.vector_lanes, 4);
  EXPECT_FALSE(neon.has_fp16_arith);
  ASSERT_TRUE(neon.gemm[CpuKernels::kNarrowGemm]);
  EXPECT_STREQ(neon.gemm[CpuKernels::kNarrowGemm].name, "8x12_neon");
  EXPECT_EQ(neon.gemm[CpuKernels::kNarrowGemm].mr, 8);
  EXPECT_EQ(neon.gemm[CpuKernels::kNarrowGemm].nr, 12);
  EXPECT_FALSE(neon.gemm[CpuKernels::kWideGemm]);
  EXPECT_TRUE(neon.im2col);
  EXPECT_TRUE(neon.sliding[0]);
  EXPECT_TRUE(neon.depthwise);
  EXPECT_EQ(neon.im2col.tile_f16, nullptr);
  EXPECT_EQ(none.elementwise.prelu, nullptr);
  EXPECT_EQ(neon.elementwise.prelu, &PReluNeon);
  EXPECT_STREQ(neon.elementwise.prelu_isa, "neon");
  ASSERT_TRUE(neon.winograd);
  EXPECT_STREQ(neon.winograd.isa, "neon");
  EXPECT_EQ(neon.winograd.max_m, 4);
  EXPECT_EQ(neon.winograd.nr, 12);
  EXPECT_EQ(neon.winograd.lanes, 4);
  EXPECT_EQ(neon.winograd.to_f16, nullptr);  // kFp16 keeps fp32 products
  EXPECT_EQ(neon.winograd.to_bf16, nullptr);
  EXPECT_FALSE(none.winograd);

  const CpuKernels fp16 = KernelTable(CpuFeatures{true, true});
  EXPECT_STREQ(fp16.isa, "neon_fp16");
  EXPECT_TRUE(fp16.has_fp16_arith);
  ASSERT_TRUE(fp16.gemm[CpuKernels::kWideGemm]);
  EXPECT_STREQ(fp16.gemm[CpuKernels::kWideGemm].name, "8x12_neonfp16");
  EXPECT_NE(fp16.gemm[CpuKernels::kWideGemm].gemm_f16, nullptr);
  EXPECT_NE(fp16.im2col.tile_f16, nullptr);
  EXPECT_TRUE(fp16.sliding[1]);
}

TEST(Arm64Table, HostTableIsTheFeaturesTable) {
  const CpuKernels& host = CpuKernelsFor(AlgorithmPolicy::kAuto);
  EXPECT_STREQ(host.isa, GetCpuFeatures().asimdhp ? "neon_fp16" : "neon");
  EXPECT_STREQ(CpuKernelsFor(AlgorithmPolicy::kReference).isa, "ref");
}

// The fp32 8x12 assembly tile: every m/n tail, k from 1, with and without
// bias, every activation, a row stride wider than n.
TEST(Arm64Gemm, F32MatchesReference) {
  const int ms[] = {1, 7, 8, 9, 17, 33};
  const int ns[] = {1, 5, 12, 13, 25, 40};
  const int ks[] = {1, 3, 16, 67};
  unsigned seed = 1;
  for (int m : ms) {
    for (int n : ns) {
      for (int k : ks) {
        const auto a = Random(static_cast<size_t>(m) * k, seed++);
        const auto w = Random(static_cast<size_t>(n) * k, seed++);
        const auto b = Random(n, seed++);
        std::vector<float> packed(PackedWeightsFloats12(n, k));
        PackWeightsNK12(w.data(), n, k, packed.data());
        for (FusedActivation act : kActs) {
          for (const float* bias : {b.data(), static_cast<const float*>(nullptr)}) {
            const int ldc = n + 3;
            std::vector<float> c(static_cast<size_t>(m) * ldc, 1234.0f);
            GemmF32Neon(m, n, k, a.data(), k, packed.data(), bias, act, c.data(), ldc);
            const auto want = RefGemm(m, n, k, a, w, bias, act);
            for (int i = 0; i < m; ++i) {
              for (int j = 0; j < n; ++j) {
                ASSERT_NEAR(c[static_cast<size_t>(i) * ldc + j], want[static_cast<size_t>(i) * n + j], 1e-4f)
                    << "m=" << m << " n=" << n << " k=" << k << " i=" << i << " j=" << j;
              }
              for (int j = n; j < ldc; ++j) ASSERT_EQ(c[static_cast<size_t>(i) * ldc + j], 1234.0f);  // untouched
            }
          }
        }
      }
    }
  }
}

// The fp16-arithmetic tile (halves in, half sums per 128 k steps, fp32
// out). Tolerance: every operand rounds to 11 bits (2^-11 relative) and
// every sum rounds in halves, so the error grows with k and the sums'
// magnitude: stated as |err| <= 2e-3 * (1 + sum_k |a w|) + 1e-3 for inputs
// in [-1, 1]; the largest relative error seen is printed.
TEST(Arm64Gemm, F16ArithWithinTolerance) {
  RILL_REQUIRE(HasFp16(), "the CPU has no ARMv8.2 fp16 arithmetic (HWCAP_ASIMDHP): run under qemu -cpu max");
  const int ms[] = {1, 8, 13};
  const int ns[] = {1, 12, 29};
  const int ks[] = {1, 9, 128, 129, 300};
  unsigned seed = 100;
  double worst = 0;
  for (int m : ms) {
    for (int n : ns) {
      for (int k : ks) {
        const auto a = Random(static_cast<size_t>(m) * k, seed++);
        const auto w = Random(static_cast<size_t>(n) * k, seed++);
        const auto b = Random(n, seed++);
        std::vector<uint16_t> packed(PackedWeightsFloats12(n, k));
        PackWeightsNK12Half(w.data(), n, k, packed.data());
        for (FusedActivation act : {FusedActivation::kNone, FusedActivation::kRelu6}) {
          std::vector<float> c(static_cast<size_t>(m) * n);
          GemmF16Neon(m, n, k, a.data(), k, packed.data(), b.data(), act, c.data(), n);
          const auto want = RefGemm(m, n, k, a, w, b.data(), act);
          for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
              double mag = 1;
              for (int kk = 0; kk < k; ++kk) mag += std::fabs(a[static_cast<size_t>(i) * k + kk] * w[static_cast<size_t>(j) * k + kk]);
              const double err = std::fabs(c[static_cast<size_t>(i) * n + j] - want[static_cast<size_t>(i) * n + j]);
              worst = std::max(worst, err / mag);
              ASSERT_LE(err, 2e-3 * mag + 1e-3) << "m=" << m << " n=" << n << " k=" << k;
            }
          }
        }
      }
    }
  }
  std::printf("fp16 GEMM: worst error / (1 + sum |a w|) = %.3g\n", worst);
  // Half precision really ran: errors beyond fp32's.
  EXPECT_GT(worst, 1e-6);
}

ConvParams Conv(int batch, int h, int w, int in_c, int out_c, int kh, int kw, int stride, int pad, int dil,
                FusedActivation act, int groups = 1) {
  ConvParams p;
  p.batch = batch;
  p.in_h = h;
  p.in_w = w;
  p.in_c = in_c;
  p.out_c = out_c;
  p.kernel_h = kh;
  p.kernel_w = kw;
  p.stride_h = p.stride_w = stride;
  p.dilation_h = p.dilation_w = dil;
  p.pad_top = p.pad_left = pad;
  p.out_h = (h + 2 * pad - dil * (kh - 1) - 1) / stride + 1;
  p.out_w = (w + 2 * pad - dil * (kw - 1) - 1) / stride + 1;
  p.groups = groups;
  p.activation = act;
  return p;
}

std::vector<ConvParams> ConvShapes() {
  std::vector<ConvParams> v;
  int i = 0;
  for (int in_c : {1, 3, 8, 17}) {
    for (int out_c : {1, 12, 13, 30}) {
      const FusedActivation act = kActs[i++ % 5];
      v.push_back(Conv(1, 7, 9, in_c, out_c, 1, 1, 1, 0, 1, act));    // pointwise
      v.push_back(Conv(2, 9, 8, in_c, out_c, 3, 3, 1, 1, 1, act));    // 3x3 SAME, batch 2
      v.push_back(Conv(1, 11, 10, in_c, out_c, 3, 3, 2, 0, 1, act));  // stride 2 VALID
      v.push_back(Conv(1, 10, 10, in_c, out_c, 5, 5, 1, 2, 1, act));  // 5x5
      v.push_back(Conv(1, 12, 12, in_c, out_c, 3, 3, 1, 2, 2, act));  // dilation 2
    }
  }
  v.push_back(Conv(1, 6, 6, 8, 12, 3, 3, 1, 1, 1, FusedActivation::kRelu, 2));  // grouped
  v.push_back(Conv(1, 6, 5, 12, 30, 1, 1, 1, 0, 1, FusedActivation::kNone, 3));
  return v;
}

TEST(Arm64Conv, GemmTilesMatchReference) {
  const CpuKernels k = KernelTable(CpuFeatures{true, false});
  unsigned seed = 7;
  for (const ConvParams& p : ConvShapes()) {
    const auto x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, seed++);
    const auto f = Random(static_cast<size_t>(p.out_c) * p.kernel_h * p.kernel_w * (p.in_c / p.groups), seed++);
    const auto b = Random(p.out_c, seed++);
    std::vector<float> want(static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c);
    Conv2DRef(p, x.data(), f.data(), b.data(), want.data());
    std::vector<float> packed;
    PackConvGemm(p, f.data(), 12, &packed);
    std::vector<float> scratch(ConvGemmScratchFloats(p) + 1);
    std::vector<float> y(want.size(), 99.0f);
    for (int t = 0; t < ConvGemmTiles(p); ++t) {
      ConvGemmTile(p, k.gemm[0], x.data(), packed.data(), b.data(), scratch.data(), y.data(), t, nullptr, 0);
    }
    EXPECT_LE(MaxAbsDiff(y, want), 2e-4f) << p.in_c << "->" << p.out_c << " k" << p.kernel_h << " s" << p.stride_h;
  }
}

TEST(Arm64Conv, GemmF16TilesWithinTolerance) {
  RILL_REQUIRE(HasFp16(), "the CPU has no ARMv8.2 fp16 arithmetic (HWCAP_ASIMDHP): run under qemu -cpu max");
  unsigned seed = 70;
  for (const ConvParams& p : ConvShapes()) {
    const auto x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, seed++);
    const auto f = Random(static_cast<size_t>(p.out_c) * p.kernel_h * p.kernel_w * (p.in_c / p.groups), seed++);
    const auto b = Random(p.out_c, seed++);
    std::vector<float> want(static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c);
    Conv2DRef(p, x.data(), f.data(), b.data(), want.data());
    std::vector<uint16_t> packed;
    PackConvGemmHalf(p, f.data(), &packed);
    std::vector<float> scratch(ConvGemmScratchFloats(p) + 1);
    std::vector<float> y(want.size());
    for (int t = 0; t < ConvGemmTiles(p); ++t) {
      ConvGemmTileF16(p, x.data(), packed.data(), b.data(), scratch.data(), y.data(), t, nullptr, 0);
    }
    // Depth up to 5*5*17 = 425 products of magnitude <= 1.
    const float k = static_cast<float>(p.kernel_h * p.kernel_w * p.in_c / p.groups);
    EXPECT_LE(MaxAbsDiff(y, want), 2e-3f * (1 + k / 4)) << p.in_c << "->" << p.out_c << " k" << p.kernel_h;
  }
}

TEST(Arm64Conv, SlidingMatchesReference) {
  unsigned seed = 300;
  for (const ConvParams& p : ConvShapes()) {
    if (p.groups != 1) continue;
    const auto x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, seed++);
    const auto f = Random(static_cast<size_t>(p.out_c) * p.kernel_h * p.kernel_w * p.in_c, seed++);
    const auto b = Random(p.out_c, seed++);
    std::vector<float> want(static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c);
    Conv2DRef(p, x.data(), f.data(), b.data(), want.data());
    std::vector<float> packed(SlidingPackedFloats(p));
    PackSlidingWeights(p, f.data(), packed.data());
    std::vector<float> y(want.size());
    Conv2DSlidingNeonRows(p, x.data(), packed.data(), b.data(), y.data(), 0, p.batch * p.out_h);
    EXPECT_LE(MaxAbsDiff(y, want), 2e-4f) << p.in_c << "->" << p.out_c << " k" << p.kernel_h;
  }
}

// Depthwise: the assembly 3x3 rows (interior pixels) with the intrinsics
// borders, against the reference and against the all-intrinsics path.
TEST(Arm64Depthwise, MatchesReference) {
  unsigned seed = 500;
  int cases = 0;
  for (int c : {1, 4, 7, 8, 19}) {
    for (int k : {3, 5}) {
      for (int stride : {1, 2}) {
        for (int dil : {1, 2}) {
          for (bool with_bias : {true, false}) {
            const FusedActivation act = kActs[cases % 5];
            ConvParams p = Conv(2, 13, 11, c, c, k, k, stride, k / 2 * dil, dil, act);
            const auto x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * c, seed++);
            const auto f = Random(static_cast<size_t>(k) * k * c, seed++);
            const auto b = Random(c, seed++);
            const float* bias = with_bias ? b.data() : nullptr;
            std::vector<float> want(static_cast<size_t>(p.batch) * p.out_h * p.out_w * c);
            DepthwiseConv2DRef(p, x.data(), f.data(), bias, want.data());
            std::vector<float> y(want.size(), 99.0f), y2(want.size(), 98.0f);
            // In two row ranges, as two threads would.
            const int rows = p.batch * p.out_h;
            DepthwiseConv2DNeonRows(p, x.data(), f.data(), bias, y.data(), 0, rows / 3);
            DepthwiseConv2DNeonRows(p, x.data(), f.data(), bias, y.data(), rows / 3, rows);
            DepthwiseConv2DNeonPixelRows(p, x.data(), f.data(), bias, y2.data(), 0, rows);
            EXPECT_LE(MaxAbsDiff(y, want), 1e-5f) << "c=" << c << " k=" << k << " s=" << stride << " d=" << dil;
            EXPECT_LE(MaxAbsDiff(y2, want), 1e-5f) << "c=" << c << " k=" << k << " s=" << stride << " d=" << dil;
            ++cases;
          }
        }
      }
    }
  }
}

// Winograd F(2,3) and F(4,3): the assembly transforms (whole 4-channel
// vectors), the scalar channel tails, border patches and tiles cut by the
// output's edge, the 8x12 GEMM products, against the reference conv. Odd
// sizes (H, W not multiples of the tile), channel counts 1, 3, 4, 8, 17 (not
// multiples of 4 too), pads 0, 1, 2, batch 2, every activation, with and
// without bias. Bound per output: |err| <= B * (1 + sum_k |w x|), B = 1e-6
// for F(2,3), 1e-5 for F(4,3) (its transforms' coefficients up to 8 grow
// the rounding); measured 2.3e-7 and 2.5e-6 (printed).
std::vector<ConvParams> WinogradShapes() {
  std::vector<ConvParams> v;
  int i = 0;
  for (int in_c : {1, 3, 4, 8, 17}) {
    for (int out_c : {1, 5, 12, 13}) {
      const FusedActivation act = kActs[i++ % 5];
      v.push_back(Conv(1, 7, 9, in_c, out_c, 3, 3, 1, 1, 1, act));    // SAME, 7x9: tiles cut both ways
      v.push_back(Conv(2, 10, 11, in_c, out_c, 3, 3, 1, 0, 1, act));  // VALID, batch 2
      v.push_back(Conv(1, 4, 5, in_c, out_c, 3, 3, 1, 2, 1, act));    // pad 2: border tiles only
    }
  }
  return v;
}

// sum_k |w x| of every output (the scale of its rounding error).
std::vector<float> AbsSums(const ConvParams& p, const std::vector<float>& x, const std::vector<float>& f) {
  std::vector<float> ax(x.size()), af(f.size()), s(static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c);
  for (size_t i = 0; i < x.size(); ++i) ax[i] = std::fabs(x[i]);
  for (size_t i = 0; i < f.size(); ++i) af[i] = std::fabs(f[i]);
  ConvParams q = p;
  q.activation = FusedActivation::kNone;
  Conv2DRef(q, ax.data(), af.data(), nullptr, s.data());
  return s;
}

// The conv on the table's Winograd entry, its phases spread over `threads`
// std::threads as Conv2DOp spreads them: whole blocks per thread where the
// plan gives each thread whole blocks, else each phase split in parts.
std::vector<float> RunWinograd(int m, const ConvParams& p, const std::vector<float>& x, const std::vector<float>& f,
                               const float* bias, int threads) {
  const CpuKernels k = KernelTable(CpuFeatures{true, false});
  const WinogradKernels& w = k.winograd;
  const WinogradPlan plan = w.plan(m, p, threads);
  WinogradWeights weights;
  w.transform_weights(m, p, f.data(), &weights);
  std::vector<float> y(static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c, 99.0f);
  const size_t per_thread = plan.v_floats + plan.m_floats + plan.patch_floats;
  std::vector<float> scratch(per_thread * threads);
  auto spread = [&](const auto& body) {  // body(thread)
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
    body(0);
    for (std::thread& t : pool) t.join();
  };
  const int a2 = plan.alpha * plan.alpha;
  if (threads > 1 && w.blocks_per_thread(plan.total_tiles, threads) && plan.blocks % threads == 0) {
    spread([&](int t) {
      float* v = scratch.data() + per_thread * t;
      float* mb = v + plan.v_floats;
      float* patch = mb + plan.m_floats;
      for (int b = t; b < plan.blocks; b += threads) {
        const int tiles = w.block_tiles(plan, b);
        w.input_transform(plan, p, x.data(), b, 0, tiles, v, patch);
        w.multiply(plan, p, weights, b, 0, a2, v, mb);
        w.output_transform(plan, p, bias, b, 0, tiles, mb, y.data());
      }
    });
    return y;
  }
  float* v = scratch.data();
  float* mb = v + plan.v_floats;
  for (int b = 0; b < plan.blocks; ++b) {
    const int tiles = w.block_tiles(plan, b);
    auto part = [&](int t, int n) { return std::make_pair(n * t / threads, n * (t + 1) / threads); };
    spread([&](int t) {
      const auto [t0, t1] = part(t, tiles);
      w.input_transform(plan, p, x.data(), b, t0, t1, v, scratch.data() + per_thread * t + plan.v_floats + plan.m_floats);
    });
    spread([&](int t) {
      const auto [p0, p1] = part(t, a2);
      w.multiply(plan, p, weights, b, p0, p1, v, mb);
    });
    spread([&](int t) {
      const auto [t0, t1] = part(t, tiles);
      w.output_transform(plan, p, bias, b, t0, t1, mb, y.data());
    });
  }
  return y;
}

TEST(Arm64Winograd, MatchesReference) {
  unsigned seed = 900;
  for (int m : {2, 4}) {
    const float bound = m == 2 ? 1e-6f : 1e-5f;
    float worst = 0;
    for (const ConvParams& p : WinogradShapes()) {
      const auto x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, seed++);
      const auto f = Random(static_cast<size_t>(p.out_c) * 9 * p.in_c, seed++);
      const auto b = Random(p.out_c, seed++);
      const auto scale = AbsSums(p, x, f);
      for (const float* bias : {b.data(), static_cast<const float*>(nullptr)}) {
        std::vector<float> want(scale.size());
        Conv2DRef(p, x.data(), f.data(), bias, want.data());
        const std::vector<float> got = RunWinograd(m, p, x, f, bias, 1);
        for (size_t i = 0; i < want.size(); ++i) {
          const float share = std::fabs(got[i] - want[i]) / (1 + scale[i]);
          worst = std::max(worst, share);
          ASSERT_LE(share, bound) << "F(" << m << ",3) " << p.batch << "x" << p.in_h << "x" << p.in_w << "x" << p.in_c
                                  << "->" << p.out_c << " pad " << p.pad_top << " act "
                                  << static_cast<int>(p.activation) << " at " << i;
        }
      }
    }
    std::printf("F(%d,3): worst |err| / (1 + sum |w x|) %.3g (bound %.3g)\n", m, worst, bound);
    EXPECT_GT(worst, 0.0f);  // it ran the transforms (exact agreement would be suspicious)
  }
}

// Two threads give the same bits as one, with whole blocks per thread (100
// and 400 tiles) and with the phases split (fewer tiles), and still match the
// reference.
TEST(Arm64Winograd, TwoThreadsGiveOneThreadsBits) {
  unsigned seed = 1900;
  for (int m : {2, 4}) {
    for (const ConvParams& p : {Conv(1, 40, 40, 5, 13, 3, 3, 1, 1, 1, FusedActivation::kRelu6),
                                Conv(1, 9, 10, 17, 12, 3, 3, 1, 1, 1, FusedActivation::kNone)}) {
      const auto x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, seed++);
      const auto f = Random(static_cast<size_t>(p.out_c) * 9 * p.in_c, seed++);
      const auto b = Random(p.out_c, seed++);
      const CpuKernels k = KernelTable(CpuFeatures{true, false});
      const WinogradPlan plan2 = k.winograd.plan(m, p, 2);
      EXPECT_EQ(k.winograd.blocks_per_thread(plan2.total_tiles, 2), p.in_h == 40) << m;
      const std::vector<float> one = RunWinograd(m, p, x, f, b.data(), 1);
      const std::vector<float> two = RunWinograd(m, p, x, f, b.data(), 2);
      EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float))) << "F(" << m << ",3) " << p.in_h;
      std::vector<float> want(one.size());
      Conv2DRef(p, x.data(), f.data(), b.data(), want.data());
      const auto scale = AbsSums(p, x, f);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_LE(std::fabs(two[i] - want[i]), (m == 2 ? 1e-6f : 1e-5f) * (1 + scale[i])) << i;
      }
    }
  }
}

// Hand-computed: a 4x4 input of ones, 3x3 filter of ones, pad 0, F(2,3):
// every output 9 (+ bias 0.5), in every channel arrangement the assembly
// sees (4 channels: one vector; 5: a vector and a scalar tail).
TEST(Arm64Winograd, OnesGiveNine) {
  for (int c : {4, 5}) {
    for (int m : {2, 4}) {
      const ConvParams p = Conv(1, m + 2, m + 2, c, c, 3, 3, 1, 0, 1, FusedActivation::kNone);
      const std::vector<float> x(static_cast<size_t>(p.in_h) * p.in_w * c, 1.0f);
      // Output channel o sees input channel o only, weight 1 on every tap.
      std::vector<float> f(static_cast<size_t>(c) * 9 * c, 0.0f);
      for (int o = 0; o < c; ++o)
        for (int t = 0; t < 9; ++t) f[(static_cast<size_t>(o) * 9 + t) * c + o] = 1.0f;
      const std::vector<float> bias(c, 0.5f);
      const std::vector<float> y = RunWinograd(m, p, x, f, bias.data(), 1);
      ASSERT_EQ(y.size(), static_cast<size_t>(m) * m * c);
      for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], 9.5f, 1e-5f) << "F(" << m << ",3) c" << c << " at " << i;
    }
  }
}

// The cost model reads the ARM entry: F(2,3) and F(4,3) only, the 12-column
// GEMM, 4-lane transforms; a typical 3x3 layer (56x56x64 -> 64) chooses
// F(4,3), named for the NEON table.
TEST(Arm64Winograd, CostModelKnowsIt) {
  const CpuKernels k = KernelTable(CpuFeatures{true, false});
  const IsaFeatures isa = ConvIsaFeatures(k, PanelType::kF32);
  EXPECT_TRUE(isa.winograd);
  EXPECT_EQ(isa.winograd_max_m, 4);
  EXPECT_EQ(isa.winograd_nr, 12);
  EXPECT_EQ(isa.winograd_lanes, 4);
  const ConvParams p = Conv(1, 56, 56, 64, 64, 3, 3, 1, 1, 1, FusedActivation::kRelu);
  const std::vector<ConvAlgo> c = ConvCandidates(p, isa);
  EXPECT_NE(std::find(c.begin(), c.end(), ConvAlgo::kWinogradF23), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), ConvAlgo::kWinogradF43), c.end());
  EXPECT_EQ(std::find(c.begin(), c.end(), ConvAlgo::kWinogradF63), c.end());
  EXPECT_TRUE(ConvAlgoApplies(p, ConvAlgo::kWinogradF43, isa));
  EXPECT_FALSE(ConvAlgoApplies(p, ConvAlgo::kWinogradF63, isa));
  EXPECT_EQ(ChooseConvAlgo(p, isa), ConvAlgo::kWinogradF43);
  EXPECT_EQ(ConvKernelName(ConvAlgo::kWinogradF43, k), "conv3x3s1_winograd_f43_neon");
  // Four lanes cost more transform vectors than eight would.
  IsaFeatures eight = isa;
  eight.winograd_lanes = 8;
  EXPECT_GT(EstimateConvCycles(p, ConvAlgo::kWinogradF43, isa), EstimateConvCycles(p, ConvAlgo::kWinogradF43, eight));
  // The fp16 table (wide slot present) keeps the same Winograd view.
  const IsaFeatures fp16 = ConvIsaFeatures(KernelTable(CpuFeatures{true, true}), PanelType::kF32);
  EXPECT_EQ(fp16.winograd_nr, 12);
  EXPECT_EQ(EstimateConvCycles(p, ConvAlgo::kWinogradF43, fp16), EstimateConvCycles(p, ConvAlgo::kWinogradF43, isa));
}

TEST(Arm64Fc, GemmPanelsMatchReference) {
  // FULLY_CONNECTED runs the same GEMM over [out, in] weights.
  const int batch = 3, in_dim = 37, out_dim = 26;
  const auto x = Random(batch * in_dim, 900), w = Random(out_dim * in_dim, 901), b = Random(out_dim, 902);
  std::vector<float> want(batch * out_dim), y(batch * out_dim);
  FullyConnectedRef(batch, in_dim, out_dim, FusedActivation::kRelu, x.data(), w.data(), b.data(), want.data());
  std::vector<float> packed(PackedWeightsFloats12(out_dim, in_dim));
  PackWeightsNK12(w.data(), out_dim, in_dim, packed.data());
  GemmF32Neon(batch, out_dim, in_dim, x.data(), in_dim, packed.data(), b.data(), FusedActivation::kRelu, y.data(),
              out_dim);
  EXPECT_LE(MaxAbsDiff(y, want), 1e-4f);
}

// PRELU against PReluRef bit for bit: per-channel slopes of 1, 3 (repeated
// in the stack buffer), 4, 7, 17, 200 channels, a scalar, a slope of x's
// shape, NaN / infinities / -0, in place too.
TEST(Arm64PRelu, BitIdenticalToReference) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 5, 3, 17}, {17}},       {{2, 5, 3, 17}, {1, 1, 17}}, {{2, 5, 3, 17}, {1}}, {{2, 5, 3, 17}, {2, 5, 3, 17}},
      {{1, 9, 7, 3}, {1, 1, 3}},   {{1, 4, 5, 4}, {4}},         {{1, 3, 3, 7}, {7}},  {{1, 2, 3, 200}, {200}},
      {{1}, {1}},                  {{1, 7, 1, 1}, {1, 1, 1}}};
  unsigned seed = 1200;
  for (const auto& [x_shape, slope_shape] : shapes) {
    std::vector<float> x = Random(static_cast<size_t>(NumElements(x_shape)), seed++);
    const std::vector<float> slope = Random(static_cast<size_t>(NumElements(slope_shape)), seed++);
    const float specials[] = {std::nanf(""), INFINITY, -INFINITY, -0.0f, 0.0f};
    for (size_t i = 0; i < 5 && 3 * i + 1 < x.size(); ++i) x[3 * i + 1] = specials[i];
    BroadcastParams p;
    ASSERT_TRUE(MakeBroadcastParams(x_shape, slope_shape, &p));
    std::vector<float> want(x.size()), got(x.size(), 42.0f);
    PReluRef(p, x.data(), slope.data(), want.data());
    const long long n = static_cast<long long>(x.size()), period = static_cast<long long>(slope.size());
    PReluNeon(n, x.data(), slope.data(), period, got.data());
    EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4)) << "x of " << n << " slope of " << period;
    PReluNeon(n, x.data(), slope.data(), period, x.data());
    EXPECT_EQ(0, std::memcmp(want.data(), x.data(), want.size() * 4)) << "in place, slope of " << period;
  }
  const float x[6] = {-4.0f, -4.0f, 3.0f, 3.0f, -1.0f, 0.0f};
  const float slope[2] = {0.25f, -2.0f};
  float y[6];
  PReluNeon(6, x, slope, 2, y);
  const float expected[6] = {-1.0f, 8.0f, 3.0f, 3.0f, -0.25f, 0.0f};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], expected[i]) << i;
}

}  // namespace
}  // namespace rill::inference::cpu::arm64
