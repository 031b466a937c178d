// The rewrites and kernels that speed up the transformer models of the zoo
// (vit_b_16, swin_t, convnext_tiny), on small ONNX models built here:
// optimize::CancelTransposes (ConvNeXt's LayerNorm2d between a transpose to
// NCHW and the model's own Transpose(0,2,3,1)), optimize::
// SinkTransposeThroughScaleAdd (ConvNeXt's block tails), optimize::
// FuseFullyConnectedBias (MatMul + Add of nn.Linear on 3-D activations),
// TRANSPOSE by whole inner runs (the heads' split), BATCH_MATMUL with a
// constant operand (packed in Prepare) and the vector GELU kernel (the
// table's transcendental.gelu). Each: the node counts after optimization, the
// values against ONNX Runtime (optimized and reference kernels, 1 and 2
// threads), against the unoptimized graph or hand-derived indices.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference {
namespace {

using testing::CountOps;
using testing::ExpectMatchesOrt;
using testing::OnnxGraph;
using testing::RandomValues;
using testing::RunEngine;

std::shared_ptr<const Model> Load(const OnnxGraph& g, bool optimize = true) {
  return testing::LoadOnnxGraph(g, "transformer_speed_test.onnx", optimize);
}

// The optimized graph computes what the raw one does (reference kernels).
void ExpectSameAsUnoptimized(const OnnxGraph& g, const std::vector<float>& x, float tolerance) {
  auto opt = Load(g), raw = Load(g, /*optimize=*/false);
  ASSERT_NE(opt, nullptr);
  ASSERT_NE(raw, nullptr);
  const std::vector<float> a = RunEngine(*opt, x, AlgorithmPolicy::kReference);
  const std::vector<float> b = RunEngine(*raw, x, AlgorithmPolicy::kReference);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], tolerance) << i;
}

// ---- CancelTransposes -------------------------------------------------------

// ConvNeXt's stem and first block, cut down: conv -> Transpose(0,2,3,1) ->
// LayerNorm(last axis) -> Transpose(0,3,1,2) -> depthwise conv. The importer
// tracks the convs' NHWC layout with transposes of its own (to NCHW after the
// first conv, to NHWC before the second), each undone by the model's next
// Transpose.
OnnxGraph LayerNorm2d(const std::vector<int64_t>& model_perm_out) {
  OnnxGraph g(17);
  g.Input("x", {1, 3, 6, 7});
  g.Initializer("w", {8, 3, 3, 3}, RandomValues(216, -0.5f, 0.5f, 3));
  OnnxGraph::Attr(g.Node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  OnnxGraph::Attr(g.Node("Transpose", {"c"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  g.Initializer("s", {8}, RandomValues(8, 0.5f, 1.5f, 4));
  g.Initializer("b", {8}, RandomValues(8, -0.5f, 0.5f, 5));
  OnnxGraph::Attr(g.Node("LayerNormalization", {"t", "s", "b"}, {"ln"}), "axis", int64_t{-1});
  OnnxGraph::Attr(g.Node("Transpose", {"ln"}, {"back"}), "perm", model_perm_out);
  g.Initializer("dw", {8, 1, 3, 3}, RandomValues(72, -0.5f, 0.5f, 6));
  onnx::NodeProto* dw = g.Node("Conv", {"back", "dw"}, {"y"});
  OnnxGraph::Attr(dw, "group", int64_t{8});
  OnnxGraph::Attr(dw, "pads", std::vector<int64_t>{1, 1, 1, 1});
  g.Output("y");
  return g;
}

TEST(TransformerSpeedTest, LayerNorm2dTransposesCancel) {
  const OnnxGraph g = LayerNorm2d({0, 3, 1, 2});
  auto raw = Load(g, /*optimize=*/false);
  auto m = Load(g);
  ASSERT_NE(raw, nullptr);
  ASSERT_NE(m, nullptr);
  // Raw: input to NHWC, conv out to NCHW, the model's two, to NHWC before the
  // depthwise conv, its output to NCHW. Optimized: the two pairs around the
  // LayerNorm cancel; the graph's input and output transposes stay.
  EXPECT_EQ(CountOps(*raw, "TRANSPOSE"), 6);
  EXPECT_EQ(CountOps(*m, "TRANSPOSE"), 2);
  EXPECT_EQ(CountOps(*m, "LAYER_NORM"), 1);
  const std::vector<float> x = RandomValues(126, -1.0f, 1.0f, 7);
  ExpectSameAsUnoptimized(g, x, 1e-5f);
  ExpectMatchesOrt(g, {{"x", {1, 3, 6, 7}, x}});
}

// ConvNeXt's block, twice: depthwise conv -> Transpose(0,2,3,1) ->
// LayerNorm -> MatMul (+ bias) -> Transpose(0,3,1,2) -> Mul by the layer
// scale [C, 1, 1] -> Add of the block's input. The tails' transposes sink
// past the MUL and ADD (SinkTransposeThroughScaleAdd) and cancel.
TEST(TransformerSpeedTest, ConvNeXtBlockTailsRunNhwc) {
  const int c = 8;
  OnnxGraph g(17);
  g.Input("x", {1, c, 5, 6});
  std::string in = "x";
  for (int b = 0; b < 2; ++b) {
    const std::string p = "b" + std::to_string(b) + "_";
    g.Initializer(p + "dw", {c, 1, 3, 3}, RandomValues(72, -0.5f, 0.5f, 60 + b));
    onnx::NodeProto* dw = g.Node("Conv", {in, p + "dw"}, {p + "conv"});
    OnnxGraph::Attr(dw, "group", int64_t{c});
    OnnxGraph::Attr(dw, "pads", std::vector<int64_t>{1, 1, 1, 1});
    OnnxGraph::Attr(g.Node("Transpose", {p + "conv"}, {p + "t"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
    g.Initializer(p + "s", {c}, RandomValues(c, 0.5f, 1.5f, 62 + b));
    g.Initializer(p + "b", {c}, RandomValues(c, -0.5f, 0.5f, 64 + b));
    OnnxGraph::Attr(g.Node("LayerNormalization", {p + "t", p + "s", p + "b"}, {p + "ln"}), "axis", int64_t{-1});
    g.Initializer(p + "w", {c, c}, RandomValues(c * c, -0.5f, 0.5f, 66 + b));
    g.Initializer(p + "wb", {c}, RandomValues(c, -0.5f, 0.5f, 68 + b));
    g.Node("MatMul", {p + "ln", p + "w"}, {p + "fc"});
    g.Node("Add", {p + "fc", p + "wb"}, {p + "fcb"});
    OnnxGraph::Attr(g.Node("Transpose", {p + "fcb"}, {p + "back"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
    g.Initializer(p + "gamma", {c, 1, 1}, RandomValues(c, 0.1f, 1.0f, 70 + b));
    g.Node("Mul", {p + "back", p + "gamma"}, {p + "scaled"});
    g.Node("Add", {p + "scaled", in}, {p + "out"});
    in = p + "out";
  }
  g.Output(in);
  auto raw = Load(g, /*optimize=*/false);
  auto m = Load(g);
  ASSERT_NE(raw, nullptr);
  ASSERT_NE(m, nullptr);
  // Raw: the input's; per block to NCHW after the conv and the model's two;
  // to NHWC before the second conv (the residual stream stays NCHW, the
  // output is NCHW): 1 + 3 * 2 + 1. Optimized: the input's and one back to
  // NCHW for the output.
  EXPECT_EQ(CountOps(*raw, "TRANSPOSE"), 8);
  EXPECT_EQ(CountOps(*m, "TRANSPOSE"), 2);
  EXPECT_EQ(CountOps(*m, "MUL"), 2);
  const std::vector<float> x = RandomValues(240, -1.0f, 1.0f, 72);
  ExpectSameAsUnoptimized(g, x, 1e-5f);
  ExpectMatchesOrt(g, {{"x", {1, c, 5, 6}, x}});
}

// A block whose residual is NHWC already (a conv's output: ConvNeXt's first
// block after a downsampling conv): the importer transposes the scaled
// branch back to NHWC for the ADD; that pair and the MUL's go NHWC too.
TEST(TransformerSpeedTest, ConvNeXtBlockAfterConvRunsNhwc) {
  const int c = 8;
  OnnxGraph g(17);
  g.Input("x", {1, 3, 5, 6});
  g.Initializer("w0", {c, 3, 1, 1}, RandomValues(3 * c, -0.5f, 0.5f, 73));
  g.Node("Conv", {"x", "w0"}, {"r"});
  OnnxGraph::Attr(g.Node("Transpose", {"r"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  g.Initializer("w", {c, c}, RandomValues(c * c, -0.5f, 0.5f, 74));
  g.Node("MatMul", {"t", "w"}, {"fc"});
  OnnxGraph::Attr(g.Node("Transpose", {"fc"}, {"back"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
  g.Initializer("gamma", {c, 1, 1}, RandomValues(c, 0.1f, 1.0f, 75));
  g.Node("Mul", {"gamma", "back"}, {"scaled"});
  g.Node("Add", {"scaled", "r"}, {"sum"});
  g.Initializer("w1", {c, c, 1, 1}, RandomValues(c * c, -0.5f, 0.5f, 76));
  g.Node("Conv", {"sum", "w1"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "TRANSPOSE"), 2);  // the graph's input and output
  const std::vector<float> x = RandomValues(90, -1.0f, 1.0f, 77);
  ExpectSameAsUnoptimized(g, x, 1e-5f);
  ExpectMatchesOrt(g, {{"x", {1, 3, 5, 6}, x}});
}

// A second transpose that does not undo the first (here the model's
// Transpose(0,2,3,1) twice) keeps both.
TEST(TransformerSpeedTest, TransposesThatDoNotCancelStay) {
  OnnxGraph g(17);
  g.Input("x", {2, 3, 4, 5});
  OnnxGraph::Attr(g.Node("Transpose", {"x"}, {"a"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  OnnxGraph::Attr(g.Node("Transpose", {"a"}, {"y"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "TRANSPOSE"), 2);
  const std::vector<float> x = RandomValues(120, -1.0f, 1.0f, 8);
  // y[n, i, j, k] = x[n, j, k, i]: x [2,3,4,5] -> a [2,4,5,3] -> y [2,5,3,4].
  const std::vector<float> y = RunEngine(*m, x, AlgorithmPolicy::kAuto);
  ASSERT_EQ(y.size(), 120u);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) {
          ASSERT_EQ(y[((n * 5 + i) * 3 + j) * 4 + k], x[((n * 3 + j) * 4 + k) * 5 + i]);
        }
  ExpectMatchesOrt(g, {{"x", {2, 3, 4, 5}, x}});
}

// A cancelling pair whose middle tensor has another reader: the second
// transpose goes, the first stays for that reader.
TEST(TransformerSpeedTest, CancelledPairKeepsFirstForOtherReader) {
  OnnxGraph g(17);
  g.Input("x", {2, 3, 4, 5});
  OnnxGraph::Attr(g.Node("Transpose", {"x"}, {"a"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  OnnxGraph::Attr(g.Node("Transpose", {"a"}, {"b"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
  g.Node("Relu", {"a"}, {"r"});
  g.Node("Neg", {"b"}, {"y"});
  OnnxGraph::Attr(g.Node("Transpose", {"r"}, {"z"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
  g.Node("Add", {"y", "z"}, {"out"});
  g.Output("out");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  // Transpose a (kept for the RELU), b (cancelled), z (undoes a, but a is
  // read through the RELU: stays).
  EXPECT_EQ(CountOps(*m, "TRANSPOSE"), 2);
  const std::vector<float> x = RandomValues(120, -1.0f, 1.0f, 9);
  // out = -x + relu(x), elementwise in x's layout.
  const std::vector<float> out = RunEngine(*m, x, AlgorithmPolicy::kAuto);
  ASSERT_EQ(out.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_FLOAT_EQ(out[i], -x[i] + std::max(x[i], 0.0f)) << i;
  ExpectMatchesOrt(g, {{"x", {2, 3, 4, 5}, x}});
}

// Swin's head split, [windows, N, 3, heads, d] -> [3, windows, heads, N, d]
// (rank 5, the innermost axis kept): whole runs of d copied, against the
// index formula, ORT and the reference kernel; and rank 4 with two kept axes.
TEST(TransformerSpeedTest, TransposeKeepingInnerAxesCopiesRuns) {
  {
    const std::vector<int64_t> shape = {3, 5, 3, 2, 4};
    OnnxGraph g(17);
    g.Input("x", shape);
    OnnxGraph::Attr(g.Node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{2, 0, 3, 1, 4});
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    const std::vector<float> x = RandomValues(360, -1.0f, 1.0f, 30);
    for (int threads : {1, 2}) {
      const std::vector<float> y = RunEngine(*m, x, AlgorithmPolicy::kAuto, threads);
      ASSERT_EQ(y.size(), x.size());
      // y[s, w, h, n, e] = x[w, n, s, h, e]; y dims [3, 3, 2, 5, 4].
      for (int s3 = 0; s3 < 3; ++s3)
        for (int w = 0; w < 3; ++w)
          for (int h = 0; h < 2; ++h)
            for (int n = 0; n < 5; ++n)
              for (int e = 0; e < 4; ++e) {
                ASSERT_EQ(y[(((s3 * 3 + w) * 2 + h) * 5 + n) * 4 + e], x[(((w * 5 + n) * 3 + s3) * 2 + h) * 4 + e]);
              }
    }
    ExpectMatchesOrt(g, {{"x", shape, x}});
  }
  {
    const std::vector<int64_t> shape = {4, 3, 5, 2};
    OnnxGraph g(17);
    g.Input("x", shape);
    OnnxGraph::Attr(g.Node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{1, 0, 2, 3});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", shape, RandomValues(120, -1.0f, 1.0f, 31)}});
  }
}

// ---- FuseFullyConnectedBias -------------------------------------------------

TEST(TransformerSpeedTest, LinearOn3dActivationsTakesItsBias) {
  OnnxGraph g(17);
  g.Input("x", {2, 5, 8});
  g.Initializer("w", {8, 6}, RandomValues(48, -1.0f, 1.0f, 10));
  g.Initializer("b", {6}, RandomValues(6, -1.0f, 1.0f, 11));
  g.Node("MatMul", {"x", "w"}, {"m"});
  g.Node("Add", {"b", "m"}, {"y"});  // bias first, as some exports write it
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "FULLY_CONNECTED"), 1);
  EXPECT_EQ(CountOps(*m, "ADD"), 0);
  ASSERT_EQ(m->graph().nodes.size(), 1u);
  EXPECT_EQ(m->graph().nodes[0].inputs.size(), 3u);
  const std::vector<float> x = RandomValues(80, -1.0f, 1.0f, 12);
  ExpectSameAsUnoptimized(g, x, 1e-5f);
  ExpectMatchesOrt(g, {{"x", {2, 5, 8}, x}});
}

// An ADD that is not a per-unit bias ([5, 6] varies along the rows), or a
// MatMul output with another reader, stays an ADD.
TEST(TransformerSpeedTest, NotABiasStaysAdd) {
  {
    OnnxGraph g(17);
    g.Input("x", {2, 5, 8});
    g.Initializer("w", {8, 6}, RandomValues(48, -1.0f, 1.0f, 13));
    g.Initializer("b", {5, 6}, RandomValues(30, -1.0f, 1.0f, 14));
    g.Node("MatMul", {"x", "w"}, {"m"});
    g.Node("Add", {"m", "b"}, {"y"});
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(CountOps(*m, "ADD"), 1);
    ExpectMatchesOrt(g, {{"x", {2, 5, 8}, RandomValues(80, -1.0f, 1.0f, 15)}});
  }
  {
    OnnxGraph g(17);
    g.Input("x", {2, 5, 8});
    g.Initializer("w", {8, 6}, RandomValues(48, -1.0f, 1.0f, 16));
    g.Initializer("b", {6}, RandomValues(6, -1.0f, 1.0f, 17));
    g.Node("MatMul", {"x", "w"}, {"m"});
    g.Node("Add", {"m", "b"}, {"a"});
    g.Node("Mul", {"a", "m"}, {"y"});
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(CountOps(*m, "ADD"), 1);
    ExpectMatchesOrt(g, {{"x", {2, 5, 8}, RandomValues(80, -1.0f, 1.0f, 18)}});
  }
}

// ---- BATCH_MATMUL with a constant right operand (packed in Prepare) -------

TEST(TransformerSpeedTest, BatchMatMulConstantOperandMatchesOrt) {
  struct Case {
    std::vector<int64_t> x, w;
  };
  // Per-batch constants, one broadcast constant, and one batch of 40 rows
  // (rows over the threads).
  for (const Case& c : {Case{{2, 5, 8}, {2, 8, 6}}, Case{{3, 7, 9}, {1, 9, 13}}, Case{{1, 40, 8}, {1, 8, 6}},
                        Case{{2, 3, 4, 5}, {3, 5, 7}}}) {
    OnnxGraph g(17);
    g.Input("x", c.x);
    g.Initializer("w", c.w, RandomValues(static_cast<size_t>(testing::Elements(c.w)), -1.0f, 1.0f, 50));
    g.Node("MatMul", {"x", "w"}, {"y"});
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(CountOps(*m, "BATCH_MATMUL"), 1);
    ExpectMatchesOrt(g, {{"x", c.x, RandomValues(static_cast<size_t>(testing::Elements(c.x)), -1.0f, 1.0f, 51)}});
  }
}

// ---- the vector GELU ---------------------------------------------------------

// GELU (opset 20) on odd lengths (every tail of the 8- and 16-lane loops),
// against 0.5 x (1 + erf(x / sqrt(2))) in double, at 1 and 2 threads; NaN
// passes through.
TEST(TransformerSpeedTest, GeluKernelMatchesErfForm) {
  for (int n : {1, 7, 8, 15, 17, 33, 1003}) {
    SCOPED_TRACE(n);
    OnnxGraph g(20);
    g.Input("x", {1, n});
    g.Node("Gelu", {"x"}, {"y"});
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    std::vector<float> x = RandomValues(static_cast<size_t>(n), -7.0f, 7.0f, 19 + n);
    if (n >= 7) {
      x[0] = std::numeric_limits<float>::quiet_NaN();
      x[1] = 0.0f;
      x[2] = 40.0f;   // erf clamped: y == x
      x[3] = -40.0f;  // y == -0
    }
    for (int threads : {1, 2}) {
      const std::vector<float> y = RunEngine(*m, x, AlgorithmPolicy::kAuto, threads);
      ASSERT_EQ(y.size(), x.size());
      for (int i = 0; i < n; ++i) {
        if (std::isnan(x[i])) {
          EXPECT_TRUE(std::isnan(y[i])) << i;
          continue;
        }
        const double xd = x[i];
        const double want = 0.5 * xd * (1.0 + std::erf(xd / std::sqrt(2.0)));
        EXPECT_NEAR(y[i], want, 2e-6 + 2e-6 * std::fabs(want)) << i << " x " << x[i];
      }
    }
  }
}

// Both ISAs' kernels directly (the table holds one per machine): against the
// erf form in double on odd lengths, in place and out of place, nothing
// written past n.
TEST(TransformerSpeedTest, GeluAvx2AndAvx512Kernels) {
  struct Isa {
    const char* name;
    void (*fn)(long long, const float*, float*);
  };
  std::vector<Isa> isas;
  if (cpu::x86::GetCpuFeatures().avx2 && cpu::x86::GetCpuFeatures().fma) isas.push_back({"avx2", cpu::x86::GeluAvx2});
  if (cpu::x86::GetCpuFeatures().avx512f) isas.push_back({"avx512", cpu::x86::GeluAvx512});
  for (const Isa& isa : isas) {
    for (long long n : {1LL, 5LL, 8LL, 13LL, 16LL, 31LL, 1001LL}) {
      SCOPED_TRACE(std::string(isa.name) + " n " + std::to_string(n));
      const std::vector<float> x = RandomValues(static_cast<size_t>(n), -8.0f, 8.0f, 90 + static_cast<unsigned>(n));
      std::vector<float> out(x.size() + 16, 123.0f);
      isa.fn(n, x.data(), out.data());
      std::vector<float> in_place = x;
      isa.fn(n, in_place.data(), in_place.data());
      for (long long i = 0; i < n; ++i) {
        const double xd = x[i];
        const double want = 0.5 * xd * (1.0 + std::erf(xd / std::sqrt(2.0)));
        ASSERT_NEAR(out[i], want, 2e-6 + 2e-6 * std::fabs(want)) << i << " x " << x[i];
        ASSERT_EQ(in_place[i], out[i]) << i;
      }
      for (size_t i = x.size(); i < out.size(); ++i) ASSERT_EQ(out[i], 123.0f) << "wrote past n at " << i;
    }
  }
}

}  // namespace
}  // namespace rill::inference
