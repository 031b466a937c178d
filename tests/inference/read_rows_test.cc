// optimize::ComputeOnlyReadRows: a slice (or a one-index GATHER) of one
// outer axis moves up through the ops that compute each index of that axis
// on its own, so they compute only the rows read. A ViT-style tail (the
// classifier reads the class token after the last block) against ONNX
// Runtime and against the graph without the pass, with the multiply-adds
// each layer is left with; and where it must not move: a tensor also read
// whole, a softmax over the sliced axis, a slice that keeps most rows, a
// graph not specialized to its input shapes.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "inference/optimize/passes.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference {
namespace {

using testing::CountOps;
using testing::Elements;
using testing::ExpectMatchesOrt;
using testing::OnnxGraph;
using testing::RandomValues;
using testing::RunEngine;

constexpr int kBatch = 2, kLen = 9, kHeads = 2, kDepth = 8, kEmbed = kHeads * kDepth, kHidden = 32, kClasses = 10;

std::shared_ptr<const Model> Load(const OnnxGraph& g, bool optimize = true) {
  return testing::LoadOnnxGraph(g, "read_rows_test.onnx", optimize);
}

// y = x W + b for x [..., in], W a constant [in, out] (MatMul + Add, as
// PyTorch exports nn.Linear on 3-D activations).
void Linear(OnnxGraph& g, const std::string& x, const std::string& y, int in, int out, unsigned seed) {
  g.Initializer(y + "_w", {in, out}, RandomValues(static_cast<size_t>(in) * out, -0.4f, 0.4f, seed));
  g.Initializer(y + "_b", {out}, RandomValues(static_cast<size_t>(out), -0.2f, 0.2f, seed + 1));
  g.Node("MatMul", {x, y + "_w"}, {y + "_mm"});
  g.Node("Add", {y + "_mm", y + "_b"}, {y});
}

void LayerNorm(OnnxGraph& g, const std::string& x, const std::string& y, unsigned seed) {
  g.Initializer(y + "_g", {kEmbed}, RandomValues(kEmbed, 0.5f, 1.5f, seed));
  g.Initializer(y + "_beta", {kEmbed}, RandomValues(kEmbed, -0.2f, 0.2f, seed + 1));
  OnnxGraph::Attr(g.Node("LayerNormalization", {x, y + "_g", y + "_beta"}, {y}), "axis", int64_t{-1});
}

// GELU as PyTorch exports nn.GELU(): x * (erf(x / sqrt 2) + 1) * 0.5.
void Gelu(OnnxGraph& g, const std::string& x, const std::string& y) {
  g.Initializer(y + "_r2", {}, {std::sqrt(2.0f)});
  g.Initializer(y + "_one", {}, {1.0f});
  g.Initializer(y + "_half", {}, {0.5f});
  g.Node("Div", {x, y + "_r2"}, {y + "_t"});
  g.Node("Erf", {y + "_t"}, {y + "_e"});
  g.Node("Add", {y + "_e", y + "_one"}, {y + "_s"});
  g.Node("Mul", {x, y + "_s"}, {y + "_xs"});
  g.Node("Mul", {y + "_xs", y + "_half"}, {y});
}

// One pre-norm transformer block, as torchvision's ViT (heads split by
// Reshape + Transpose, the scale on the queries), then the final norm, the
// class token (GATHER of token 0) and the head. `token_also_output`: the
// block's output is a graph output too (read whole).
OnnxGraph VitTail(bool token_also_output = false) {
  OnnxGraph g(17);
  g.Input("x", {kBatch, kLen, kEmbed});
  LayerNorm(g, "x", "ln1", 10);
  g.Int64Initializer("split", {4}, {kBatch, kLen, kHeads, kDepth});
  unsigned seed = 20;
  for (const char* w : {"q", "k", "v"}) {
    const std::string n(w);
    Linear(g, "ln1", n + "_flat", kEmbed, kEmbed, seed);
    seed += 2;
    g.Node("Reshape", {n + "_flat", "split"}, {n + "_heads"});
  }
  OnnxGraph::Attr(g.Node("Transpose", {"q_heads"}, {"q"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  OnnxGraph::Attr(g.Node("Transpose", {"k_heads"}, {"kt"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  OnnxGraph::Attr(g.Node("Transpose", {"v_heads"}, {"v"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  g.Initializer("root_d", {}, {std::sqrt(static_cast<float>(kDepth))});
  g.Node("Div", {"q", "root_d"}, {"q_scaled"});
  g.Node("MatMul", {"q_scaled", "kt"}, {"scores"});
  OnnxGraph::Attr(g.Node("Softmax", {"scores"}, {"p"}), "axis", int64_t{-1});
  g.Node("MatMul", {"p", "v"}, {"heads_out"});
  OnnxGraph::Attr(g.Node("Transpose", {"heads_out"}, {"merged"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
  g.Int64Initializer("flat", {3}, {kBatch, kLen, kEmbed});
  g.Node("Reshape", {"merged", "flat"}, {"attn"});
  Linear(g, "attn", "proj", kEmbed, kEmbed, 30);
  g.Node("Add", {"proj", "x"}, {"x1"});
  LayerNorm(g, "x1", "ln2", 40);
  Linear(g, "ln2", "mlp1", kEmbed, kHidden, 50);
  Gelu(g, "mlp1", "act");
  Linear(g, "act", "mlp2", kHidden, kEmbed, 60);
  g.Node("Add", {"mlp2", "x1"}, {"x2"});
  LayerNorm(g, "x2", "ln", 70);
  g.Int64Initializer("token0", {}, {0});
  OnnxGraph::Attr(g.Node("Gather", {"ln", "token0"}, {"cls"}), "axis", int64_t{1});
  g.Initializer("head_w", {kClasses, kEmbed}, RandomValues(kClasses * kEmbed, -0.4f, 0.4f, 80));
  g.Initializer("head_b", {kClasses}, RandomValues(kClasses, -0.2f, 0.2f, 81));
  OnnxGraph::Attr(g.Node("Gemm", {"cls", "head_w", "head_b"}, {"logits"}), "transB", int64_t{1});
  g.Output("logits");
  if (token_also_output) g.Output("x2");
  return g;
}

// Multiply-adds of every layer of `op`, in order.
std::vector<long long> LayerMacs(const std::shared_ptr<const Model>& m, const std::string& op) {
  auto s = Session::Create(m, SessionConfig{});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  std::vector<long long> macs;
  if (!s.ok()) return macs;
  for (const LayerInfo& layer : (*s)->Layers()) {
    if (layer.op == op) macs.push_back(layer.macs);
  }
  return macs;
}

void ExpectSameAsUnoptimized(const OnnxGraph& g, const std::vector<float>& x) {
  auto opt = Load(g);
  auto raw = Load(g, /*optimize=*/false);
  ASSERT_NE(opt, nullptr);
  ASSERT_NE(raw, nullptr);
  const std::vector<float> want = RunEngine(*raw, x, AlgorithmPolicy::kReference, 1);
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
    for (int threads : {1, 2}) {
      const std::vector<float> got = RunEngine(*opt, x, policy, threads);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 2e-5f) << i << " threads " << threads;
    }
  }
}

TEST(ReadRowsTest, VitClassTokenTailComputesOneRow) {
  const OnnxGraph g = VitTail();
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "GATHER"), 0);
  EXPECT_EQ(CountOps(*m, "ATTENTION"), 1);
  // k and v for every token (all are read); q (a projection of its own
  // here, unlike ViT's packed one), the out-projection, the MLP and the head
  // for the class token alone.
  const std::vector<long long> fc = LayerMacs(m, "FULLY_CONNECTED");
  ASSERT_EQ(fc.size(), 7u);
  EXPECT_EQ(fc[0], 1LL * kBatch * kEmbed * kEmbed);
  for (int i = 1; i < 3; ++i) EXPECT_EQ(fc[i], 1LL * kBatch * kLen * kEmbed * kEmbed) << i;
  EXPECT_EQ(fc[3], 1LL * kBatch * kEmbed * kEmbed);
  EXPECT_EQ(fc[4], 1LL * kBatch * kEmbed * kHidden);
  EXPECT_EQ(fc[5], 1LL * kBatch * kHidden * kEmbed);
  EXPECT_EQ(fc[6], 1LL * kBatch * kEmbed * kClasses);
  // One query row per batch and head, against every key.
  const std::vector<long long> attention = LayerMacs(m, "ATTENTION");
  ASSERT_EQ(attention.size(), 1u);
  EXPECT_EQ(attention[0], 1LL * kBatch * kHeads * 1 * kLen * (kDepth + kDepth));
  const std::vector<int64_t> shape = {kBatch, kLen, kEmbed};
  const std::vector<float> x = RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 90);
  ExpectSameAsUnoptimized(g, x);
  ExpectMatchesOrt(g, {{"x", shape, x}});
}

// The block's output also read whole (a graph output): the block computes
// every row; only the final norm (read by the GATHER alone) takes one.
TEST(ReadRowsTest, TensorReadWholeElsewhereStaysWhole) {
  const OnnxGraph g = VitTail(/*token_also_output=*/true);
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  const std::vector<long long> fc = LayerMacs(m, "FULLY_CONNECTED");
  ASSERT_EQ(fc.size(), 7u);
  EXPECT_EQ(fc[3], 1LL * kBatch * kLen * kEmbed * kEmbed);
  EXPECT_EQ(fc[5], 1LL * kBatch * kLen * kHidden * kEmbed);
  const std::vector<int64_t> shape = {kBatch, kLen, kEmbed};
  ExpectMatchesOrt(g, {{"x", shape, RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 91)}});
}

// y = Slice(Relu(x W + b)) along axis 1 (a range of rows) or after a
// softmax over that axis.
OnnxGraph SlicedRows(int64_t start, int64_t end, bool softmax_over_rows) {
  OnnxGraph g(17);
  g.Input("x", {kBatch, kLen, kEmbed});
  Linear(g, "x", "h", kEmbed, kHidden, 100);
  std::string y = "h";
  if (softmax_over_rows) {
    OnnxGraph::Attr(g.Node("Softmax", {"h"}, {"p"}), "axis", int64_t{1});
    y = "p";
  } else {
    g.Node("Relu", {"h"}, {"r"});
    y = "r";
  }
  g.Int64Initializer("starts", {1}, {start});
  g.Int64Initializer("ends", {1}, {end});
  g.Int64Initializer("axes", {1}, {1});
  g.Node("Slice", {y, "starts", "ends", "axes"}, {"y"});
  g.Output("y");
  return g;
}

TEST(ReadRowsTest, SliceOfRowsMovesAboveTheLinearLayer) {
  struct Case {
    int64_t start, end;
    int rows;  // the FC computes these many rows per batch
  };
  // Rows 2-4 and the last three (negative bounds) of 9: the FC computes
  // those alone; 3-9 keeps more than half and stays after it.
  for (const Case& c : {Case{2, 4, 2}, Case{-3, 100, 3}, Case{3, 9, kLen}}) {
    SCOPED_TRACE(std::to_string(c.start) + ":" + std::to_string(c.end));
    const OnnxGraph g = SlicedRows(c.start, c.end, false);
    auto m = Load(g);
    ASSERT_NE(m, nullptr);
    const std::vector<long long> fc = LayerMacs(m, "FULLY_CONNECTED");
    ASSERT_EQ(fc.size(), 1u);
    EXPECT_EQ(fc[0], 1LL * kBatch * c.rows * kEmbed * kHidden);
    const std::vector<int64_t> shape = {kBatch, kLen, kEmbed};
    const std::vector<float> x = RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 92);
    ExpectSameAsUnoptimized(g, x);
    ExpectMatchesOrt(g, {{"x", shape, x}});
  }
}

// A GATHER of one index given as a [1] tensor (the axis kept, size 1) and
// counted from the end: the last row, computed alone.
TEST(ReadRowsTest, GatherOfTheLastRowKeepsItsAxis) {
  OnnxGraph g(17);
  g.Input("x", {kBatch, kLen, kEmbed});
  Linear(g, "x", "h", kEmbed, kHidden, 110);
  g.Node("Relu", {"h"}, {"r"});
  g.Int64Initializer("last", {1}, {-1});
  OnnxGraph::Attr(g.Node("Gather", {"r", "last"}, {"y"}), "axis", int64_t{1});
  g.Output("y");
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "GATHER"), 0);
  const std::vector<long long> fc = LayerMacs(m, "FULLY_CONNECTED");
  ASSERT_EQ(fc.size(), 1u);
  EXPECT_EQ(fc[0], 1LL * kBatch * kEmbed * kHidden);
  const std::vector<int64_t> shape = {kBatch, kLen, kEmbed};
  const std::vector<float> x = RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 94);
  ExpectSameAsUnoptimized(g, x);
  ExpectMatchesOrt(g, {{"x", shape, x}});
}

// A softmax over the sliced axis mixes the rows: nothing moves.
TEST(ReadRowsTest, SoftmaxOverTheSlicedAxisKeepsEveryRow) {
  const OnnxGraph g = SlicedRows(0, 2, true);
  auto m = Load(g);
  ASSERT_NE(m, nullptr);
  const std::vector<long long> fc = LayerMacs(m, "FULLY_CONNECTED");
  ASSERT_EQ(fc.size(), 1u);
  EXPECT_EQ(fc[0], 1LL * kBatch * kLen * kEmbed * kHidden);
  const std::vector<int64_t> shape = {kBatch, kLen, kEmbed};
  ExpectMatchesOrt(g, {{"x", shape, RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 93)}});
}

// The slices hold the import-time sizes: a graph that Session::Resize
// re-plans at other sizes (TFLite's, not specialized) is left alone.
TEST(ReadRowsTest, OnlyGraphsSpecializedToTheirInputSizes) {
  auto m = Load(SlicedRows(2, 4, false), /*optimize=*/false);
  ASSERT_NE(m, nullptr);
  ir::Graph g = m->graph();
  ASSERT_TRUE(g.specialized_to_input_shapes);
  g.specialized_to_input_shapes = false;
  EXPECT_EQ(optimize::ComputeOnlyReadRows(&g), 0);
  g.specialized_to_input_shapes = true;
  EXPECT_EQ(optimize::ComputeOnlyReadRows(&g), 3);  // above the RELU, the bias's ADD and the FC
  EXPECT_TRUE(g.Validate().ok());
}

}  // namespace
}  // namespace rill::inference
