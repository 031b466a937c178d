// LRN (odd sizes against ONNX Runtime, an even size by hand),
// InstanceNormalization, GroupNormalization (opset 18's per-group and
// opset 21's per-channel scale), DepthToSpace (DCR and CRD) and
// SpaceToDepth, and Pad's reflect and edge modes, on the engine against ONNX
// Runtime, alone and after a convolution (whose NHWC output the ops take
// without a transpose).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

TEST(OnnxNormSpaceOpsTest, InstanceNormalization) {
  for (const std::vector<int64_t>& x : {std::vector<int64_t>{2, 3, 5, 7}, std::vector<int64_t>{1, 4, 9},
                                        std::vector<int64_t>{1, 2, 3, 4, 5}}) {
    OnnxGraph g;
    g.Input("x", x);
    g.Initializer("s", {x[1]}, RandomValues(x[1], 0.5f, 1.5f, 2));
    g.Initializer("b", {x[1]}, RandomValues(x[1], -1, 1, 3));
    OnnxGraph::Attr(g.Node("InstanceNormalization", {"x", "s", "b"}, {"y"}), "epsilon", 1e-3f);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", x, RandomValues(Elements(x), -2, 3)}});
  }
}

TEST(OnnxNormSpaceOpsTest, GroupNormalizationPerGroupScale) {
  OnnxGraph g(18);
  g.Input("x", {2, 6, 5, 4});
  g.Initializer("s", {3}, RandomValues(3, 0.5f, 1.5f, 2));
  g.Initializer("b", {3}, RandomValues(3, -1, 1, 3));
  OnnxGraph::Attr(g.Node("GroupNormalization", {"x", "s", "b"}, {"y"}), "num_groups", int64_t{3});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 6, 5, 4}, RandomValues(240, -2, 3)}});
}

TEST(OnnxNormSpaceOpsTest, NormalizationAfterAConvolution) {
  OnnxGraph g;
  g.Input("x", {1, 3, 9, 8});
  g.Initializer("w", {8, 3, 3, 3}, RandomValues(216, -1, 1, 4));
  g.Initializer("s", {8}, RandomValues(8, 0.5f, 1.5f, 5));
  g.Initializer("b", {8}, RandomValues(8, -1, 1, 6));
  g.Node("Conv", {"x", "w"}, {"c"});
  g.Node("InstanceNormalization", {"c", "s", "b"}, {"n"});
  g.Node("Relu", {"n"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 3, 9, 8}, RandomValues(216)}});
}

TEST(OnnxNormSpaceOpsTest, DepthToSpaceAndSpaceToDepth) {
  for (const char* mode : {"DCR", "CRD"}) {
    OnnxGraph g;
    g.Input("x", {1, 12, 3, 5});
    onnx::NodeProto* n = g.Node("DepthToSpace", {"x"}, {"y"});
    OnnxGraph::Attr(n, "blocksize", int64_t{2});
    OnnxGraph::Attr(n, "mode", std::string(mode));
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {1, 12, 3, 5}, RandomValues(180)}});
  }
  OnnxGraph g;
  g.Input("x", {2, 3, 6, 9});
  OnnxGraph::Attr(g.Node("SpaceToDepth", {"x"}, {"y"}), "blocksize", int64_t{3});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 6, 9}, RandomValues(324)}});
}

// Pad's reflect and edge modes (MIRROR_PAD), on a plain value and on a
// convolution's NHWC output, with padding on every axis.
TEST(OnnxNormSpaceOpsTest, ReflectAndEdgePadding) {
  for (const char* mode : {"reflect", "edge"}) {
    SCOPED_TRACE(mode);
    {
      OnnxGraph g;
      g.Input("x", {2, 3, 5, 4});
      g.Int64Initializer("pads", {8}, {0, 1, 2, 3, 1, 2, 1, 0});
      OnnxGraph::Attr(g.Node("Pad", {"x", "pads"}, {"y"}), "mode", std::string(mode));
      g.Output("y");
      ExpectMatchesOrt(g, {{"x", {2, 3, 5, 4}, RandomValues(120)}});
    }
    {
      OnnxGraph g;
      g.Input("x", {1, 3, 8, 9});
      g.Initializer("w", {4, 3, 3, 3}, RandomValues(108, -1, 1, 7));
      g.Int64Initializer("pads", {8}, {0, 0, 2, 1, 0, 0, 1, 2});
      g.Node("Conv", {"x", "w"}, {"c"});
      OnnxGraph::Attr(g.Node("Pad", {"c", "pads"}, {"p"}), "mode", std::string(mode));
      g.Node("Relu", {"p"}, {"y"});
      g.Output("y");
      ExpectMatchesOrt(g, {{"x", {1, 3, 8, 9}, RandomValues(216)}});
    }
  }
}

// LRN across the channels: sizes 1, 3, 5 (ONNX Runtime takes odd sizes
// only; and 4-D input only), on an NCHW input and after a conv (NHWC in
// place).
TEST(OnnxNormSpaceOpsTest, LrnMatchesOrt) {
  for (int64_t size : {1, 3, 5}) {
    OnnxGraph g;
    g.Input("x", {2, 7, 4, 3});
    onnx::NodeProto* n = g.Node("LRN", {"x"}, {"y"});
    OnnxGraph::Attr(n, "size", size);
    OnnxGraph::Attr(n, "alpha", 0.02f);
    OnnxGraph::Attr(n, "beta", 0.6f);
    OnnxGraph::Attr(n, "bias", 1.5f);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 7, 4, 3}, RandomValues(168, -3.0f, 3.0f, 51)}});
  }
  {
    OnnxGraph g;
    g.Input("x", {1, 3, 6, 5});
    g.Initializer("w", {6, 3, 1, 1}, RandomValues(18, -1.0f, 1.0f, 52));
    g.Node("Conv", {"x", "w"}, {"c"});
    OnnxGraph::Attr(g.Node("LRN", {"c"}, {"y"}), "size", int64_t{3});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {1, 3, 6, 5}, RandomValues(90, -2.0f, 2.0f, 53)}});
  }
}

// An even size (ONNX's window: floor((size - 1) / 2) channels before,
// ceil((size - 1) / 2) after) on a 3-D input, worked out here: size 2 sums
// each channel with the next; alpha / size scales the sum.
TEST(OnnxNormSpaceOpsTest, LrnEvenSizeHandComputed) {
  OnnxGraph g;
  g.Input("x", {1, 4, 1});
  onnx::NodeProto* n = g.Node("LRN", {"x"}, {"y"});
  OnnxGraph::Attr(n, "size", int64_t{2});
  OnnxGraph::Attr(n, "alpha", 0.5f);
  OnnxGraph::Attr(n, "beta", 1.0f);
  OnnxGraph::Attr(n, "bias", 1.0f);
  g.Output("y");
  auto model = LoadOnnxGraph(g, "lrn_even.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> x = {1, 2, -3, 4};
  const std::vector<float> want = {1 / (1 + 0.25f * 5), 2 / (1 + 0.25f * 13), -3 / (1 + 0.25f * 25),
                                   4 / (1 + 0.25f * 16)};
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    const std::vector<float> y = RunEngine(*model, x, policy);
    ASSERT_EQ(y.size(), 4u);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], 1e-6f) << i;
  }
}

}  // namespace
}  // namespace rill::inference::testing
