// The AVX2/FMA kernels against the reference kernels on odd shapes: 1, 3, 7,
// 17 channels; 1x1, 3x3, 5x5 windows; stride 2; SAME and VALID padding;
// dilation; batch 2; every fused activation.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/test_util.h"
#include <immintrin.h>

#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/dequantize.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/ref/add.h"
#include "inference/backend/cpu/kernels/ref/div.h"
#include "inference/backend/cpu/kernels/ref/mul.h"
#include "inference/backend/cpu/kernels/ref/prelu.h"
#include "inference/backend/cpu/kernels/ref/sub.h"
#include "inference/backend/cpu/kernels/ref/activations.h"
#include "inference/backend/cpu/kernels/ref/residual_add.h"
#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"
#include "inference/backend/cpu/kernels/ref/resize_separable.h"
#include "inference/backend/cpu/kernels/x86/f32_binary_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_resize_bilinear_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_resize_separable.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_prelu.h"
#include "inference/ir/conv_geometry.h"
#include "rill/inference/tensor.h"

namespace rill::inference::cpu {
namespace {

using ::rill::inference::Shape;

std::vector<float> Random(size_t n, std::mt19937* rng) { return testing::RandomFloats(n, rng); }

size_t NumElementsOf(const std::vector<int>& s) {
  size_t n = 1;
  for (int d : s) n *= static_cast<size_t>(d);
  return n;
}

void ExpectClose(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(want[i], got[i], 1e-4f * (1.0f + std::fabs(want[i]))) << what << " at " << i;
  }
}

struct ConvCase {
  int batch, h, w, in_c, out_c, k, stride, dilation;
  ir::Padding padding;
  FusedActivation act;
};

ConvParams MakeParams(const ConvCase& c, bool depthwise) {
  ConvParams p;
  p.batch = c.batch;
  p.in_h = c.h;
  p.in_w = c.w;
  p.in_c = c.in_c;
  p.out_c = depthwise ? c.in_c : c.out_c;
  p.kernel_h = p.kernel_w = c.k;
  p.stride_h = p.stride_w = c.stride;
  p.dilation_h = p.dilation_w = c.dilation;
  p.out_h = ir::WindowOutputSize(c.h, c.k, c.stride, c.dilation, c.padding);
  p.out_w = ir::WindowOutputSize(c.w, c.k, c.stride, c.dilation, c.padding);
  p.pad_top = ir::WindowPadBefore(c.h, p.out_h, c.k, c.stride, c.dilation, c.padding);
  p.pad_left = ir::WindowPadBefore(c.w, p.out_w, c.k, c.stride, c.dilation, c.padding);
  p.activation = c.act;
  return p;
}

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  const FusedActivation acts[] = {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6,
                                  FusedActivation::kReluN1To1, FusedActivation::kTanh};
  int a = 0;
  for (int in_c : {1, 3, 7, 17}) {
    for (int out_c : {1, 3, 7, 17, 40}) {
      for (int k : {1, 3, 5}) {
        for (int stride : {1, 2}) {
          for (ir::Padding pad : {ir::Padding::kSame, ir::Padding::kValid}) {
            const int dilation = (k == 3 && stride == 1 && out_c == 7) ? 2 : 1;
            cases.push_back({(in_c + k) % 2 + 1, 9, 11, in_c, out_c, k, stride, dilation, pad, acts[a++ % 5]});
          }
        }
      }
    }
  }
  return cases;
}

class X86KernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!x86::HasAvx2Fma()) GTEST_SKIP() << "CPU has no AVX2/FMA";
  }
  // Random operands of an m x n x k GEMM (A, the [n, k] weights, bias, an
  // [m, n] residual) and, by `index`, one of three activations.
  struct GemmOperands {
    FusedActivation act;
    std::vector<float> a, w, bias, res;
  };
  GemmOperands RandomGemm(int m, int n, int k, int index) {
    GemmOperands g;
    g.act = index % 3 == 0 ? FusedActivation::kNone : index % 3 == 1 ? FusedActivation::kRelu6 : FusedActivation::kTanh;
    g.a = Random(static_cast<size_t>(m) * k, &rng_);
    g.w = Random(static_cast<size_t>(n) * k, &rng_);
    g.bias = Random(n, &rng_);
    g.res = Random(static_cast<size_t>(m) * n, &rng_);
    return g;
  }

  std::mt19937 rng_{42};
};

TEST_F(X86KernelsTest, ConvGemmMatchesReference) {
  int checked = 0;
  for (const ConvCase& c : Cases()) {
    const ConvParams p = MakeParams(c, false);
    if (p.out_h <= 0 || p.out_w <= 0) continue;
    const std::vector<float> x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, &rng_);
    const int k = p.kernel_h * p.kernel_w * p.in_c;
    const std::vector<float> w = Random(static_cast<size_t>(p.out_c) * k, &rng_);
    const std::vector<float> bias = Random(p.out_c, &rng_);
    const size_t out_size = static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c;
    std::vector<float> want(out_size), got(out_size, 123.0f);
    Conv2DRef(p, x.data(), w.data(), bias.data(), want.data());
    std::vector<float> packed(x86::PackedWeightsFloats(p.out_c, k));
    x86::PackWeightsNK(w.data(), p.out_c, k, packed.data());
    std::vector<float> scratch(x86::Conv2DGemmScratchFloats(p) + 1);
    x86::Conv2DGemmAvx2(p, x.data(), packed.data(), bias.data(), scratch.data(), got.data());
    ExpectClose(want, got,
                "conv in_c=" + std::to_string(c.in_c) + " out_c=" + std::to_string(c.out_c) + " k=" +
                    std::to_string(c.k) + " stride=" + std::to_string(c.stride) + " batch=" + std::to_string(c.batch));
    ++checked;
  }
  EXPECT_GT(checked, 200);
  // Large K: one pass up to 8192 steps, past that equal chunks (C stored
  // and reloaded between them); 20 columns leave a partial panel.
  for (int k : {600, 8193, 20000}) {
    const std::vector<float> a = Random(7 * k, &rng_), w = Random(20 * k, &rng_);
    std::vector<float> want(7 * 20), got(7 * 20);
    FullyConnectedRef(7, k, 20, FusedActivation::kNone, a.data(), w.data(), nullptr, want.data());
    std::vector<float> packed(x86::PackedWeightsFloats(20, k));
    x86::PackWeightsNK(w.data(), 20, k, packed.data());
    x86::GemmF32Avx2(7, 20, k, a.data(), k, packed.data(), nullptr, FusedActivation::kNone, got.data(), 20);
    ExpectClose(want, got, "avx2 large k " + std::to_string(k));
  }
}

TEST_F(X86KernelsTest, ConvGemmAvx512MatchesReference) {
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "CPU has no AVX-512F";
  int checked = 0;
  for (const ConvCase& c : Cases()) {
    const ConvParams p = MakeParams(c, false);
    if (p.out_h <= 0 || p.out_w <= 0) continue;
    const std::vector<float> x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * p.in_c, &rng_);
    const int k = p.kernel_h * p.kernel_w * p.in_c;
    const std::vector<float> w = Random(static_cast<size_t>(p.out_c) * k, &rng_);
    const std::vector<float> bias = Random(p.out_c, &rng_);
    const size_t out_size = static_cast<size_t>(p.batch) * p.out_h * p.out_w * p.out_c;
    std::vector<float> want(out_size), got(out_size, 123.0f);
    Conv2DRef(p, x.data(), w.data(), bias.data(), want.data());
    std::vector<float> packed(x86::PackedWeightsFloats512(p.out_c, k));
    x86::PackWeightsNK512(w.data(), p.out_c, k, packed.data());
    std::vector<float> scratch(x86::Conv2DGemmScratchFloats(p) + 1);
    for (int t = 0; t < x86::Conv2DGemmTiles(p); ++t) {
      x86::Conv2DGemmAvx2Tile(p, x.data(), packed.data(), bias.data(), scratch.data(), got.data(), t,
                              x86::GemmF32Avx512);
    }
    ExpectClose(want, got, "avx512 conv in_c=" + std::to_string(c.in_c) + " out_c=" + std::to_string(c.out_c));
    ++checked;
  }
  EXPECT_GT(checked, 200);
  // Large K: one pass up to 8192 steps, past that equal chunks (C stored
  // and reloaded between them); 50 columns leave a partial panel.
  for (int k : {600, 8192, 8193, 20000}) {
    const std::vector<float> a = Random(13 * k, &rng_), w = Random(50 * k, &rng_);
    std::vector<float> want(13 * 50), got(13 * 50);
    FullyConnectedRef(13, k, 50, FusedActivation::kRelu6, a.data(), w.data(), nullptr, want.data());
    std::vector<float> packed(x86::PackedWeightsFloats512(50, k));
    x86::PackWeightsNK512(w.data(), 50, k, packed.data());
    x86::GemmF32Avx512(13, 50, k, a.data(), k, packed.data(), nullptr, FusedActivation::kRelu6, got.data(), 50);
    ExpectClose(want, got, "avx512 large k " + std::to_string(k));
  }
}

// The residual in the AVX-512 GEMM's epilogue gives, bit for bit, what the
// GEMM followed by ResidualAddAvx2 gives: narrow (<= 16 column) and wide
// panels, K in one pass and in two chunks (past 8192), a residual narrower
// than the output.
TEST_F(X86KernelsTest, GemmAvx512ResidualEpilogueEqualsSecondPass) {
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "no AVX-512";
  int checked = 0;
  for (int n : {7, 16, 24, 50, 97}) {
    for (int k : {3, 300, 8500}) {
      for (int res_c : {n, (n + 1) / 2, 1}) {
        for (FusedActivation act : {FusedActivation::kNone, FusedActivation::kRelu6, FusedActivation::kTanh}) {
          const int m = 13;
          const std::vector<float> a = Random(static_cast<size_t>(m) * k, &rng_);
          const std::vector<float> w = Random(static_cast<size_t>(n) * k, &rng_);
          const std::vector<float> bias = Random(n, &rng_);
          const std::vector<float> res = Random(static_cast<size_t>(m) * res_c, &rng_);
          std::vector<float> packed(x86::PackedWeightsFloats512(n, k));
          x86::PackWeightsNK512(w.data(), n, k, packed.data());
          std::vector<float> want(static_cast<size_t>(m) * n), got(want.size());
          x86::GemmF32Avx512(m, n, k, a.data(), k, packed.data(), bias.data(), FusedActivation::kNone, want.data(), n);
          x86::ResidualAddAvx2(res.data(), res_c, want.data(), n, 0, m, 0, n, act);
          x86::GemmF32Avx512Residual(m, n, k, a.data(), k, packed.data(), bias.data(), act, got.data(), n, res.data(),
                                     res_c, res_c);
          ASSERT_EQ(want, got) << "n " << n << " k " << k << " res_c " << res_c;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 135);
}

// Two full panels at once (the 6 x 64 tiles of GEMMs with K > 64 and at
// least 48 rows) give the bits of each panel on its own (its 6 x 32 tiles):
// pairs and a last odd or partial panel, bias, residual, activations, and
// partial sums carried across K chunks (past 8192).
TEST_F(X86KernelsTest, GemmAvx512PanelPairsEqualSinglePanels) {
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "no AVX-512";
  int checked = 0;
  for (int m : {49, 197}) {
    for (int n : {64, 150}) {
      for (int k : {65, 768, 8300}) {
        if (k > 8192 && m > 49) continue;
        const FusedActivation act = n == 64 ? FusedActivation::kRelu6 : FusedActivation::kNone;
        const std::vector<float> a = Random(static_cast<size_t>(m) * k, &rng_);
        const std::vector<float> w = Random(static_cast<size_t>(n) * k, &rng_);
        const std::vector<float> bias = Random(n, &rng_);
        const std::vector<float> res = Random(static_cast<size_t>(m) * n, &rng_);
        std::vector<float> packed(x86::PackedWeightsFloats512(n, k));
        x86::PackWeightsNK512(w.data(), n, k, packed.data());
        std::vector<float> want(static_cast<size_t>(m) * n), got(want.size());
        std::vector<float> want_res(want.size()), got_res(want.size());
        for (int col = 0; col < n; col += x86::kGemm512Nr) {
          const int nr = std::min(x86::kGemm512Nr, n - col);
          const float* panel = packed.data() + static_cast<size_t>(col) * k;
          x86::GemmF32Avx512(m, nr, k, a.data(), k, panel, bias.data() + col, act, want.data() + col, n);
          x86::GemmF32Avx512Residual(m, nr, k, a.data(), k, panel, bias.data() + col, act, want_res.data() + col, n,
                                     res.data() + col, n, nr);
        }
        x86::GemmF32Avx512(m, n, k, a.data(), k, packed.data(), bias.data(), act, got.data(), n);
        x86::GemmF32Avx512Residual(m, n, k, a.data(), k, packed.data(), bias.data(), act, got_res.data(), n,
                                   res.data(), n, n);
        ASSERT_EQ(want, got) << "m " << m << " n " << n << " k " << k;
        ASSERT_EQ(want_res, got_res) << "residual: m " << m << " n " << n << " k " << k;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 10);
}

// FloatToHalf rounds as F16C's vcvtps2ph (nearest, ties to even): every
// half round-trips, and a sweep over 2^24 floats (every 256th bit pattern,
// both signs: normals, subnormal halves, overflow, inf, NaN) gives the
// hardware's bits.
__attribute__((target("avx512f,f16c"))) uint16_t HardwareHalf(float f) {
  return static_cast<uint16_t>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT), 0));
}

TEST_F(X86KernelsTest, FloatToHalfRoundsLikeF16c) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (f != f) continue;  // NaN payloads: quiet NaN either way
    ASSERT_EQ(FloatToHalf(f), h) << std::hex << h;
  }
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "no AVX-512 (F16C reference)";
  int checked = 0;
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 255) {  // odd stride: every low-bit pattern
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof(f));
    const uint16_t want = HardwareHalf(f), got = FloatToHalf(f);
    if (f != f) {
      ASSERT_EQ(got & 0x7C00u, 0x7C00u);
      ASSERT_NE(got & 0x3FFu, 0u);
      continue;
    }
    ASSERT_EQ(got, want) << std::hex << b;
    ++checked;
  }
  EXPECT_GT(checked, 16000000);
}

std::vector<float> RoundedToHalf(const std::vector<float>& w) {
  std::vector<float> r(w.size());
  for (size_t i = 0; i < w.size(); ++i) r[i] = HalfToFloat(FloatToHalf(w[i]));
  return r;
}

// Half-precision panels (Precision::kFp16) give, bit for bit, what the float
// panels give on the weights rounded to half: in-register conversion (few
// rows) and the converted-chunk path (>= 48 rows, K over several chunks),
// narrow and wide panels, residual epilogue, activations; the GEMV too.
TEST_F(X86KernelsTest, HalfPanelsEqualFloatPanelsOnRoundedWeights) {
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "no AVX-512";
  int checked = 0;
  for (int m : {1, 5, 17, 48, 97}) {
    for (int n : {1, 16, 24, 50, 130}) {
      for (int k : {1, 7, 64, 129, 300}) {
        const auto [act, a, w, bias, res] = RandomGemm(m, n, k, checked);
        std::vector<float> packed(x86::PackedWeightsFloats512(n, k));
        x86::PackWeightsNK512(RoundedToHalf(w).data(), n, k, packed.data());
        std::vector<uint16_t> half(x86::PackedWeightsFloats512(n, k));
        x86::PackWeightsNK512Half(w.data(), n, k, half.data());
        std::vector<float> want(static_cast<size_t>(m) * n), got(want.size(), 7.0f);
        x86::GemmF32Avx512(m, n, k, a.data(), k, packed.data(), bias.data(), act, want.data(), n);
        x86::GemmF16wAvx512(m, n, k, a.data(), k, half.data(), bias.data(), act, got.data(), n);
        ASSERT_EQ(want, got) << "m " << m << " n " << n << " k " << k;
        x86::GemmF32Avx512Residual(m, n, k, a.data(), k, packed.data(), bias.data(), act, want.data(), n, res.data(),
                                   n, n);
        x86::GemmF16wAvx512Residual(m, n, k, a.data(), k, half.data(), bias.data(), act, got.data(), n, res.data(), n,
                                    n);
        ASSERT_EQ(want, got) << "residual m " << m << " n " << n << " k " << k;
        if (m == 1) {
          x86::GemvF32Avx512(n, k, a.data(), packed.data(), bias.data(), act, want.data());
          x86::GemvF16wAvx512(n, k, a.data(), half.data(), bias.data(), act, got.data());
          ASSERT_EQ(want, got) << "gemv n " << n << " k " << k;
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 125);
}

// FloatToBf16 rounds as AVX512-BF16's vcvtne2ps2bf16 (nearest, ties to
// even) on normal floats and infinities (the instruction flushes subnormals
// to zero; the weights it rounds are normal), and every bf16 round-trips.
__attribute__((target("avx512f,avx512bf16"))) uint16_t HardwareBf16(float f) {
  const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_set1_ps(f), _mm512_set1_ps(f));
  uint16_t out[32];
  std::memcpy(out, &v, sizeof(out));
  return out[0];
}

TEST_F(X86KernelsTest, FloatToBf16RoundsLikeAvx512Bf16) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = Bf16ToFloat(static_cast<uint16_t>(b));
    if (f != f) continue;
    ASSERT_EQ(FloatToBf16(f), b) << std::hex << b;
  }
  if (!x86::GetCpuFeatures().avx512bf16) GTEST_SKIP() << "no AVX512-BF16";
  int checked = 0;
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 255) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof(f));
    const uint16_t got = FloatToBf16(f);
    if (f != f) {
      ASSERT_EQ(got & 0x7F80u, 0x7F80u);
      ASSERT_NE(got & 0x7Fu, 0u);
      continue;
    }
    if ((b & 0x7F800000u) == 0) continue;  // subnormal: the hardware gives 0
    ASSERT_EQ(got, HardwareBf16(f)) << std::hex << b;
    ++checked;
  }
  EXPECT_GT(checked, 16000000);
}

// Bf16GemmPays measures; it can only say yes where the instruction exists.
TEST_F(X86KernelsTest, Bf16GemmPaysOnlyWithAvx512Bf16) {
  if (x86::Bf16GemmPays()) {
    EXPECT_TRUE(x86::GetCpuFeatures().avx512bf16);
  }
}

// The bf16 GEMM (Precision::kBf16) against a double-precision sum of the
// bf16-rounded operands: only the fp32 summation may differ. Odd k (the pad
// pair), k over several 256-step chunks, m over several 48-row blocks,
// narrow and wide panels, bias, residual epilogue, activations.
TEST_F(X86KernelsTest, Bf16GemmMatchesRoundedOperands) {
  if (!x86::GetCpuFeatures().avx512bf16) GTEST_SKIP() << "no AVX512-BF16";
  auto bf = [](float v) { return static_cast<double>(Bf16ToFloat(FloatToBf16(v))); };
  int checked = 0;
  for (int m : {1, 5, 17, 49, 97}) {
    for (int n : {1, 16, 24, 50, 130}) {
      for (int k : {1, 7, 64, 129, 600}) {
        const auto [act, a, w, bias, res] = RandomGemm(m, n, k, checked);
        std::vector<x86::Bf16> packed(x86::PackedWeightsBf16(n, k));
        x86::PackWeightsNK512Bf16(w.data(), n, k, packed.data());
        for (int with_res = 0; with_res < 2; ++with_res) {
          std::vector<float> got(static_cast<size_t>(m) * n, 7.0f);
          if (with_res) {
            x86::GemmBf16Avx512Residual(m, n, k, a.data(), k, packed.data(), bias.data(), act, got.data(), n,
                                        res.data(), n, n);
          } else {
            x86::GemmBf16Avx512(m, n, k, a.data(), k, packed.data(), bias.data(), act, got.data(), n);
          }
          for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
              double sum = bias[j] + (with_res ? res[static_cast<size_t>(i) * n + j] : 0.0), mag = std::fabs(sum);
              for (int kk = 0; kk < k; ++kk) {
                const double t = bf(a[static_cast<size_t>(i) * k + kk]) * bf(w[static_cast<size_t>(j) * k + kk]);
                sum += t;
                mag += std::fabs(t);
              }
              double want = sum;
              if (act == FusedActivation::kRelu6) want = std::min(6.0, std::max(0.0, sum));
              if (act == FusedActivation::kTanh) want = std::tanh(sum);
              ASSERT_NEAR(got[static_cast<size_t>(i) * n + j], want, 4e-6 * mag + 1e-6)
                  << "m " << m << " n " << n << " k " << k << " res " << with_res << " at " << i << "," << j;
            }
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 125);
}

// Odd sizes, and a scalar operand over tensors whose last 64-float pass
// holds one element, or of one element (the fuzzer found these recursing).
TEST_F(X86KernelsTest, BinaryMatchesReference) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 5, 3, 17}, {2, 5, 3, 17}}, {{2, 5, 3, 17}, {17}}, {{2, 5, 3, 17}, {1, 1, 1, 17}},
      {{2, 5, 3, 17}, {1}},           {{65}, {1}},           {{1}, {1}},
      {{1, 1, 1, 1}, {1, 1, 1, 1}},   {{129}, {1}}};
  for (const auto& [a_shape, b_shape] : shapes) {
    for (int op = 0; op < 4; ++op) {
      for (FusedActivation act : {FusedActivation::kNone, FusedActivation::kRelu6, FusedActivation::kTanh}) {
        const std::vector<float> a = Random(NumElementsOf(a_shape), &rng_);
        std::vector<float> b = Random(NumElementsOf(b_shape), &rng_);
        for (float& v : b) v += v >= 0 ? 0.5f : -0.5f;  // keep divisors away from 0
        BroadcastParams p;
        ASSERT_TRUE(MakeBroadcastParams(a_shape, b_shape, &p));
        p.activation = act;
        std::vector<float> want(a.size()), got(a.size());
        const x86::BinaryOp ops[4] = {x86::BinaryOp::kAdd, x86::BinaryOp::kSub, x86::BinaryOp::kMul,
                                      x86::BinaryOp::kDiv};
        if (op == 0) AddRef(p, a.data(), b.data(), want.data());
        if (op == 1) SubRef(p, a.data(), b.data(), want.data());
        if (op == 2) MulRef(p, a.data(), b.data(), want.data());
        if (op == 3) DivRef(p, a.data(), b.data(), want.data());
        x86::BinaryAvx2(ops[op], static_cast<long long>(a.size()), a.data(), b.data(),
                        static_cast<long long>(b.size()), act, got.data());
        ExpectClose(want, got, "binary op " + std::to_string(op));
      }
    }
  }
}

// PRELU, AVX2 and AVX-512, against PReluRef bit for bit: every slope form
// TFLite allows ([C], [1, 1, C], a scalar, x's shape), channel counts that
// leave vector tails (1, 3, 7, 17, 100) or repeat in the stack buffer (3 ->
// 255 floats), whole vectors (8, 16, 32), a period of 200 (too long to
// repeat), tensors shorter than one period, NaN, infinities and -0, and the
// in-place call a fused epilogue makes.
TEST_F(X86KernelsTest, PReluBitIdenticalToReference) {
  using Kernel = void (*)(long long, const float*, const float*, long long, float*);
  std::vector<std::pair<const char*, Kernel>> kernels = {{"avx2", x86::PReluAvx2}};
  if (x86::GetCpuFeatures().avx512f) kernels.push_back({"avx512", x86::PReluAvx512});
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 5, 3, 17}, {17}},        {{2, 5, 3, 17}, {1, 1, 17}}, {{2, 5, 3, 17}, {1}},
      {{2, 5, 3, 17}, {2, 5, 3, 17}}, {{1, 9, 7, 3}, {1, 1, 3}},   {{1, 4, 5, 8}, {8}},
      {{1, 3, 3, 16}, {16}},          {{1, 6, 5, 32}, {1, 1, 32}}, {{1, 3, 2, 100}, {100}},
      {{1, 2, 3, 200}, {200}},        {{1, 1, 1, 7}, {7}},         {{1}, {1}},
      {{1, 1, 1, 1}, {1}},            {{31}, {31}},                {{33}, {1}},
      {{1, 7, 1, 1}, {1, 1, 1}}};
  for (const auto& [name, kernel] : kernels) {
    for (const auto& [x_shape, slope_shape] : shapes) {
      std::vector<float> x = Random(NumElementsOf(x_shape), &rng_);
      const std::vector<float> slope = Random(NumElementsOf(slope_shape), &rng_);
      // Special values where the tensor has room for them.
      const float specials[] = {std::nanf(""), INFINITY, -INFINITY, -0.0f, 0.0f};
      for (size_t i = 0; i < 5 && 3 * i + 1 < x.size(); ++i) x[3 * i + 1] = specials[i];
      BroadcastParams p;
      ASSERT_TRUE(MakeBroadcastParams(x_shape, slope_shape, &p));
      std::vector<float> want(x.size()), got(x.size(), 42.0f);
      PReluRef(p, x.data(), slope.data(), want.data());
      const long long n = static_cast<long long>(x.size());
      const long long period = static_cast<long long>(slope.size());
      kernel(n, x.data(), slope.data(), period, got.data());
      ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4))
          << name << " x " << ::testing::PrintToString(x_shape) << " slope " << ::testing::PrintToString(slope_shape);
      std::vector<float> in_place = x;
      kernel(n, in_place.data(), slope.data(), period, in_place.data());
      ASSERT_EQ(0, std::memcmp(want.data(), in_place.data(), want.size() * 4)) << name << " in place";
    }
    // A hand-computed case: slope 0.25 per channel 0, -2 per channel 1.
    const float x[6] = {-4.0f, -4.0f, 3.0f, 3.0f, -1.0f, 0.0f};
    const float slope[2] = {0.25f, -2.0f};
    float y[6];
    kernel(6, x, slope, 2, y);
    const float expected[6] = {-1.0f, 8.0f, 3.0f, 3.0f, -0.25f, 0.0f};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], expected[i]) << name << " at " << i;
  }
}

TEST_F(X86KernelsTest, HardSwishBitIdenticalToReference) {
  for (long long n : {1LL, 7LL, 8LL, 17LL, 1000LL}) {
    std::vector<float> x = Random(static_cast<size_t>(n), &rng_);
    for (float& v : x) v *= 5.0f;  // both clamps and the middle
    std::vector<float> want(x.size()), got(x.size(), 123.0f);
    HardSwishRef(n, x.data(), want.data());
    x86::HardSwishAvx2(n, x.data(), got.data());
    EXPECT_EQ(want, got) << "n " << n;
  }
}

// The fused-residual epilogue: the whole output in windows (as conv tiles
// apply it) against the reference over the whole output, narrower skips
// included; outside the window nothing changes.
TEST_F(X86KernelsTest, ResidualAddMatchesReference) {
  const FusedActivation acts[] = {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6,
                                  FusedActivation::kReluN1To1, FusedActivation::kTanh};
  for (int out_c : {1, 3, 7, 17, 40}) {
    for (int res_c : {1, (out_c + 1) / 2, out_c}) {
      for (FusedActivation act : acts) {
        const long long rows = 13;
        const std::vector<float> y0 = Random(static_cast<size_t>(rows) * out_c, &rng_);
        const std::vector<float> skip = Random(static_cast<size_t>(rows) * res_c, &rng_);
        std::vector<float> want = y0, got = y0;
        ResidualAddRef(rows, out_c, skip.data(), res_c, act, want.data());
        // Windows: rows [0,5) and [5,13) x channels [0,c) and [c,out_c).
        const int split = out_c / 3;
        for (auto [r0, r1] : {std::pair{0LL, 5LL}, std::pair{5LL, rows}}) {
          for (auto [c0, c1] : {std::pair{0, split}, std::pair{split, out_c}}) {
            x86::ResidualAddAvx2(skip.data(), res_c, got.data(), out_c, r0, r1, c0, c1, act);
          }
        }
        ExpectClose(want, got, "residual add out_c " + std::to_string(out_c) + " res_c " + std::to_string(res_c));
        std::vector<float> window = y0;
        x86::ResidualAddAvx2(skip.data(), res_c, window.data(), out_c, 2, 4, 0, out_c, act);
        for (long long r = 0; r < rows; ++r) {
          for (int c = 0; c < out_c; ++c) {
            const size_t i = static_cast<size_t>(r) * out_c + c;
            if (r >= 2 && r < 4) {
              EXPECT_NEAR(window[i], want[i], 1e-6f);
            } else {
              EXPECT_EQ(window[i], y0[i]) << "row " << r << " outside the window changed";
            }
          }
        }
      }
    }
  }
}

TEST_F(X86KernelsTest, ResizeBilinearMatchesReference) {
  for (int channels : {1, 3, 8, 17}) {
    for (int mode = 0; mode < 6; ++mode) {
      ResizeParams p;
      p.batch = 2;
      p.in_h = 5;
      p.in_w = 7;
      p.channels = channels;
      p.out_h = 11;
      p.out_w = 4;
      p.align_corners = mode == 1;   // TFLite's
      p.half_pixel_centers = mode == 2;
      if (mode == 3) p.coordinate = ir::ResizeCoordinate::kHalfPixel;  // ONNX's
      if (mode == 4) p.coordinate = ir::ResizeCoordinate::kPytorchHalfPixel;
      if (mode == 5) {  // a crop reaching past the input: extrapolated
        p.coordinate = ir::ResizeCoordinate::kTfCropAndResize;
        p.roi_start_h = -0.3f;
        p.roi_end_h = 0.8f;
        p.roi_start_w = 0.2f;
        p.roi_end_w = 1.4f;
        p.extrapolation_value = 5.0f;
      }
      const std::vector<float> x = Random(static_cast<size_t>(2) * 5 * 7 * channels, &rng_);
      std::vector<float> want(static_cast<size_t>(2) * 11 * 4 * channels), got(want.size());
      ResizeBilinearRef(p, x.data(), want.data());
      std::vector<x86::ResizeTap> ty, tx;
      x86::ComputeResizeTaps(p, &ty, &tx);
      x86::ResizeBilinearAvx2(p, ty.data(), tx.data(), x.data(), got.data());
      ExpectClose(want, got, "resize channels=" + std::to_string(channels) + " mode " + std::to_string(mode));
      if (mode == 5) {
        EXPECT_GT(std::count(want.begin(), want.end(), 5.0f), 0);
      }
    }
  }
}

// The separable resampling (RESIZE_BICUBIC, antialiased resizes), AVX2 and
// AVX-512 bodies, against the reference on odd channel counts (vector tails;
// 70 = 4 x 16 + 6 takes the 4-vector blocks), enlarging and shrinking, every
// filter, a crop past the input; split into row ranges as threads split it.
TEST_F(X86KernelsTest, ResizeSeparableMatchesReference) {
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  int checked = 0;
  for (int channels : {1, 3, 7, 17, 70}) {
    for (ResizeFilter filter : {ResizeFilter::kCubic, ResizeFilter::kAntialiasLinear, ResizeFilter::kAntialiasCubic}) {
      for (int variant = 0; variant < 4; ++variant) {
        for (const std::vector<int>& out_hw : {std::vector<int>{11, 4}, {3, 16}, {1, 2}}) {
          ResizeSeparableParams p;
          p.batch = 2;
          p.in_h = 5;
          p.in_w = 9;
          p.channels = channels;
          p.out_h = out_hw[0];
          p.out_w = out_hw[1];
          p.filter = filter;
          p.coordinate = variant == 1 ? ir::ResizeCoordinate::kAlignCorners : ir::ResizeCoordinate::kHalfPixel;
          p.exclude_outside = variant == 2;
          if (variant == 3) {
            p.coordinate = ir::ResizeCoordinate::kTfCropAndResize;
            p.roi_start_h = -0.3f;
            p.roi_end_h = 0.8f;
            p.roi_start_w = 0.2f;
            p.roi_end_w = 1.4f;
            p.extrapolation_value = 5.0f;
            p.cubic_coeff_a = -0.5f;
          }
          ResizeTaps rows, cols;
          ComputeResizeSeparableTaps(p, true, &rows);
          ComputeResizeSeparableTaps(p, false, &cols);
          const std::vector<float> x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * channels, &rng_);
          const size_t out_size = static_cast<size_t>(p.batch) * p.out_h * p.out_w * channels;
          std::vector<float> want(out_size);
          ResizeSeparableRef(p, rows, cols, x.data(), want.data());
          const int total = p.batch * p.out_h;
          std::vector<float> scratch(x86::ResizeSeparableScratchFloats(p, rows) + 16);
          float* aligned = scratch.data() + (16 - reinterpret_cast<uintptr_t>(scratch.data()) / 4 % 16) % 16;
          for (int body = 0; body < (avx512 ? 2 : 1); ++body) {
            auto run = body ? x86::ResizeSeparableRowsAvx512 : x86::ResizeSeparableRowsAvx2;
            std::vector<float> got(out_size, 123.0f), split(out_size, 321.0f);
            run(p, rows, cols, x.data(), got.data(), 0, total, aligned);
            run(p, rows, cols, x.data(), split.data(), 0, total / 2, aligned);
            run(p, rows, cols, x.data(), split.data(), total / 2, total, aligned);
            const std::string what = std::string(body ? "avx512" : "avx2") + " channels " + std::to_string(channels) +
                                     " filter " + std::to_string(static_cast<int>(filter)) + " variant " +
                                     std::to_string(variant) + " out " + std::to_string(p.out_h) + "x" +
                                     std::to_string(p.out_w);
            for (size_t i = 0; i < out_size; ++i) {
              ASSERT_NEAR(want[i], got[i], 1e-6f * (1.0f + std::fabs(want[i]))) << what << " at " << i;
            }
            ASSERT_EQ(got, split) << what << ": row ranges changed the result";
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GE(checked, 180);
}

TEST_F(X86KernelsTest, ConvGemmWithoutBiasAndLargeK) {
  ConvCase c{1, 13, 13, 67, 50, 3, 1, 1, ir::Padding::kSame, FusedActivation::kNone};
  const ConvParams p = MakeParams(c, false);
  const int k = 9 * 67;
  const std::vector<float> x = Random(13 * 13 * 67, &rng_), w = Random(50 * k, &rng_);
  std::vector<float> want(13 * 13 * 50), got(13 * 13 * 50);
  Conv2DRef(p, x.data(), w.data(), nullptr, want.data());
  std::vector<float> packed(x86::PackedWeightsFloats(50, k));
  x86::PackWeightsNK(w.data(), 50, k, packed.data());
  std::vector<float> scratch(x86::Conv2DGemmScratchFloats(p));
  x86::Conv2DGemmAvx2(p, x.data(), packed.data(), nullptr, scratch.data(), got.data());
  ExpectClose(want, got, "large k");
}

TEST_F(X86KernelsTest, DepthwiseMatchesReference) {
  int checked = 0;
  for (ConvCase c : Cases()) {
    for (int channels : {1, 3, 7, 8, 17, 33}) {
      c.in_c = channels;
      const ConvParams p = MakeParams(c, true);
      if (p.out_h <= 0 || p.out_w <= 0) continue;
      const std::vector<float> x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * channels, &rng_);
      const std::vector<float> w = Random(static_cast<size_t>(p.kernel_h) * p.kernel_w * channels, &rng_);
      const std::vector<float> bias = Random(channels, &rng_);
      const size_t out_size = static_cast<size_t>(p.batch) * p.out_h * p.out_w * channels;
      std::vector<float> want(out_size), got(out_size);
      DepthwiseConv2DRef(p, x.data(), w.data(), bias.data(), want.data());
      x86::DepthwiseConv2DAvx2(p, x.data(), w.data(), c.out_c % 2 ? bias.data() : nullptr, got.data());
      if (c.out_c % 2 == 0) DepthwiseConv2DRef(p, x.data(), w.data(), nullptr, want.data());
      ExpectClose(want, got, "depthwise channels=" + std::to_string(channels) + " k=" + std::to_string(c.k));
      ++checked;
    }
  }
  EXPECT_GT(checked, 500);
}

// Wide rows, so the AVX-512 row kernel's multi-pixel blocks, its borders and
// its remainders all run; every channel count leaves a different tail mask.
TEST_F(X86KernelsTest, DepthwiseWideRowsMatchReference) {
  int checked = 0;
  for (int k : {3, 5}) {
    for (int stride : {1, 2}) {
      for (ir::Padding pad : {ir::Padding::kSame, ir::Padding::kValid}) {
        for (int channels : {1, 3, 16, 17, 40, 96}) {
          for (int in_w : {6, 7, 14, 23, 40}) {
            const FusedActivation act = (channels + in_w) % 4 == 0   ? FusedActivation::kRelu6
                                        : (channels + in_w) % 4 == 1 ? FusedActivation::kNone
                                        : (channels + in_w) % 4 == 2 ? FusedActivation::kTanh
                                                                     : FusedActivation::kReluN1To1;
            ConvCase c{2, 7, in_w, channels, channels, k, stride, 1, pad, act};
            const ConvParams p = MakeParams(c, true);
            if (p.out_h <= 0 || p.out_w <= 0) continue;
            const std::vector<float> x = Random(static_cast<size_t>(p.batch) * p.in_h * p.in_w * channels, &rng_);
            const std::vector<float> w = Random(static_cast<size_t>(k) * k * channels, &rng_);
            const std::vector<float> bias = Random(channels, &rng_);
            const size_t out_size = static_cast<size_t>(p.batch) * p.out_h * p.out_w * channels;
            std::vector<float> want(out_size), got(out_size, 99.0f), split(out_size, 77.0f);
            DepthwiseConv2DRef(p, x.data(), w.data(), bias.data(), want.data());
            x86::DepthwiseConv2DAvx2(p, x.data(), w.data(), bias.data(), got.data());
            const std::string what = "depthwise k=" + std::to_string(k) + " s=" + std::to_string(stride) +
                                     " c=" + std::to_string(channels) + " w=" + std::to_string(in_w);
            ExpectClose(want, got, what);
            // Row ranges (as threads split them) give the same bits.
            const int rows = p.batch * p.out_h;
            x86::DepthwiseConv2DAvx2Rows(p, x.data(), w.data(), bias.data(), split.data(), 0, rows / 3);
            x86::DepthwiseConv2DAvx2Rows(p, x.data(), w.data(), bias.data(), split.data(), rows / 3, rows);
            ASSERT_EQ(got, split) << what;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 240);
  EXPECT_EQ(x86::DepthwiseConv2DHasAvx512Rows(MakeParams({1, 9, 9, 8, 8, 3, 2, 1, ir::Padding::kSame,
                                                          FusedActivation::kNone}, true)),
            x86::GetCpuFeatures().avx512f);
}

// 5x5 and 7x7 windows (ConvNeXt's depthwise convs are 7x7, BlazePalm's 5x5)
// on the AVX-512 row-taps kernel:
// odd sizes so its 16-, 8-, 4-, 2- and 1-pixel blocks, its checked border
// blocks (pads 0 to 3, uneven) and its channel tails all run, every fused
// activation, batch 2; row ranges split as two threads split them give the
// same bits.
TEST_F(X86KernelsTest, DepthwiseLargeWindowMatchesReference) {
  const FusedActivation acts[] = {FusedActivation::kNone, FusedActivation::kRelu, FusedActivation::kRelu6,
                                  FusedActivation::kReluN1To1, FusedActivation::kTanh};
  int checked = 0, a = 0;
  for (int k : {5, 7}) {
    for (int stride : {1, 2}) {
      for (int pad : {0, 1, 3}) {
        for (int channels : {1, 15, 16, 17, 101}) {
          for (int size : {7, 9, 13, 23, 40}) {
            // Asymmetric shapes and pads: height a bit off the width, the
            // bottom/right pad one less than the top/left one where it can be.
            const int in_h = size + 2, in_w = size;
            const int pad_after = std::max(0, pad - 1);
            ConvParams p;
            p.batch = 2;
            p.in_h = in_h;
            p.in_w = in_w;
            p.in_c = p.out_c = channels;
            p.kernel_h = p.kernel_w = k;
            p.stride_h = p.stride_w = stride;
            p.dilation_h = p.dilation_w = 1;
            p.pad_top = pad;
            p.pad_left = pad;
            p.out_h = (in_h + pad + pad_after - k) / stride + 1;
            p.out_w = (in_w + pad + pad_after - k) / stride + 1;
            p.activation = acts[a++ % 5];
            if (p.out_h <= 0 || p.out_w <= 0) continue;
            const std::vector<float> x = Random(static_cast<size_t>(p.batch) * in_h * in_w * channels, &rng_);
            const std::vector<float> w = Random(static_cast<size_t>(k) * k * channels, &rng_);
            const std::vector<float> bias = Random(channels, &rng_);
            const float* b = channels % 2 ? bias.data() : nullptr;  // with and without bias
            const size_t out_size = static_cast<size_t>(p.batch) * p.out_h * p.out_w * channels;
            std::vector<float> want(out_size), got(out_size, 99.0f), split(out_size, 77.0f);
            DepthwiseConv2DRef(p, x.data(), w.data(), b, want.data());
            x86::DepthwiseConv2DAvx2(p, x.data(), w.data(), b, got.data());
            const std::string what = "depthwise k=" + std::to_string(k) + " s=" + std::to_string(stride) +
                                     " pad=" + std::to_string(pad) + " c=" + std::to_string(channels) +
                                     " w=" + std::to_string(in_w);
            ExpectClose(want, got, what);
            const int rows = p.batch * p.out_h;
            x86::DepthwiseConv2DAvx2Rows(p, x.data(), w.data(), b, split.data(), 0, rows / 2 + 1);
            x86::DepthwiseConv2DAvx2Rows(p, x.data(), w.data(), b, split.data(), rows / 2 + 1, rows);
            ASSERT_EQ(got, split) << what;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 300);
  const ConvParams s1 = MakeParams({1, 56, 56, 96, 96, 7, 1, 1, ir::Padding::kSame, FusedActivation::kNone}, true);
  const ConvParams s2 = MakeParams({1, 56, 56, 96, 96, 7, 2, 1, ir::Padding::kSame, FusedActivation::kNone}, true);
  const ConvParams d2 = MakeParams({1, 56, 56, 96, 96, 7, 1, 2, ir::Padding::kSame, FusedActivation::kNone}, true);
  const ConvParams k3 = MakeParams({1, 56, 56, 96, 96, 3, 1, 1, ir::Padding::kSame, FusedActivation::kNone}, true);
  const ConvParams k5 = MakeParams({1, 56, 56, 96, 96, 5, 2, 1, ir::Padding::kSame, FusedActivation::kNone}, true);
  const bool avx512 = x86::GetCpuFeatures().avx512f;
  EXPECT_STREQ(x86::DepthwiseConv2DIsa(s1), avx512 ? "avx512_rowtaps" : "avx2");
  EXPECT_STREQ(x86::DepthwiseConv2DIsa(s2), avx512 ? "avx512_rowtaps" : "avx2");
  EXPECT_STREQ(x86::DepthwiseConv2DIsa(d2), "avx2");  // dilation: the per-pixel path
  EXPECT_STREQ(x86::DepthwiseConv2DIsa(k3), "avx2");  // 3x3: the two-row kernel
  EXPECT_STREQ(x86::DepthwiseConv2DIsa(k5), avx512 ? "avx512_rowtaps" : "avx2");
  EXPECT_EQ(x86::DepthwiseConv2DHasAvx512Rows(s1), avx512);
  EXPECT_FALSE(x86::DepthwiseConv2DHasAvx512Rows(d2));
}

TEST_F(X86KernelsTest, FullyConnectedGemmMatchesReference) {
  for (int batch : {1, 2, 7}) {
    for (int in_dim : {1, 3, 17, 100}) {
      for (int out_dim : {1, 7, 16, 33}) {
        const std::vector<float> x = Random(batch * in_dim, &rng_), w = Random(out_dim * in_dim, &rng_),
                                 bias = Random(out_dim, &rng_);
        std::vector<float> want(batch * out_dim), got(batch * out_dim);
        FullyConnectedRef(batch, in_dim, out_dim, FusedActivation::kRelu, x.data(), w.data(), bias.data(),
                          want.data());
        std::vector<float> packed(x86::PackedWeightsFloats(out_dim, in_dim));
        x86::PackWeightsNK(w.data(), out_dim, in_dim, packed.data());
        x86::GemmF32Avx2(batch, out_dim, in_dim, x.data(), in_dim, packed.data(), bias.data(), FusedActivation::kRelu,
                         got.data(), out_dim);
        ExpectClose(want, got, "fc");
      }
    }
  }
}

}  // namespace
}  // namespace rill::inference::cpu
