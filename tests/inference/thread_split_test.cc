// Ops whose outputs the CPU backend splits over its threads (PAD and
// broadcasting binary ops the table has no kernel for by the output's
// outermost axis longer than 1, GATHER and CONCATENATION of few outer rows
// by output elements, DEPTH_TO_SPACE by output rows,
// RESIZE_BILINEAR by output rows of all images): at 1, 2 and 3 threads the
// optimized kernels give the reference kernels' bits (they only copy, or
// compute each output as one call would), on shapes large enough to be split
// (>= 16384 elements), with pieces that start inside the padding, cross an
// image boundary or hold no input row at all; and ONNX Runtime's values.
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
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

// The model at 1, 2 and 3 threads on its optimized kernels equals its
// reference kernels at 1 thread bit for bit; `op` is in the graph.
void ExpectSameBitsAnyThreads(const OnnxGraph& g, const std::string& op, const std::vector<int64_t>& shape,
                              const std::string& what) {
  SCOPED_TRACE(what);
  auto model = testing::LoadOnnxGraph(g, "thread_split_test.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, op), 1);
  const std::vector<float> x = RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 11);
  const std::vector<float> want = RunEngine(*model, x, AlgorithmPolicy::kReference, 1);
  for (int threads : {1, 2, 3}) {
    EXPECT_EQ(want, RunEngine(*model, x, AlgorithmPolicy::kAuto, threads)) << threads << " threads";
  }
}

TEST(ThreadSplitTest, PadPiecesOverTheOutermostAxis) {
  struct Case {
    std::vector<int64_t> shape, pads;  // ONNX's NCHW, pads [begins..., ends...]
  };
  // Batch 1 (split by H), batch 3 with the batch padded (pieces of nothing
  // but padding), channels only (BlazeFace's channel_padding: every row has
  // input), H and W with large borders (pieces inside the top padding).
  const std::vector<Case> cases = {
      {{1, 16, 40, 37}, {0, 0, 1, 2, 0, 0, 3, 1}},
      {{3, 8, 30, 25}, {1, 0, 2, 0, 2, 3, 0, 1}},
      {{1, 24, 32, 32}, {0, 0, 0, 0, 0, 8, 0, 0}},
      {{1, 4, 20, 50}, {0, 0, 30, 4, 0, 0, 25, 3}},
  };
  int index = 0;
  for (const Case& c : cases) {
    OnnxGraph g;
    g.Input("x", c.shape);
    g.Int64Initializer("pads", {8}, c.pads);
    g.Initializer("v", {}, {0.5f});
    g.Node("Pad", {"x", "pads", "v"}, {"y"});
    g.Output("y");
    ExpectSameBitsAnyThreads(g, "PAD", c.shape, "pad case " + std::to_string(index++));
    ExpectMatchesOrt(g, {{"x", c.shape, RandomValues(static_cast<size_t>(Elements(c.shape)))}});
  }
}

// The kernel the CPU backend chose for the model's one `op` node.
std::string KernelOf(const Model& model, const std::string& op) {
  auto shared = std::shared_ptr<const Model>(&model, [](const Model*) {});
  auto session = Session::Create(shared, SessionConfig{});
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return "";
  for (const LayerInfo& l : (*session)->Layers()) {
    if (l.op == op) return l.kernel;
  }
  return "";
}

// Broadcasts of neither operand to the other's shape (Swin's shifted-window
// mask [1, W, 1, N, N] on the scores [1, W, H, N, N] and its position bias
// [H, N, N] on [W, H, N, N]; a constant first operand broadcast against the
// input for SUB and DIV). Where the innermost run (axes merged while both
// operands step alike) is at least 16 long, the first operand contiguous in
// it and the second contiguous or one value (swapped for ADD and MUL), the
// table's kernel runs once per run; else the reference kernel, in pieces of
// the outermost axis.
TEST(ThreadSplitTest, BroadcastBinaryPiecesOverTheOutermostAxis) {
  struct Case {
    const char* op;
    std::vector<int64_t> x, c;  // the input's shape, the constant's
    bool constant_first;
    bool runs;  // the table's kernel per run (else the reference's pieces)
  };
  const std::vector<Case> cases = {
      {"Add", {1, 8, 3, 29, 31}, {1, 8, 1, 29, 31}, false, true},  // runs of 29 * 31, c contiguous
      {"Add", {7, 3, 29, 31}, {3, 29, 31}, false, true},           // one run per outer index
      {"Sub", {5, 4, 33, 40}, {5, 1, 33, 1}, true, false},         // the first operand one value per run
      {"Div", {2, 3, 50, 61}, {1, 3, 1, 61}, true, true},          // runs of 61, both contiguous
      {"Mul", {1, 1, 97, 13, 17}, {1, 1, 97, 1, 17}, false, true},  // runs of 17
      {"Mul", {3, 40, 1}, {3, 40, 50}, false, true},                // x one value per run of c: swapped
      {"Sub", {6, 70, 20}, {6, 1, 20}, false, true},                 // runs of 20
      {"Add", {4, 50, 7, 9}, {4, 1, 7, 1}, false, false},            // runs of 1 (c one value per 9)
      {"Add", {5, 30, 64}, {5, 30, 1}, false, true},                 // c one value per run of 64
  };
  int index = 0;
  for (const Case& c : cases) {
    OnnxGraph g;
    g.Input("x", c.x);
    // Away from zero: DIV by it.
    g.Initializer("c", c.c, RandomValues(static_cast<size_t>(Elements(c.c)), 0.5f, 2.0f, 13));
    g.Node(c.op, c.constant_first ? std::vector<std::string>{"c", "x"} : std::vector<std::string>{"x", "c"}, {"y"});
    g.Output("y");
    std::string op = c.op;
    for (char& ch : op) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::string what = std::string(c.op) + " case " + std::to_string(index++);
    ExpectSameBitsAnyThreads(g, op, c.x, what);
    ExpectMatchesOrt(g, {{"x", c.x, RandomValues(static_cast<size_t>(Elements(c.x)))}});
    auto model = testing::LoadOnnxGraph(g, "thread_split_test.onnx");
    ASSERT_NE(model, nullptr);
    const std::string kernel = KernelOf(*model, op);
    const bool reference = kernel.size() > 4 && kernel.compare(kernel.size() - 4, 4, "_ref") == 0;
    EXPECT_EQ(reference, !c.runs) << what << ": " << kernel;
  }
}

// GATHER with constant indices: one index on the outermost axis (Swin's q,
// k, v out of [3, B, H, N, D]: one long run split within), several on an
// inner axis (short runs, pieces starting mid-run), a negative index.
TEST(ThreadSplitTest, GatherPiecesOfTheOutput) {
  struct Case {
    std::vector<int64_t> x, index_shape, indices;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {{3, 4, 2, 49, 32}, {}, {1}, 0},
      {{5, 6, 30, 41}, {4}, {3, 0, -1, 3}, 1},
      {{2, 7, 1000}, {2, 2}, {6, 0, 2, 2}, 1},
  };
  int index = 0;
  for (const Case& c : cases) {
    OnnxGraph g;
    g.Input("x", c.x);
    g.Int64Initializer("i", c.index_shape, c.indices);
    OnnxGraph::Attr(g.Node("Gather", {"x", "i"}, {"y"}), "axis", c.axis);
    g.Output("y");
    ExpectSameBitsAnyThreads(g, "GATHER", c.x, "gather case " + std::to_string(index++));
    ExpectMatchesOrt(g, {{"x", c.x, RandomValues(static_cast<size_t>(Elements(c.x)))}});
  }
}

// Concatenations along an outer axis of one image (Swin's shifted windows:
// H or W of [1, H, W, C]; fewer outer rows than threads): element pieces
// that start and end inside the inputs' chunks.
TEST(ThreadSplitTest, ConcatenationOfFewOuterRows) {
  for (int64_t axis : {2, 3}) {
    OnnxGraph g;
    const std::vector<int64_t> shape = {1, 24, 29, 31};
    std::vector<int64_t> other = shape;
    other[axis] = 5;
    g.Input("x", shape);
    g.Initializer("a", other, RandomValues(static_cast<size_t>(Elements(other)), -1.0f, 1.0f, 21));
    g.Initializer("b", {1, 24, 29, 31}, RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 22));
    g.Node("Relu", {"x"}, {"r"});
    // Inputs of the concatenation that are not graph inputs or constants:
    // an ADD and a RELU of the input.
    g.Node("Add", {"x", "b"}, {"s"});
    OnnxGraph::Attr(g.Node("Concat", {"r", "a", "s"}, {"y"}), "axis", axis);
    g.Output("y");
    ExpectSameBitsAnyThreads(g, "CONCATENATION", shape, "axis " + std::to_string(axis));
    ExpectMatchesOrt(g, {{"x", shape, RandomValues(static_cast<size_t>(Elements(shape)))}});
  }
}

TEST(ThreadSplitTest, DepthToSpaceRowsOverTheThreads) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{1, 64, 21, 23}, {3, 36, 13, 17}}) {
    const int64_t block = shape[1] == 64 ? 2 : 3;
    OnnxGraph g;
    g.Input("x", shape);
    OnnxGraph::Attr(g.Node("DepthToSpace", {"x"}, {"y"}), "blocksize", block);
    g.Output("y");
    ExpectSameBitsAnyThreads(g, "DEPTH_TO_SPACE", shape, "block " + std::to_string(block));
    ExpectMatchesOrt(g, {{"x", shape, RandomValues(static_cast<size_t>(Elements(shape)))}});
  }
}

TEST(ThreadSplitTest, ResizeBilinearRowsOfAllImages) {
  // Three images of 19 output rows: pieces cross from one image into the next.
  const std::vector<int64_t> shape = {3, 16, 10, 12};
  OnnxGraph g(13);
  g.Input("x", shape);
  g.Initializer("roi", {0}, {});
  g.Initializer("scales", {4}, {1.0f, 1.0f, 1.9f, 2.5f});
  OnnxGraph::Attr(g.Node("Resize", {"x", "roi", "scales"}, {"y"}), "mode", std::string("linear"));
  g.Output("y");
  auto model = testing::LoadOnnxGraph(g, "thread_split_resize.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "RESIZE_BILINEAR"), 1);
  const std::vector<float> x = RandomValues(static_cast<size_t>(Elements(shape)), -1.0f, 1.0f, 12);
  const std::vector<float> one = RunEngine(*model, x, AlgorithmPolicy::kAuto, 1);
  for (int threads : {2, 3}) EXPECT_EQ(one, RunEngine(*model, x, AlgorithmPolicy::kAuto, threads)) << threads;
  ExpectMatchesOrt(g, {{"x", shape, x}});
}

}  // namespace
}  // namespace rill::inference
