// The vector exp / logistic / tanh of kernels/x86/f32_math.h against exp and
// tanh in double over a dense sweep (every 1/64 on [-100, 100]), the
// thresholds, special values and random bit patterns, on AVX2 and AVX-512
// (bit-identical); the LOGISTIC, tanh and SOFTMAX kernels against the
// reference kernels on odd sizes; the CPU ops' kernel choice and their bits
// at 1 and 2 threads.
//
// Bounds (the measured maxima over all 2^32 floats are 1.07, 2.48 and 1.33
// ulp): Exp <= 2 ulp, Sigmoid <= 3 ulp, Tanh <= 2 ulp of the exact value,
// where an ulp is that of the exact value as a float; exact values below
// FLT_MIN (denormal results, which the engine flushes) only within FLT_MIN.
#include <immintrin.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/ref/activations.h"
#include "inference/backend/cpu/kernels/ref/softmax.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_math.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference::cpu {
namespace {

enum class Fn { kExp, kSigmoid, kTanh };

const char* Name(Fn f) { return f == Fn::kExp ? "Exp" : f == Fn::kSigmoid ? "Sigmoid" : "Tanh"; }

// The function on n floats (n % 16 == 0) through 8- or 16-lane vectors.
__attribute__((target("avx2,fma"))) void RunAvx2(Fn f, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    _mm256_storeu_ps(y + i, f == Fn::kExp       ? x86::vmath::Exp(v)
                            : f == Fn::kSigmoid ? x86::vmath::Sigmoid(v)
                                                : x86::vmath::Tanh(v));
  }
}
__attribute__((target("avx512f"))) void RunAvx512(Fn f, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    _mm512_storeu_ps(y + i, f == Fn::kExp       ? x86::vmath::Exp(v)
                            : f == Fn::kSigmoid ? x86::vmath::Sigmoid(v)
                                                : x86::vmath::Tanh(v));
  }
}

double Exact(Fn f, double x) {
  switch (f) {
    case Fn::kExp: return std::exp(x);
    case Fn::kSigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Fn::kTanh: return std::tanh(x);
  }
  return 0.0;
}

// The ulp of the float nearest to y (|y| >= FLT_MIN).
double UlpOf(double y) {
  int e;
  std::frexp(std::fabs(y), &e);
  return std::ldexp(1.0, e - 24);
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The inputs: every 1/64 on [-100, 100]; around the thresholds (exp's
// overflow, FLT_MIN, underflow, clamps; tanh's branch point and its
// saturation) 64 neighbouring floats each side; special values; 2^16 random
// bit patterns. Padded to a multiple of 16 with zeros.
std::vector<float> Inputs() {
  std::vector<float> x;
  for (int i = -6400; i <= 6400; ++i) x.push_back(static_cast<float>(i) / 64.0f);
  const float around[] = {88.7228394f, -87.3365479f, -103.972076f, 89.0f, -104.0f, 0.625f, 9.01091290f,
                          44.3614197f, 16.6355324f,  0.346573591f, 1e-4f, 1e-20f, 3e-38f};
  for (float t : around) {
    for (float s : {t, -t}) {
      float lo = s, hi = s;
      for (int i = 0; i < 64; ++i) {
        lo = std::nextafter(lo, -INFINITY);
        hi = std::nextafter(hi, INFINITY);
        x.push_back(lo);
        x.push_back(hi);
      }
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(), FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
                            FromBits(1), FromBits(0x80000001u), FLT_EPSILON, 1e10f, -1e10f, 1e30f, -1e30f};
  for (float s : specials) x.push_back(s);
  std::mt19937 rng(5);
  for (int i = 0; i < 65536; ++i) x.push_back(FromBits(static_cast<uint32_t>(rng())));
  while (x.size() % 16) x.push_back(0.0f);
  return x;
}

// Max error in ulp of y over x; fails on NaN, overflow and sign mistakes, on
// tiny results off by more than FLT_MIN and on errors above `bound` (the
// first few named).
double MaxUlp(Fn f, const std::vector<float>& x, const std::vector<float>& y, double bound, const std::string& isa) {
  double worst = 0.0;
  int misses = 0;
  for (size_t i = 0; i < x.size() && misses < 5; ++i) {
    const double want = Exact(f, x[i]);
    const std::string where = std::string(Name(f)) + " " + isa + " at x = " + std::to_string(x[i]);
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      misses += std::isnan(x[i]) != std::isnan(y[i]);
      EXPECT_EQ(std::isnan(x[i]), std::isnan(y[i])) << where;
      continue;
    }
    if (std::fabs(want) > FLT_MAX) {  // overflows: exp above 88.72
      misses += y[i] != static_cast<float>(want);
      EXPECT_EQ(y[i], static_cast<float>(want)) << where;
      continue;
    }
    if (std::fabs(want) < FLT_MIN) {
      misses += std::fabs(y[i] - want) > FLT_MIN;
      EXPECT_LE(std::fabs(y[i] - want), FLT_MIN) << where;
      continue;
    }
    const double err = std::fabs(y[i] - want) / UlpOf(want);
    if (err > worst) worst = err;
    if (err > bound) {
      ++misses;
      ADD_FAILURE() << where << ": " << y[i] << " want " << want << ", " << err << " ulp";
    }
  }
  return worst;
}

class X86MathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!x86::HasAvx2Fma()) GTEST_SKIP() << "CPU has no AVX2/FMA";
  }
};

TEST_F(X86MathTest, WithinUlpBoundsOnBothIsas) {
  const std::vector<float> x = Inputs();
  for (Fn f : {Fn::kExp, Fn::kSigmoid, Fn::kTanh}) {
    const double bound = f == Fn::kSigmoid ? 3.0 : 2.0;
    std::vector<float> y(x.size());
    RunAvx2(f, x.data(), y.data(), x.size());
    const double worst = MaxUlp(f, x, y, bound, "avx2");
    RecordProperty(std::string(Name(f)) + "_max_ulp", std::to_string(worst));
    if (!x86::GetCpuFeatures().avx512f) continue;
    std::vector<float> y512(x.size());
    RunAvx512(f, x.data(), y512.data(), x.size());
    // The same operations on 16 lanes: the same bits (NaNs compared as NaNs).
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(y[i]) && std::isnan(y512[i])) continue;
      ASSERT_EQ(std::memcmp(&y[i], &y512[i], 4), 0) << Name(f) << " at " << x[i] << ": " << y[i] << " vs " << y512[i];
    }
  }
}

// ExpScalef (the attention heads' softmax): Exp's bits wherever Exp's result
// is a normal float, within FLT_MIN of it below; +inf, 0 and NaN alike.
__attribute__((target("avx512f"))) void ExpScalefAvx512(const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i += 16) _mm512_storeu_ps(y + i, x86::vmath::ExpScalef(_mm512_loadu_ps(x + i)));
}
TEST_F(X86MathTest, ExpScalefIsExpWhereNormal) {
  if (!x86::GetCpuFeatures().avx512f) GTEST_SKIP() << "CPU has no AVX-512F";
  std::vector<float> x = Inputs();
  for (float v : {-87.0f, -87.5f, -88.0f, -95.0f, -103.9f, -104.0f, -200.0f, -INFINITY, INFINITY, 88.7f, 89.0f,
                  0.0f, -0.0f, NAN}) {
    x.push_back(v);
  }
  while (x.size() % 16 != 0) x.push_back(0.5f);
  std::vector<float> want(x.size()), got(x.size());
  RunAvx512(Fn::kExp, x.data(), want.data(), x.size());
  ExpScalefAvx512(x.data(), got.data(), x.size());
  int subnormal = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << x[i];
    } else if (std::fabs(want[i]) >= FLT_MIN || std::isinf(want[i])) {
      ASSERT_EQ(std::memcmp(&want[i], &got[i], 4), 0) << x[i] << ": " << want[i] << " vs " << got[i];
    } else {
      ++subnormal;
      ASSERT_GE(got[i], 0.0f) << x[i];
      ASSERT_LE(std::fabs(static_cast<double>(got[i]) - std::exp(static_cast<double>(x[i]))), FLT_MIN) << x[i];
    }
  }
  EXPECT_GT(subnormal, 0) << "the inputs reached no result under FLT_MIN";
}

TEST_F(X86MathTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  alignas(32) float x[16] = {0.0f, -0.0f, inf, -inf, nan, 100.0f, -100.0f, 89.0f,
                             -89.0f, 1e30f, -1e30f, 10.0f, -10.0f, 88.8f, -200.0f, 1.0f};
  float e[16], s[16], t[16];
  RunAvx2(Fn::kExp, x, e, 16);
  RunAvx2(Fn::kSigmoid, x, s, 16);
  RunAvx2(Fn::kTanh, x, t, 16);
  EXPECT_EQ(e[0], 1.0f);  // exactly: softmax's maximum gives 1
  EXPECT_EQ(e[1], 1.0f);
  EXPECT_EQ(e[2], inf);
  EXPECT_EQ(e[3], 0.0f);
  EXPECT_TRUE(std::isnan(e[4]));
  EXPECT_EQ(e[5], inf);
  EXPECT_LE(e[6], FLT_MIN);  // 3.7e-44: a denormal (0 where the engine flushes them)
  EXPECT_EQ(e[9], inf);
  EXPECT_EQ(e[10], 0.0f);
  EXPECT_EQ(e[13], inf);
  EXPECT_EQ(e[14], 0.0f);
  EXPECT_EQ(s[0], 0.5f);
  EXPECT_EQ(s[2], 1.0f);
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_TRUE(std::isnan(s[4]));
  EXPECT_EQ(s[5], 1.0f);
  EXPECT_EQ(s[6], 0.0f);  // not NaN: exp(100) is inf and 1 / inf is 0
  EXPECT_EQ(s[9], 1.0f);
  EXPECT_EQ(s[10], 0.0f);
  EXPECT_EQ(s[14], 0.0f);
  EXPECT_EQ(t[0], 0.0f);
  EXPECT_FALSE(std::signbit(t[0]));
  EXPECT_EQ(t[1], 0.0f);
  EXPECT_TRUE(std::signbit(t[1]));  // tanh(-0) = -0
  EXPECT_EQ(t[2], 1.0f);
  EXPECT_EQ(t[3], -1.0f);
  EXPECT_TRUE(std::isnan(t[4]));
  EXPECT_EQ(t[5], 1.0f);
  EXPECT_EQ(t[6], -1.0f);
  EXPECT_EQ(t[11], 1.0f);
  EXPECT_EQ(t[12], -1.0f);
  // Near 0 the relative error stays small (no 1 - 2/(e+1) cancellation).
  const float tiny[16] = {1e-3f, -1e-3f, 1e-6f, -1e-6f, 1e-12f, 3e-38f, 0.1f, -0.1f,
                          0.3f, 0.5f, 0.62f, 0.63f, 2e-5f, 7e-4f, 0.01f, -0.01f};
  float got[16];
  RunAvx2(Fn::kTanh, tiny, got, 16);
  for (int i = 0; i < 16; ++i) {
    const double want = std::tanh(static_cast<double>(tiny[i]));
    EXPECT_LE(std::fabs(got[i] - want), 2.0 * UlpOf(want)) << "tanh(" << tiny[i] << ")";
  }
}

// Both ISAs' kernel entry points on one call.
struct Isa {
  const char* name;
  bool avx512;
};
std::vector<Isa> Isas() {
  std::vector<Isa> v = {{"avx2", false}};
  if (x86::GetCpuFeatures().avx512f) v.push_back({"avx512", true});
  return v;
}

// Within `ulps` float ulps of `want` (which is a float result), or both tiny.
void ExpectUlps(float want, float got, int ulps, const std::string& what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what;
    return;
  }
  const double tol = ulps * (std::fabs(want) < FLT_MIN ? FLT_MIN : UlpOf(want));
  EXPECT_LE(std::fabs(static_cast<double>(got) - want), tol) << what << ": want " << want << " got " << got;
}

// LOGISTIC against LogisticRef on odd sizes (the tail through masked
// loads/stores: the floats after n stay untouched), inputs over [-30, 30]
// with large magnitudes mixed in; in place too.
TEST_F(X86MathTest, LogisticMatchesReference) {
  std::mt19937 rng(11);
  for (const Isa& isa : Isas()) {
    for (long long n : {1LL, 3LL, 7LL, 17LL, 1000LL}) {
      std::vector<float> x = testing::RandomFloats(static_cast<size_t>(n), &rng, -30.0f, 30.0f);
      if (n > 3) {
        x[1] = -100.0f;
        x[2] = 100.0f;
        x[3] = -88.5f;  // 1 / exp(88.5): a denormal, 0 once flushed
      }
      std::vector<float> want(x.size());
      LogisticRef(n, x.data(), want.data());
      std::vector<float> got(x.size() + 16, 123.0f);
      if (isa.avx512) x86::LogisticAvx512(n, x.data(), got.data());
      else x86::LogisticAvx2(n, x.data(), got.data());
      for (long long i = 0; i < n; ++i) {
        const std::string what = std::string(isa.name) + " n " + std::to_string(n) + " x " + std::to_string(x[i]);
        ExpectUlps(want[i], got[i], 4, what);
      }
      for (size_t i = x.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 123.0f) << "wrote past n at " << i;
      std::vector<float> in_place = x;
      if (isa.avx512) x86::LogisticAvx512(n, in_place.data(), in_place.data());
      else x86::LogisticAvx2(n, in_place.data(), in_place.data());
      EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + n), in_place);
      if (n > 3) {
        EXPECT_EQ(got[1], 0.0f);
        EXPECT_EQ(got[2], 1.0f);
        EXPECT_LT(got[3], 1e-37f);
      }
    }
  }
}

TEST_F(X86MathTest, TanhInPlaceMatchesStdTanh) {
  std::mt19937 rng(12);
  for (const Isa& isa : Isas()) {
    for (long long n : {1LL, 3LL, 7LL, 17LL, 1000LL}) {
      std::vector<float> x = testing::RandomFloats(static_cast<size_t>(n), &rng, -12.0f, 12.0f);
      for (size_t i = 0; i < x.size(); i += 3) x[i] *= 0.01f;  // the polynomial's range too
      std::vector<float> got(x.size() + 16, 123.0f);
      std::copy(x.begin(), x.end(), got.begin());
      if (isa.avx512) x86::TanhInPlaceAvx512(got.data(), n);
      else x86::TanhInPlaceAvx2(got.data(), n);
      for (long long i = 0; i < n; ++i) {
        ExpectUlps(std::tanh(x[i]), got[i], 3, std::string(isa.name) + " n " + std::to_string(n) + " x " +
                                                   std::to_string(x[i]));
      }
      for (size_t i = x.size(); i < got.size(); ++i) ASSERT_EQ(got[i], 123.0f) << "wrote past n at " << i;
    }
  }
}

struct SoftmaxCase {
  long long outer;
  int axis;
  long long inner;
};

// SOFTMAX against SoftmaxRef: the last axis (rows) and strided axes (columns
// in the lanes, blocks of 256), odd sizes; pieces of the vector range give the same bits as
// one call (threads), in place too. Inputs over [-10, 10], one row with
// large magnitudes (-1e30: exp underflows to 0), one vector around -150.
TEST_F(X86MathTest, SoftmaxMatchesReference) {
  const SoftmaxCase cases[] = {{1, 1, 1},   {1, 3, 1},   {3, 7, 1},   {2, 17, 1},  {5, 1000, 1}, {1, 33, 1},
                               {1, 3, 7},   {2, 5, 17},  {3, 17, 5},  {7, 1, 3},   {1, 1000, 3}, {2, 7, 33},
                               {1, 2, 100}, {4, 9, 1},   {3, 4, 64},  {2, 5, 300}};
  std::mt19937 rng(13);
  for (const Isa& isa : Isas()) {
    for (const SoftmaxCase& c : cases) {
      const size_t size = static_cast<size_t>(c.outer) * c.axis * c.inner;
      std::vector<float> x = testing::RandomFloats(size, &rng, -10.0f, 10.0f);
      if (c.axis > 2 && c.inner == 1) {  // the first row: a huge spread
        x[0] = 80.0f;
        x[1] = -1e30f;
        x[2] = -80.0f;
      }
      if (c.outer > 1) {  // the second vector far below 0: only its own maximum keeps exp from underflowing
        for (int a = 0; a < c.axis; ++a) x[(c.inner == 1 ? c.axis : 1) + static_cast<size_t>(a) * c.inner] -= 150.0f;
      }
      std::vector<float> want(size);
      SoftmaxRef(c.outer, c.axis, c.inner, x.data(), want.data());
      auto run = [&](const float* in, float* out, long long begin, long long end) {
        if (isa.avx512) x86::SoftmaxAvx512(c.outer, c.axis, c.inner, in, out, begin, end);
        else x86::SoftmaxAvx2(c.outer, c.axis, c.inner, in, out, begin, end);
      };
      const long long vectors = c.outer * c.inner;
      std::vector<float> got(size + 16, 123.0f);
      run(x.data(), got.data(), 0, vectors);
      const std::string what = std::string(isa.name) + " outer " + std::to_string(c.outer) + " axis " +
                               std::to_string(c.axis) + " inner " + std::to_string(c.inner);
      for (size_t i = 0; i < size; ++i) {
        // exp to 2 ulp, the sum in another order: relative 1e-6 plus the
        // sum's rounding (n * 6e-8 at worst), absolute 1e-30 for underflow.
        const float tol = (1e-6f + c.axis * 6e-8f) * std::fabs(want[i]) + 1e-30f;
        ASSERT_NEAR(want[i], got[i], tol) << what << " at " << i;
      }
      for (size_t i = size; i < got.size(); ++i) ASSERT_EQ(got[i], 123.0f) << what << " wrote past the end";
      // Pieces (as the op splits them over threads): the same bits.
      std::vector<float> pieces(size);
      const long long cut1 = vectors / 3, cut2 = vectors - vectors / 4;
      run(x.data(), pieces.data(), 0, cut1);
      run(x.data(), pieces.data(), cut1, cut2);
      run(x.data(), pieces.data(), cut2, vectors);
      ASSERT_EQ(std::vector<float>(got.begin(), got.begin() + size), pieces) << what;
      std::vector<float> in_place = x;
      run(in_place.data(), in_place.data(), 0, vectors);
      ASSERT_EQ(pieces, in_place) << what << " in place";
    }
  }
}

// The ops: kAuto picks the vector kernels, kReference the reference; the
// outputs agree, and 1 and 2 threads give the same bits.
TEST_F(X86MathTest, OpsPickVectorKernels) {
  ir::Graph g;
  auto tensor = [&](const std::string& name, const Shape& shape) {
    ir::TensorInfo t;
    t.name = name;
    t.shape = shape;
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  };
  const Shape shape = {2, 37, 29, 17};  // 36482 floats: split over threads
  const int x = tensor("x", shape);
  g.inputs = {x};
  auto op = [&](ir::OpType type, const std::string& name, int axis) {
    ir::Node n;
    n.name = name;
    n.type = type;
    n.attrs.axis = axis;
    n.inputs = {x};
    n.outputs = {tensor(name, shape)};
    g.nodes.push_back(n);
    g.outputs.push_back(n.outputs[0]);
  };
  op(ir::OpType::kLogistic, "sigmoid", 0);
  op(ir::OpType::kSoftmax, "softmax_last", -1);
  op(ir::OpType::kSoftmax, "softmax_h", 1);
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(g));
  const std::string isa = x86::GetCpuFeatures().avx512f ? "avx512" : "avx2";
  std::mt19937 rng(14);
  const std::vector<float> input = testing::RandomFloats(static_cast<size_t>(NumElements(shape)), &rng, -8.0f, 8.0f);
  std::vector<std::vector<float>> ref, one;
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(model, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::vector<std::string> kernels;
    for (const LayerInfo& l : (*s)->Layers()) kernels.push_back(l.kernel);
    if (config.algorithm == AlgorithmPolicy::kReference) {
      EXPECT_EQ(kernels, (std::vector<std::string>{"logistic_ref", "softmax_ref", "softmax_ref"}));
    } else {
      EXPECT_EQ(kernels, (std::vector<std::string>{"logistic_" + isa, "softmax_" + isa, "softmax_" + isa}));
    }
    std::memcpy((*s)->input(0)->data(), input.data(), input.size() * 4);
    ASSERT_TRUE((*s)->Run().ok());
    std::vector<std::vector<float>> outs;
    for (int o = 0; o < 3; ++o) {
      const Tensor* t = (*s)->output(o);
      outs.emplace_back(t->data_as<float>(), t->data_as<float>() + t->num_elements());
    }
    if (config.algorithm == AlgorithmPolicy::kReference) {
      if (config.num_threads == 1) ref = outs;
      continue;
    }
    if (config.num_threads == 1) {
      one = outs;
      for (int o = 0; o < 3; ++o) {
        for (size_t i = 0; i < outs[o].size(); ++i) {
          ASSERT_NEAR(ref[o][i], outs[o][i], 1e-6f * std::fabs(ref[o][i]) + 1e-30f) << "output " << o << " at " << i;
        }
      }
    } else {
      for (int o = 0; o < 3; ++o) ASSERT_EQ(one[o], outs[o]) << "output " << o << ": 2 threads differ from 1";
    }
  }
}

}  // namespace
}  // namespace rill::inference::cpu
