// optimize::FuseAttention and the ATTENTION op: scaled dot-product attention
// as PyTorch exports it (BATCH_MATMUL(Q, K^T) -> MUL/DIV by a scalar ->
// [ADD bias] -> SOFTMAX -> BATCH_MATMUL(., V), the scale on the scores or on
// Q, K^T a transpose of its own or one with the head split) becomes one
// ATTENTION node; where an intermediate has another reader it does not. The
// fused graph against ONNX Runtime (ExpectMatchesOrt: optimized and
// reference kernels, 1 and 2 threads) and against the unfused graph; odd
// sequence lengths, several heads, with and without a bias, one batch of
// more query rows than a row block (rows over the threads).
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "inference/ir/ops/tensor_ops.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference {
namespace {

using testing::Elements;
using testing::CountOps;
using testing::ExpectMatchesOrt;
using testing::OnnxGraph;
using testing::RandomValues;
using testing::RunEngine;

std::shared_ptr<const Model> Load(const OnnxGraph& g, bool optimize = true) {
  return testing::LoadOnnxGraph(g, "attention_fusion_test.onnx", optimize);
}

struct Case {
  int batch, len, heads, depth;
  bool bias;
  bool scale_on_q;  // DIV of Q (ViT) rather than MUL of the scores
};

// x [batch, len, heads * depth] -> q, k, v by MatMul with constants, heads
// split by Reshape + Transpose (K^T in the same transpose, perm (0, 2, 3, 1),
// as ViT exports it), attention, output [batch, heads, len, depth].
OnnxGraph MultiHead(const Case& c, bool scores_also_output = false) {
  const int e = c.heads * c.depth;
  OnnxGraph g(17);
  g.Input("x", {c.batch, c.len, e});
  g.Int64Initializer("split", {4}, {c.batch, c.len, c.heads, c.depth});
  unsigned seed = 40;
  for (const char* w : {"wq", "wk", "wv"}) {
    g.Initializer(w, {e, e}, RandomValues(static_cast<size_t>(e) * e, -0.5f, 0.5f, seed++));
    const std::string n(w + 1);
    g.Node("MatMul", {"x", w}, {n + "_flat"});
    g.Node("Reshape", {n + "_flat", "split"}, {n + "_heads"});
  }
  OnnxGraph::Attr(g.Node("Transpose", {"q_heads"}, {"q"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  OnnxGraph::Attr(g.Node("Transpose", {"k_heads"}, {"kt"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  OnnxGraph::Attr(g.Node("Transpose", {"v_heads"}, {"v"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.depth));
  std::string s;
  if (c.scale_on_q) {
    g.Initializer("root_d", {}, {std::sqrt(static_cast<float>(c.depth))});
    g.Node("Div", {"q", "root_d"}, {"q_scaled"});
    g.Node("MatMul", {"q_scaled", "kt"}, {"s"});
    s = "s";
  } else {
    g.Initializer("scale", {}, {scale});
    g.Node("MatMul", {"q", "kt"}, {"s0"});
    g.Node("Mul", {"s0", "scale"}, {"s"});
    s = "s";
  }
  if (c.bias) {  // one [len, len] table per head, as Swin's relative position bias
    g.Initializer("bias", {c.heads, c.len, c.len},
                  RandomValues(static_cast<size_t>(c.heads) * c.len * c.len, -2.0f, 2.0f, seed++));
    g.Node("Add", {s, "bias"}, {"sb"});
    s = "sb";
  }
  OnnxGraph::Attr(g.Node("Softmax", {s}, {"p"}), "axis", int64_t{-1});
  g.Node("MatMul", {"p", "v"}, {"y"});
  g.Output("y");
  if (scores_also_output) g.Output("p");
  return g;
}

void ExpectFusedMatches(const Case& c) {
  SCOPED_TRACE("batch " + std::to_string(c.batch) + " len " + std::to_string(c.len) + " heads " +
               std::to_string(c.heads) + " depth " + std::to_string(c.depth) + (c.bias ? " bias" : "") +
               (c.scale_on_q ? " scale on q" : ""));
  const OnnxGraph g = MultiHead(c);
  auto fused = Load(g);
  auto raw = Load(g, /*optimize=*/false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(CountOps(*fused, "ATTENTION"), 1);
  EXPECT_EQ(CountOps(*fused, "SOFTMAX"), 0);
  EXPECT_EQ(CountOps(*fused, "BATCH_MATMUL"), 0);
  EXPECT_EQ(CountOps(*raw, "BATCH_MATMUL"), 2);
  const std::vector<int64_t> shape = {c.batch, c.len, c.heads * c.depth};
  const std::vector<float> x = RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 77);
  // Fused (optimized and reference ATTENTION) against the unfused graph.
  const std::vector<float> want = RunEngine(*raw, x, AlgorithmPolicy::kReference, 1);
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
    for (int threads : {1, 2, 3}) {
      const std::vector<float> got = RunEngine(*fused, x, policy, threads);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 2e-5f) << i << " threads " << threads;
    }
  }
  // The optimized ATTENTION and the unfused graph's BATCH_MATMULs (batches
  // or row blocks over the threads) give the same bits at 1, 2 and 3 threads.
  for (const Model* m : {fused.get(), raw.get()}) {
    const std::vector<float> one = RunEngine(*m, x, AlgorithmPolicy::kAuto, 1);
    for (int threads : {2, 3}) EXPECT_EQ(one, RunEngine(*m, x, AlgorithmPolicy::kAuto, threads)) << threads;
  }
  ExpectMatchesOrt(g, {{"x", shape, x}});
}

TEST(AttentionFusionTest, ScaleOnScoresWithAndWithoutBias) {
  ExpectFusedMatches({2, 7, 3, 5, false, false});
  ExpectFusedMatches({2, 7, 3, 5, true, false});
  ExpectFusedMatches({1, 13, 2, 8, true, false});
  // 35 batches x heads: one task each over the threads.
  ExpectFusedMatches({5, 9, 7, 4, true, false});
}

TEST(AttentionFusionTest, ScaleOnQueriesAsViT) {
  ExpectFusedMatches({1, 11, 4, 6, false, true});
  ExpectFusedMatches({3, 9, 1, 7, true, true});
}

// One batch and head, 150 query rows: fewer batches than threads, the row
// blocks over the threads (and a last block of 22 rows).
TEST(AttentionFusionTest, LongSequenceRowBlocks) {
  ExpectFusedMatches({1, 150, 1, 8, true, false});
  ExpectFusedMatches({1, 67, 2, 4, false, true});
}

// The softmax's output also read elsewhere (here a graph output): nothing fuses.
TEST(AttentionFusionTest, NotFusedWhenScoresHaveAnotherReader) {
  const Case c{2, 7, 3, 5, true, false};
  const OnnxGraph g = MultiHead(c, /*scores_also_output=*/true);
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "ATTENTION"), 0);
  EXPECT_EQ(CountOps(*m, "SOFTMAX"), 1);
  EXPECT_EQ(CountOps(*m, "BATCH_MATMUL"), 2);
  const std::vector<int64_t> shape = {c.batch, c.len, c.heads * c.depth};
  ExpectMatchesOrt(g, {{"x", shape, RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 78)}});
}

// A softmax over another axis than the last is not attention.
TEST(AttentionFusionTest, NotFusedForSoftmaxOverQueries) {
  OnnxGraph g(17);
  g.Input("q", {2, 5, 4});
  g.Initializer("kt", {2, 4, 6}, RandomValues(48, -1.0f, 1.0f, 80));
  g.Initializer("v", {2, 6, 3}, RandomValues(36, -1.0f, 1.0f, 81));
  g.Node("MatMul", {"q", "kt"}, {"s"});
  OnnxGraph::Attr(g.Node("Softmax", {"s"}, {"p"}), "axis", int64_t{1});
  g.Node("MatMul", {"p", "v"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "ATTENTION"), 0);
  ExpectMatchesOrt(g, {{"q", {2, 5, 4}, RandomValues(40, -1.0f, 1.0f, 82)}});
}

// K^T not made by a TRANSPOSE (here a constant [D, N]): the ATTENTION reads
// it as stored (k_transposed), its panels packed from [D, N] rows; N = 37
// spans two 32-column panels and part of a third 16-column one.
TEST(AttentionFusionTest, KeysStoredTransposed) {
  OnnxGraph g(17);
  g.Input("q", {2, 9, 5});
  g.Initializer("kt", {2, 5, 37}, RandomValues(370, -1.0f, 1.0f, 83));
  g.Initializer("v", {2, 37, 3}, RandomValues(222, -1.0f, 1.0f, 84));
  g.Initializer("scale", {}, {0.4f});
  g.Node("MatMul", {"q", "kt"}, {"s0"});
  g.Node("Mul", {"s0", "scale"}, {"s"});
  OnnxGraph::Attr(g.Node("Softmax", {"s"}, {"p"}), "axis", int64_t{-1});
  g.Node("MatMul", {"p", "v"}, {"y"});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "ATTENTION"), 1);
  // Its multiply-adds: batches x M x N x (D + Dv) = 2 x 9 x 37 x (5 + 3).
  auto s = Session::Create(m, SessionConfig{});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int attention = 0;
  for (const LayerInfo& layer : (*s)->Layers()) {
    if (layer.op != "ATTENTION") continue;
    EXPECT_EQ(layer.macs, 2 * 9 * 37 * (5 + 3));
    ++attention;
  }
  EXPECT_EQ(attention, 1);
  ExpectMatchesOrt(g, {{"q", {2, 9, 5}, RandomValues(90, -2.0f, 2.0f, 85)}});
}

// The op's value by hand: one query, two keys, q.k = (1, 0) scaled by 2 ->
// softmax (e^2, 1) / (e^2 + 1), v rows (1, 0) and (0, 1); bias (0, ln 3)
// makes the weights (e^2, 3) / (e^2 + 3).
TEST(AttentionFusionTest, HandComputed) {
  for (bool bias : {false, true}) {
    OnnxGraph g(17);
    g.Input("q", {1, 1, 2});
    g.Initializer("kt", {1, 2, 2}, {1.0f, 0.0f, 0.0f, 1.0f});  // k rows (1, 0), (0, 1)
    g.Initializer("v", {1, 2, 2}, {1.0f, 0.0f, 0.0f, 1.0f});
    g.Initializer("two", {}, {2.0f});
    g.Initializer("b", {1, 2}, {0.0f, std::log(3.0f)});
    g.Node("MatMul", {"q", "kt"}, {"s0"});
    g.Node("Mul", {"two", "s0"}, {"s"});
    if (bias) g.Node("Add", {"b", "s"}, {"sb"});
    OnnxGraph::Attr(g.Node("Softmax", {bias ? "sb" : "s"}, {"p"}), "axis", int64_t{-1});
    g.Node("MatMul", {"p", "v"}, {"y"});
    g.Output("y");
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(CountOps(*m, "ATTENTION"), 1);
    const float e2 = std::exp(2.0f), other = bias ? 3.0f : 1.0f;
    for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
      const std::vector<float> y = RunEngine(*m, {1.0f, 0.0f}, policy, 1);
      ASSERT_EQ(y.size(), 2u);
      EXPECT_NEAR(y[0], e2 / (e2 + other), 1e-6f);
      EXPECT_NEAR(y[1], other / (e2 + other), 1e-6f);
    }
  }
}

}  // namespace
}  // namespace rill::inference
