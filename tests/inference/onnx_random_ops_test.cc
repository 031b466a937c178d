// RandomUniform, RandomNormal, their *Like forms and Bernoulli (RANDOM,
// ir/ops/random_ops.h), imported only with a seed. Their values are the C++
// library's generator's, not ONNX Runtime's, so the tests check what the
// contract is: shapes (against ONNX Runtime's), ranges and statistics of
// large samples, Bernoulli's certain cases exactly, the same values for the
// same seed in two sessions and at 1 and 2 threads, new values at every run
// of one session, and that an unseeded one is UNIMPLEMENTED. Multinomial:
// its samples' frequencies against the softmax of its logits, classes of
// -inf logits never drawn, and (on libstdc++) runs equal to ONNX Runtime's
// draw for draw.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

// Runs `model` `runs` times in one session (input 0 set to `x`) and returns
// each run's first output.
std::vector<std::vector<float>> Runs(const Model& model, const std::vector<float>& x, int runs, int threads = 1) {
  SessionConfig config;
  config.num_threads = threads;
  auto shared = std::shared_ptr<const Model>(&model, [](const Model*) {});
  auto session = Session::Create(shared, config);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  std::vector<std::vector<float>> out;
  if (!session.ok()) return out;
  for (int r = 0; r < runs; ++r) {
    Tensor* in = (*session)->input(0);
    EXPECT_EQ(static_cast<size_t>(in->num_elements()), x.size());
    std::memcpy(in->data(), x.data(), x.size() * sizeof(float));
    EXPECT_TRUE((*session)->Run().ok());
    const Tensor* y = (*session)->output(0);
    out.emplace_back(y->data_as<float>(), y->data_as<float>() + y->num_elements());
  }
  return out;
}

struct Moments {
  double mean = 0, stddev = 0, min = 1e30, max = -1e30;
};

Moments Measure(const std::vector<float>& v) {
  Moments m;
  for (float f : v) {
    m.mean += f;
    m.min = std::min<double>(m.min, f);
    m.max = std::max<double>(m.max, f);
  }
  m.mean /= static_cast<double>(v.size());
  for (float f : v) m.stddev += (f - m.mean) * (f - m.mean);
  m.stddev = std::sqrt(m.stddev / static_cast<double>(v.size()));
  return m;
}

// ONNX Runtime's first output of `g` on `inputs`.
ort::OrtTensor OrtOutput(const OnnxGraph& g, const std::vector<ort::OrtTensor>& inputs, const std::string& name) {
  const std::string bytes = g.Serialize();
  const std::string path = ::testing::TempDir() + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  if (f == nullptr) return ort::OrtTensor{};
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  auto ort = ort::OrtRunner::Create(path);
  EXPECT_TRUE(ort.ok()) << ort.status().ToString();
  std::vector<ort::OrtTensor> outs;
  if (!ort.ok() || !(*ort)->Run(inputs, &outs).ok() || outs.empty()) {
    ADD_FAILURE() << "ONNX Runtime did not run " << name;
    return ort::OrtTensor{};
  }
  return outs[0];
}

// RandomUniform / RandomNormal [100, 100] (no input) + x, x a [1] input
// given 0.
OnnxGraph Generator(const std::string& op, float p0, float p1, bool seeded = true) {
  OnnxGraph g(17);
  g.Input("x", {1});
  onnx::NodeProto* n = g.Node(op, {}, {"r"});
  OnnxGraph::Attr(n, "shape", std::vector<int64_t>{100, 100});
  OnnxGraph::Attr(n, op == "RandomUniform" ? "low" : "mean", p0);
  OnnxGraph::Attr(n, op == "RandomUniform" ? "high" : "scale", p1);
  if (seeded) OnnxGraph::Attr(n, "seed", 7.0f);
  g.Node("Add", {"r", "x"}, {"y"});
  g.Output("y");
  return g;
}

TEST(OnnxRandomOpsTest, UniformRangeAndMoments) {
  auto model = LoadOnnxGraph(Generator("RandomUniform", -2.0f, 3.0f), "uniform.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> y = Runs(*model, {0.0f}, 1)[0];
  ASSERT_EQ(y.size(), 10000u);
  const Moments m = Measure(y);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LE(m.max, 3.0);
  EXPECT_NEAR(m.mean, 0.5, 0.06);                    // 4 standard errors (5 / sqrt(12) / 100)
  EXPECT_NEAR(m.stddev, 5.0 / std::sqrt(12.0), 0.04);  // 1.443
}

TEST(OnnxRandomOpsTest, NormalMoments) {
  auto model = LoadOnnxGraph(Generator("RandomNormal", 1.0f, 2.0f), "normal.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> y = Runs(*model, {0.0f}, 1)[0];
  ASSERT_EQ(y.size(), 10000u);
  const Moments m = Measure(y);
  EXPECT_NEAR(m.mean, 1.0, 0.08);  // 4 standard errors (2 / 100)
  EXPECT_NEAR(m.stddev, 2.0, 0.06);
  int beyond_two_sigma = 0;
  for (float f : y) beyond_two_sigma += std::abs(f - 1.0f) > 4.0f;
  EXPECT_NEAR(beyond_two_sigma / 10000.0, 0.0455, 0.01);
}

// The same seed draws the same values in another session and at 2 threads;
// a second run of one session draws new ones.
TEST(OnnxRandomOpsTest, SeededSequence) {
  for (const char* op : {"RandomUniform", "RandomNormal"}) {
    SCOPED_TRACE(op);
    auto model = LoadOnnxGraph(Generator(op, 0.0f, 1.0f), "random.onnx");
    ASSERT_NE(model, nullptr);
    const std::vector<std::vector<float>> a = Runs(*model, {0.0f}, 2, 1);
    const std::vector<std::vector<float>> b = Runs(*model, {0.0f}, 2, 2);
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(a[0], b[0]);
    EXPECT_EQ(a[1], b[1]);
    EXPECT_NE(a[0], a[1]);
  }
}

// The *Like forms take their input's shape (as ONNX Runtime's, checked on
// its output) and draw from the distribution asked.
TEST(OnnxRandomOpsTest, LikeFormsShapeAndRange) {
  for (const char* op : {"RandomUniformLike", "RandomNormalLike"}) {
    SCOPED_TRACE(op);
    const bool uniform = std::string(op) == "RandomUniformLike";
    OnnxGraph g(17);
    g.Input("x", {2, 3, 40, 50});
    onnx::NodeProto* n = g.Node(op, {"x"}, {"y"});
    OnnxGraph::Attr(n, "seed", 3.0f);
    OnnxGraph::Attr(n, uniform ? "low" : "mean", uniform ? 10.0f : -5.0f);
    OnnxGraph::Attr(n, uniform ? "high" : "scale", uniform ? 11.0f : 0.5f);
    g.Output("y");
    auto model = LoadOnnxGraph(g, "like.onnx");
    ASSERT_NE(model, nullptr);
    const std::vector<float> x(2 * 3 * 40 * 50, 0.25f);
    const std::vector<float> y = Runs(*model, x, 1)[0];
    ASSERT_EQ(y.size(), x.size());
    const Moments m = Measure(y);
    if (uniform) {  // float rounding can give high itself, in ONNX Runtime too
      EXPECT_GE(m.min, 10.0);
      EXPECT_LE(m.max, 11.0);
      EXPECT_NEAR(m.mean, 10.5, 0.02);
    } else {
      EXPECT_NEAR(m.mean, -5.0, 0.03);
      EXPECT_NEAR(m.stddev, 0.5, 0.02);
    }
    EXPECT_EQ(OrtOutput(g, {{"x", {2, 3, 40, 50}, x}}, "like_shape.onnx").shape,
              (std::vector<int64_t>{2, 3, 40, 50}));
  }
}

// Bernoulli: p = 0 and p = 1 exactly, p = 0.3 at its rate.
TEST(OnnxRandomOpsTest, Bernoulli) {
  OnnxGraph g(15);
  g.Input("p", {100, 100});
  OnnxGraph::Attr(g.Node("Bernoulli", {"p"}, {"y"}), "seed", 11.0f);
  g.Output("y");
  auto model = LoadOnnxGraph(g, "bernoulli.onnx");
  ASSERT_NE(model, nullptr);
  std::vector<float> p(10000);
  for (size_t i = 0; i < p.size(); ++i) p[i] = i < 1000 ? 0.0f : (i < 2000 ? 1.0f : 0.3f);
  const std::vector<float> y = Runs(*model, p, 1)[0];
  ASSERT_EQ(y.size(), p.size());
  int ones = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_TRUE(y[i] == 0.0f || y[i] == 1.0f) << i;
    if (i < 1000) {
      EXPECT_EQ(y[i], 0.0f) << i;
    } else if (i < 2000) {
      EXPECT_EQ(y[i], 1.0f) << i;
    } else {
      ones += y[i] == 1.0f;
    }
  }
  EXPECT_NEAR(ones / 8000.0, 0.3, 0.021);  // 4 standard errors
}

TEST(OnnxRandomOpsTest, UnseededIsUnimplemented) {
  const std::string bytes = Generator("RandomUniform", 0.0f, 1.0f, false).Serialize();
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "unseeded.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented) << model.status().ToString();
  EXPECT_NE(model.status().message().find("without a seed"), std::string::npos) << model.status().ToString();
}

// Multinomial: logits log(0.1, 0.2, 0.3, 0.4) and (0, -inf, 1, -inf); each
// class's share of 20000 samples within 4 standard errors of its
// probability, -inf classes never drawn; a second run draws anew; unseeded
// is UNIMPLEMENTED.
OnnxGraph MultinomialGraph(int64_t samples, bool seeded = true) {
  OnnxGraph g(15);
  g.Input("x", {2, 4});
  onnx::NodeProto* n = g.Node("Multinomial", {"x"}, {"s"});
  OnnxGraph::Attr(n, "sample_size", samples);
  OnnxGraph::Attr(n, "dtype", int64_t{7});
  if (seeded) OnnxGraph::Attr(n, "seed", 3.0f);
  OnnxGraph::Attr(g.Node("Cast", {"s"}, {"y"}), "to", int64_t{1});
  g.Output("y");
  return g;
}

TEST(OnnxRandomOpsTest, MultinomialFrequencies) {
  const int64_t n = 20000;
  auto model = LoadOnnxGraph(MultinomialGraph(n), "multinomial.onnx");
  ASSERT_NE(model, nullptr);
  const float inf = INFINITY;
  const std::vector<float> x = {std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f), 0.0f, -inf, 1.0f, -inf};
  for (int threads : {1, 2}) {
    const std::vector<std::vector<float>> runs = Runs(*model, x, 2, threads);
    ASSERT_EQ(runs.size(), 2u);
    ASSERT_EQ(runs[0].size(), static_cast<size_t>(2 * n));
    EXPECT_NE(runs[0], runs[1]);  // the generator advances
    const double e = std::exp(1.0);
    const std::vector<std::vector<double>> want = {{0.1, 0.2, 0.3, 0.4}, {1 / (1 + e), 0, e / (1 + e), 0}};
    for (int b = 0; b < 2; ++b) {
      std::vector<double> count(4, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        const float v = runs[0][static_cast<size_t>(b * n + i)];
        ASSERT_TRUE(v == 0 || v == 1 || v == 2 || v == 3) << v;
        count[static_cast<size_t>(v)] += 1;
      }
      for (int k = 0; k < 4; ++k) {
        const double p = want[b][k];
        const double se = std::sqrt(p * (1 - p) / static_cast<double>(n));
        if (p == 0) {
          EXPECT_EQ(count[k], 0) << "row " << b << " class " << k;
        } else {
          EXPECT_NEAR(count[k] / static_cast<double>(n), p, 4 * se) << "row " << b << " class " << k;
        }
      }
    }
  }
  const std::string bytes = MultinomialGraph(5, false).Serialize();
  auto unseeded = Model::FromBuffer(bytes.data(), bytes.size(), "unseeded_multinomial.onnx");
  ASSERT_FALSE(unseeded.ok());
  EXPECT_EQ(unseeded.status().code(), StatusCode::kUnimplemented) << unseeded.status().ToString();
}

#if defined(__GLIBCXX__)
// Not the contract, a property of the library: ONNX Runtime 1.30's CPU
// kernels draw from std::default_random_engine seeded with the seed and the
// std:: distributions, as RANDOM does; built on libstdc++ both, a first run
// gives ONNX Runtime's values exactly.
TEST(OnnxRandomOpsTest, FirstRunIsOrtsOnLibstdcxx) {
  for (const char* op : {"RandomUniform", "RandomNormal"}) {
    SCOPED_TRACE(op);
    const OnnxGraph g = Generator(op, 0.5f, 2.0f);
    auto model = LoadOnnxGraph(g, "random.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(Runs(*model, {0.0f}, 1)[0], OrtOutput(g, {{"x", {1}, {0.0f}}}, "random_vs_ort.onnx").data);
  }
  for (const char* op : {"RandomUniformLike", "RandomNormalLike"}) {
    SCOPED_TRACE(op);
    OnnxGraph g(17);
    g.Input("x", {20, 30});
    OnnxGraph::Attr(g.Node(op, {"x"}, {"y"}), "seed", 5.0f);
    g.Output("y");
    auto model = LoadOnnxGraph(g, "random_like.onnx");
    ASSERT_NE(model, nullptr);
    const std::vector<float> x(600, 0.0f);
    EXPECT_EQ(Runs(*model, x, 1)[0], OrtOutput(g, {{"x", {20, 30}, x}}, "random_like_vs_ort.onnx").data);
  }
}

// ONNX Runtime 1.30 has no Bernoulli kernel and runs ONNX's function body,
// RandomUniformLike then Greater(X_random, input): 1 with probability 1 - p,
// against the operator's definition (1 with probability p), which the
// engine follows. Its draws are the same, so its output is 1 - ONNX
// Runtime's.
TEST(OnnxRandomOpsTest, BernoulliIsOrtsComplement) {
  OnnxGraph g(15);
  g.Input("p", {30, 40});
  OnnxGraph::Attr(g.Node("Bernoulli", {"p"}, {"y"}), "seed", 11.0f);
  g.Output("y");
  auto model = LoadOnnxGraph(g, "bernoulli.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> p = RandomValues(1200, 0.0f, 1.0f, 402);
  const std::vector<float> ours = Runs(*model, p, 1)[0];
  const std::vector<float> theirs = OrtOutput(g, {{"p", {30, 40}, p}}, "bernoulli_vs_ort.onnx").data;
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], 1.0f - theirs[i]) << i;
}

// ONNX Runtime's Multinomial draws from std::default_random_engine seeded
// with the seed and std::uniform_real_distribution<double>, placing each
// draw in the row's unnormalized cumulative sums as RANDOM's kMultinomial
// does: on libstdc++ its runs are its draws exactly, run after run.
TEST(OnnxRandomOpsTest, MultinomialRunsAreOrtsOnLibstdcxx) {
  const OnnxGraph g = MultinomialGraph(50);
  auto model = LoadOnnxGraph(g, "multinomial_first.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> x = RandomValues(8, -2.0f, 2.0f, 403);
  const std::vector<std::vector<float>> ours = Runs(*model, x, 2);
  // Two runs of one ONNX Runtime session against two of one engine session:
  // both advance their generator, so the second runs match too.
  const std::string path = ::testing::TempDir() + "/multinomial_twice.onnx";
  const std::string bytes = g.Serialize();
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  auto ort = ort::OrtRunner::Create(path);
  ASSERT_TRUE(ort.ok()) << ort.status().ToString();
  std::vector<ort::OrtTensor> first, second;
  ASSERT_TRUE((*ort)->Run({{"x", {2, 4}, x}}, &first).ok());
  ASSERT_TRUE((*ort)->Run({{"x", {2, 4}, x}}, &second).ok());
  EXPECT_EQ(ours[0], first[0].data);
  EXPECT_EQ(ours[1], second[0].data);
  EXPECT_NE(ours[0], ours[1]);
}
#endif

}  // namespace
}  // namespace rill::inference::testing
