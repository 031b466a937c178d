// The AVX-512 attention heads (kernels/x86/f32_attention_avx512.h) against a
// scalar double-precision attention and against the packed-GEMM path they
// replace (6x32 GEMM over packed K, scale, bias, softmax, 6x32 GEMM over
// packed V; the heads divide by the softmax's sum after P V instead, so
// the two differ by roundings); the 16 x 16 transposes against a scalar
// transpose. Odd
// shapes: partial 16-lane vectors and 64-column blocks, one key, more rows
// than a row block, operands inside wider rows (Q, K and V as columns of one
// QKV matrix), K stored transposed, a bias shared by all queries or one per
// query.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_attention_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_binary_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"
#include "tests/inference/test_util.h"

namespace rill::inference::cpu {
namespace {

class X86AttentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "CPU has no AVX-512F: the attention heads are not used here";
  }
};

TEST_F(X86AttentionTest, TransposeMatchesScalar) {
  std::mt19937 rng(7);
  struct Case {
    int rows, cols, ld_in;
  };
  for (const Case& c : {Case{1, 1, 1}, Case{16, 16, 16}, Case{17, 5, 9}, Case{33, 64, 64}, Case{197, 64, 2304},
                        Case{40, 37, 37}}) {
    const std::vector<float> in = testing::RandomFloats(static_cast<size_t>(c.rows) * c.ld_in, &rng);
    const int rows16 = (c.rows + 15) / 16 * 16;
    const int ld_out = rows16 + 16;
    std::vector<float> out(static_cast<size_t>(c.cols) * ld_out, 42.0f);
    x86::TransposeToRowsAvx512(in.data(), c.rows, c.cols, c.ld_in, out.data(), ld_out);
    for (int j = 0; j < c.cols; ++j) {
      for (int i = 0; i < ld_out; ++i) {
        const float want = i < c.rows ? in[static_cast<size_t>(i) * c.ld_in + j] : i < rows16 ? 0.0f : 42.0f;
        ASSERT_EQ(out[static_cast<size_t>(j) * ld_out + i], want)
            << c.rows << "x" << c.cols << " at column " << j << " row " << i;
      }
    }
  }
}

struct HeadCase {
  int m, n, d, dv;
  bool k_transposed;
  int bias;    // 0 none, 1 one row for all queries, 2 a row per query
  int extra;   // floats of other data in each row of Q, K and V (a QKV matrix)
  float scale;
};

std::string Name(const HeadCase& c) {
  return "m" + std::to_string(c.m) + " n" + std::to_string(c.n) + " d" + std::to_string(c.d) + " dv" +
         std::to_string(c.dv) + (c.k_transposed ? " kT" : "") + " bias" + std::to_string(c.bias) + " extra" +
         std::to_string(c.extra);
}

// The operands of one head and what it computes.
struct HeadData {
  std::vector<float> q, k, v, bias, out;
  AttentionHead h;
};

HeadData MakeHead(const HeadCase& c, std::mt19937* rng) {
  HeadData t;
  AttentionHead& h = t.h;
  h.m = c.m;
  h.n = c.n;
  h.d = c.d;
  h.dv = c.dv;
  h.ldq = c.d + c.extra;
  h.k_transposed = c.k_transposed;
  h.ldk = (c.k_transposed ? c.n : c.d) + c.extra;
  h.ldv = c.dv + c.extra;
  h.ldo = c.dv + 3;
  h.scale = c.scale;
  t.q = testing::RandomFloats(static_cast<size_t>(c.m) * h.ldq, rng, -2.0f, 2.0f);
  t.k = testing::RandomFloats(static_cast<size_t>(c.k_transposed ? c.d : c.n) * h.ldk, rng, -2.0f, 2.0f);
  t.v = testing::RandomFloats(static_cast<size_t>(c.n) * h.ldv, rng);
  if (c.bias != 0) {
    h.bias_per_query = c.bias == 2;
    h.bias_ld = c.n + 5;
    t.bias = testing::RandomFloats(static_cast<size_t>(c.bias == 2 ? c.m : 1) * h.bias_ld, rng);
  }
  t.out.assign(static_cast<size_t>(c.m) * h.ldo, -7.0f);
  h.q = t.q.data();
  h.k = t.k.data();
  h.v = t.v.data();
  h.bias = c.bias != 0 ? t.bias.data() : nullptr;
  h.out = t.out.data();
  return t;
}

float KeyAt(const AttentionHead& h, int j, int p) {
  return h.k_transposed ? h.k[static_cast<long long>(p) * h.ldk + j] : h.k[static_cast<long long>(j) * h.ldk + p];
}
const float* BiasRow(const AttentionHead& h, int i) {
  return h.bias == nullptr ? nullptr : h.bias_per_query ? h.bias + i * h.bias_ld : h.bias;
}

// softmax(scale * q k^T + bias) v in double.
std::vector<double> Reference(const AttentionHead& h) {
  std::vector<double> out(static_cast<size_t>(h.m) * h.dv);
  std::vector<double> s(h.n);
  for (int i = 0; i < h.m; ++i) {
    double mx = -INFINITY;
    for (int j = 0; j < h.n; ++j) {
      double dot = 0;
      for (int p = 0; p < h.d; ++p) dot += static_cast<double>(h.q[i * h.ldq + p]) * KeyAt(h, j, p);
      s[j] = dot * h.scale + (h.bias ? BiasRow(h, i)[j] : 0.0);
      mx = std::max(mx, s[j]);
    }
    double sum = 0;
    for (int j = 0; j < h.n; ++j) sum += (s[j] = std::exp(s[j] - mx));
    for (int c = 0; c < h.dv; ++c) {
      double acc = 0;
      for (int j = 0; j < h.n; ++j) acc += s[j] / sum * h.v[j * h.ldv + c];
      out[static_cast<size_t>(i) * h.dv + c] = acc;
    }
  }
  return out;
}

// The path the heads replace: K and V packed into the 6x32 GEMM's panels,
// scores scaled and biased in passes of their own, the same softmax.
std::vector<float> PackedGemmPath(const AttentionHead& h) {
  std::vector<float> kmat(static_cast<size_t>(h.n) * h.d), vmat(static_cast<size_t>(h.n) * h.dv);
  for (int j = 0; j < h.n; ++j) {
    for (int p = 0; p < h.d; ++p) kmat[static_cast<size_t>(j) * h.d + p] = KeyAt(h, j, p);
    for (int c = 0; c < h.dv; ++c) vmat[static_cast<size_t>(j) * h.dv + c] = h.v[j * h.ldv + c];
  }
  std::vector<float> pk(x86::PackedWeightsFloats512(h.n, h.d)), pv(x86::PackedWeightsFloats512(h.dv, h.n));
  x86::PackWeightsNK512(kmat.data(), h.n, h.d, pk.data());
  PackPanelsKN<x86::kGemm512Nr>(vmat.data(), h.n, h.dv, pv.data());
  std::vector<float> s(static_cast<size_t>(h.m) * h.n), out(static_cast<size_t>(h.m) * h.dv);
  x86::GemmF32Avx512(h.m, h.n, h.d, h.q, static_cast<int>(h.ldq), pk.data(), nullptr, FusedActivation::kNone,
                     s.data(), h.n);
  for (int i = 0; i < h.m; ++i) {
    float* row = s.data() + static_cast<size_t>(i) * h.n;
    if (h.scale != 1.0f) x86::BinaryAvx2(BinaryKind::kMul, h.n, row, &h.scale, 1, FusedActivation::kNone, row);
    if (h.bias) x86::BinaryAvx2(BinaryKind::kAdd, h.n, row, BiasRow(h, i), h.n, FusedActivation::kNone, row);
  }
  x86::SoftmaxAvx512(h.m, h.n, 1, s.data(), s.data(), 0, h.m);
  x86::GemmF32Avx512(h.m, h.dv, h.n, s.data(), h.n, pv.data(), nullptr, FusedActivation::kNone, out.data(), h.dv);
  return out;
}

TEST_F(X86AttentionTest, HeadsMatchReferenceAndPackedGemmPath) {
  std::mt19937 rng(11);
  const float vit_scale = 0.125f;
  for (const HeadCase& c : {
           HeadCase{197, 197, 64, 64, false, 0, 0, vit_scale},        // ViT-B/16's heads
           HeadCase{197, 197, 64, 64, false, 0, 2 * 768 + 64 * 11, vit_scale},  // read inside QKV rows
           HeadCase{49, 49, 32, 32, false, 2, 0, 0.17677669f},        // Swin's windows, a bias per query
           HeadCase{5, 37, 3, 9, false, 1, 4, 1.0f},                  // partial vectors everywhere
           HeadCase{9, 37, 5, 3, true, 1, 3, 0.5f},                   // K stored transposed
           HeadCase{100, 1, 7, 20, false, 2, 0, 2.0f},                // one key
           HeadCase{130, 300, 100, 80, false, 0, 1, 0.1f},            // 5 key blocks, 2 dv blocks, 3 row blocks
           HeadCase{1, 197, 64, 64, true, 0, 0, vit_scale},           // one query
       }) {
    HeadData t = MakeHead(c, &rng);
    std::vector<float> keys(x86::AttentionKeysFloatsAvx512(c.n, c.d));
    std::vector<float> scores(x86::AttentionScoresFloatsAvx512(c.n));
    x86::AttentionKeysAvx512(t.h, keys.data());
    // In two calls, split inside a row block.
    const int split = c.m / 3;
    x86::AttentionRowsAvx512(t.h, keys.data(), 0, split, scores.data());
    x86::AttentionRowsAvx512(t.h, keys.data(), split, c.m, scores.data());
    const std::vector<double> want = Reference(t.h);
    const std::vector<float> packed = PackedGemmPath(t.h);
    for (int i = 0; i < c.m; ++i) {
      for (int col = 0; col < c.dv + 3; ++col) {
        const float got = t.out[static_cast<size_t>(i) * t.h.ldo + col];
        if (col >= c.dv) {
          ASSERT_EQ(got, -7.0f) << Name(c) << ": wrote past dv in row " << i;
          continue;
        }
        const size_t at = static_cast<size_t>(i) * c.dv + col;
        // |v| <= 1: the outputs (weighted means of v) too.
        ASSERT_NEAR(got, want[at], 2e-6) << Name(c) << " row " << i << " col " << col;
        ASSERT_NEAR(got, packed[at], 2e-6) << Name(c) << " row " << i << " col " << col;
      }
    }
  }
}

TEST_F(X86AttentionTest, TableOffersTheHeads) {
  const CpuKernels& k = CpuKernelsFor(AlgorithmPolicy::kAuto);
  ASSERT_NE(k.attention.rows, nullptr);
  EXPECT_STREQ(k.attention.name, "avx512");
  EXPECT_EQ(CpuKernelsFor(AlgorithmPolicy::kReference).attention.rows, nullptr);
}

}  // namespace
}  // namespace rill::inference::cpu
