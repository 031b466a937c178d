// The data-movement fast paths (pooling, MEAN, TRANSPOSE, PAD) against the
// reference kernels: same results bit for bit, on odd shapes.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/test_util.h"
#include "inference/backend/cpu/kernels/ref/concatenation.h"
#include "inference/backend/cpu/kernels/ref/mean.h"
#include "inference/backend/cpu/kernels/ref/pad.h"
#include "inference/backend/cpu/kernels/ref/pooling.h"
#include "inference/backend/cpu/kernels/ref/transpose.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_data_avx2.h"

namespace rill::inference::cpu {
namespace {

std::vector<float> Random(size_t n, std::mt19937* rng) { return testing::RandomFloats(n, rng, -2.0f, 2.0f); }

long long Product(const int* dims, int rank) {
  long long n = 1;
  for (int d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

class X86DataKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!x86::HasAvx2Fma()) GTEST_SKIP() << "CPU has no AVX2/FMA";
  }
  std::mt19937 rng_{7};
};

TEST_F(X86DataKernelsTest, PoolingMatchesReferenceExactly) {
  int checked = 0;
  for (int channels : {1, 3, 17, 28, 64, 80, 130}) {  // AVX-512: groups of 64, masked tails
    for (int k : {1, 2, 3}) {
      for (int stride : {1, 2}) {
        for (int pad : {0, 1}) {
          PoolParams p;
          p.batch = 2;
          p.in_h = 9;
          p.in_w = 12;
          p.channels = channels;
          p.kernel_h = p.kernel_w = k;
          p.stride_h = p.stride_w = stride;
          p.pad_top = p.pad_left = pad;
          p.out_h = (p.in_h + 2 * pad - k) / stride + 1;
          p.out_w = (p.in_w + 2 * pad - k) / stride + 1;
          p.activation = channels == 3 ? FusedActivation::kRelu6 : FusedActivation::kNone;
          const std::vector<float> x = Random(static_cast<size_t>(2) * 9 * 12 * channels, &rng_);
          const size_t out = static_cast<size_t>(2) * p.out_h * p.out_w * channels;
          std::vector<float> want(out), got(out, 9.0f);
          MaxPool2DRef(p, x.data(), want.data());
          x86::MaxPool2DAvx2Rows(p, x.data(), got.data(), 0, 3);
          x86::MaxPool2DAvx2Rows(p, x.data(), got.data(), 3, 2 * p.out_h);
          ASSERT_EQ(want, got) << "max c=" << channels << " k=" << k << " s=" << stride << " pad=" << pad;
          AveragePool2DRef(p, x.data(), want.data());
          x86::AveragePool2DAvx2Rows(p, x.data(), got.data(), 0, 2 * p.out_h);
          ASSERT_EQ(want, got) << "avg c=" << channels << " k=" << k << " s=" << stride << " pad=" << pad;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 7 * 12);
}

TEST_F(X86DataKernelsTest, MeanOverOneRunOfAxesMatchesReferenceExactly) {
  const int dims[4] = {2, 7, 5, 17};
  int fast = 0;
  for (int mask = 1; mask < 16; ++mask) {
    ReduceParams p;
    p.rank = 4;
    for (int d = 0; d < 4; ++d) {
      p.in_dims[d] = dims[d];
      p.reduce[d] = (mask >> d) & 1;
    }
    long long out_size = 1;
    for (int d = 0; d < 4; ++d) out_size *= p.reduce[d] ? 1 : dims[d];
    const std::vector<float> x = Random(Product(dims, 4), &rng_);
    std::vector<float> want(out_size), got(out_size, 5.0f);
    MeanRef(p, x.data(), want.data());
    const bool run = mask == 1 || mask == 2 || mask == 3 || mask == 4 || mask == 6 || mask == 7 || mask == 8 ||
                     mask == 12 || mask == 14 || mask == 15;
    x86::MeanPlan plan;
    ASSERT_EQ(x86::PlanContiguousMean(p, &plan), run) << "mask " << mask;
    if (run) {
      x86::MeanContiguousAvx2(plan, x.data(), got.data());
      ASSERT_EQ(want, got) << "mask " << mask;
      ++fast;
    }
  }
  EXPECT_EQ(fast, 10);
}

TEST_F(X86DataKernelsTest, TransposeOfEveryPermutationMatchesReference) {
  int batched = 0, total = 0;
  for (int rank = 1; rank <= 5; ++rank) {
    for (int variant = 0; variant < 2; ++variant) {
      TransposeParams p;
      p.rank = rank;
      const int sizes[5] = {3, 1, 4, 5, 2};
      for (int d = 0; d < rank; ++d) p.in_dims[d] = variant == 0 ? sizes[d] : 2 + (d * 3) % 5;
      std::vector<int> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      do {
        for (int d = 0; d < rank; ++d) p.perm[d] = perm[d];
        const std::vector<float> x = Random(Product(p.in_dims, rank), &rng_);
        std::vector<float> want(x.size()), got(x.size(), 3.0f);
        TransposeRef(p, x.data(), want.data());
        x86::TransposePlan plan;
        const bool fast = x86::PlanBatched2DTranspose(p, &plan);
        if (fast) {
          x86::TransposeBatched2D(plan, x.data(), got.data());
          std::string what = "perm";
          for (int v : perm) what += " " + std::to_string(v);
          ASSERT_EQ(want, got) << what << " rank " << rank << " variant " << variant;
          ++batched;
        }
        ++total;
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
  EXPECT_GT(batched, 60);
  EXPECT_LT(batched, total);
  // NCHW -> NHWC and back are batched 2-D transposes.
  TransposeParams nchw;
  nchw.rank = 4;
  const int d[4] = {1, 3, 224, 224}, to_nhwc[4] = {0, 2, 3, 1};
  for (int i = 0; i < 4; ++i) {
    nchw.in_dims[i] = d[i];
    nchw.perm[i] = to_nhwc[i];
  }
  x86::TransposePlan plan;
  EXPECT_TRUE(x86::PlanBatched2DTranspose(nchw, &plan));
}

// Images NCHW -> NHWC (few rows: the AVX-512 permute path) and other
// batched 2-D transposes, whole and in column pieces as threads run them.
TEST_F(X86DataKernelsTest, TransposeColumnPiecesMatchReference) {
  int checked = 0;
  for (int c : {1, 2, 3, 4, 5, 17}) {
    for (int hw : {1, 7, 16, 35, 224}) {
      TransposeParams p;
      p.rank = 4;
      const int dims[4] = {2, c, hw, 3}, perm[4] = {0, 2, 3, 1};
      for (int i = 0; i < 4; ++i) {
        p.in_dims[i] = dims[i];
        p.perm[i] = perm[i];
      }
      const std::vector<float> x = Random(Product(p.in_dims, 4), &rng_);
      std::vector<float> want(x.size()), whole(x.size(), 3.0f), pieces(x.size(), 4.0f);
      TransposeRef(p, x.data(), want.data());
      x86::TransposePlan plan;
      ASSERT_TRUE(x86::PlanBatched2DTranspose(p, &plan));
      x86::TransposeBatched2D(plan, x.data(), whole.data());
      ASSERT_EQ(want, whole) << "c=" << c << " hw=" << hw;
      const long long cut = std::min<long long>(plan.cols, 16), cut2 = std::min<long long>(plan.cols, 37);
      x86::TransposeBatched2DColumns(plan, x.data(), pieces.data(), 0, cut);
      x86::TransposeBatched2DColumns(plan, x.data(), pieces.data(), cut, cut2);
      x86::TransposeBatched2DColumns(plan, x.data(), pieces.data(), cut2, plan.cols);
      ASSERT_EQ(want, pieces) << "pieces c=" << c << " hw=" << hw;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 30);
}

TEST_F(X86DataKernelsTest, PadCopyMatchesReference) {
  int checked = 0;
  for (int rank = 1; rank <= 4; ++rank) {
    for (int pattern = 0; pattern < 16; ++pattern) {
      PadParams p;
      p.rank = rank;
      p.value = pattern % 3 == 0 ? 0.0f : -1.5f;
      for (int d = 0; d < rank; ++d) {
        p.in_dims[d] = (pattern == 7 && d == 0) ? 0 : 2 + (d + pattern) % 3;
        p.before[d] = ((pattern >> d) & 1) ? 1 + d % 2 : 0;
        p.after[d] = ((pattern >> (d + 1)) & 1) ? 2 : 0;
      }
      long long out_size = 1;
      for (int d = 0; d < rank; ++d) out_size *= p.before[d] + p.in_dims[d] + p.after[d];
      const std::vector<float> x = Random(Product(p.in_dims, rank), &rng_);
      std::vector<float> want(out_size), got(out_size, 8.0f);
      PadRef(p, x.data(), want.data());
      x86::PadCopy(p, x.data(), got.data());
      ASSERT_EQ(want, got) << "rank " << rank << " pattern " << pattern;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 64);
}

TEST_F(X86DataKernelsTest, ConcatenationCopyMatchesReference) {
  for (long long outer : {1, 7}) {
    const long long chunk[3] = {3, 16, 1};
    const std::vector<float> a = Random(outer * 3, &rng_), b = Random(outer * 16, &rng_), c = Random(outer, &rng_);
    const float* inputs[3] = {a.data(), b.data(), c.data()};
    std::vector<float> want(outer * 20), got(outer * 20, 4.0f);
    ConcatenationRef(3, inputs, chunk, outer, FusedActivation::kNone, want.data());
    x86::ConcatenationCopy(3, inputs, chunk, outer, got.data());
    ASSERT_EQ(want, got) << "outer " << outer;
  }
}

}  // namespace
}  // namespace rill::inference::cpu
