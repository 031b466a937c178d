// ONNX's Conv, ConvTranspose, MaxPool, AveragePool and GlobalAveragePool
// over one and three spatial axes (video models' 3-D convolutions, 1-D
// convolutions of audio and sequence models) on the engine against ONNX
// Runtime: strides, pads, dilations, groups, auto_pad, ceil_mode and
// count_include_pad, on odd sizes (onnx_op_test_util.h: optimized and
// reference kernels, 1 and 2 threads).
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

struct ConvCase {
  std::vector<int64_t> x, w;
  std::vector<int64_t> strides, dilations, pads;
  int64_t group;
  std::string auto_pad;
  bool bias;
};

void RunConv(const ConvCase& k) {
  OnnxGraph g;
  g.Input("x", k.x);
  g.Initializer("w", k.w, RandomValues(Elements(k.w), -1, 1, 5));
  std::vector<std::string> in = {"x", "w"};
  if (k.bias) {
    g.Initializer("b", {k.w[0]}, RandomValues(k.w[0], -1, 1, 6));
    in.push_back("b");
  }
  onnx::NodeProto* n = g.Node("Conv", in, {"y"});
  if (!k.strides.empty()) OnnxGraph::Attr(n, "strides", k.strides);
  if (!k.dilations.empty()) OnnxGraph::Attr(n, "dilations", k.dilations);
  if (!k.pads.empty()) OnnxGraph::Attr(n, "pads", k.pads);
  if (k.group != 1) OnnxGraph::Attr(n, "group", k.group);
  if (!k.auto_pad.empty()) OnnxGraph::Attr(n, "auto_pad", k.auto_pad);
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", k.x, RandomValues(Elements(k.x))}});
}

TEST(OnnxVolumeOpsTest, Conv3d) {
  // r3d_18's stem: 3x7x7, stride (1, 2, 2), pads 1, 3, 3.
  RunConv({{1, 3, 5, 17, 15}, {8, 3, 3, 7, 7}, {1, 2, 2}, {}, {1, 3, 3, 1, 3, 3}, 1, "", true});
  // r2plus1d's factorized (1, 3, 3) and (3, 1, 1) kernels, strided.
  RunConv({{1, 6, 7, 9, 11}, {5, 6, 1, 3, 3}, {1, 2, 2}, {}, {0, 1, 1, 0, 1, 1}, 1, "", false});
  RunConv({{1, 5, 7, 5, 6}, {4, 5, 3, 1, 1}, {2, 1, 1}, {}, {1, 0, 0, 1, 0, 0}, 1, "", true});
  // Dilation, asymmetric pads, groups, a batch of 2, SAME_UPPER.
  RunConv({{2, 4, 6, 8, 7}, {6, 2, 3, 3, 2}, {1, 1, 2}, {2, 1, 1}, {2, 0, 1, 1, 2, 0}, 2, "", true});
  RunConv({{1, 3, 5, 6, 7}, {4, 3, 3, 3, 3}, {2, 2, 2}, {}, {}, 1, "SAME_UPPER", true});
  // Depthwise (group = channels: MViT's pooling convs), strided (1, 4, 4)
  // and (1, 2, 2), with pads, a dilation, a stride along W of 3.
  RunConv({{1, 6, 4, 13, 15}, {6, 1, 3, 3, 3}, {1, 4, 4}, {}, {1, 1, 1, 1, 1, 1}, 6, "", true});
  RunConv({{2, 4, 5, 9, 8}, {4, 1, 3, 3, 3}, {1, 2, 2}, {1, 2, 1}, {1, 2, 1, 1, 2, 1}, 4, "", false});
  RunConv({{1, 3, 3, 7, 11}, {3, 1, 1, 3, 3}, {1, 1, 3}, {}, {0, 1, 1, 0, 1, 1}, 3, "", true});
  // Many channels: several row blocks and more than one GEMM panel.
  RunConv({{1, 40, 4, 12, 12}, {70, 40, 3, 3, 3}, {}, {}, {1, 1, 1, 1, 1, 1}, 1, "", true});
}

TEST(OnnxVolumeOpsTest, Conv1d) {
  RunConv({{1, 3, 17}, {5, 3, 4}, {2}, {}, {1, 2}, 1, "", true});
  RunConv({{2, 6, 20}, {4, 3, 3}, {1}, {2}, {2, 2}, 2, "", false});
  RunConv({{1, 4, 11}, {4, 1, 5}, {}, {}, {}, 4, "SAME_UPPER", true});  // depthwise
  RunConv({{1, 4, 11}, {6, 4, 1}, {}, {}, {}, 1, "VALID", true});
}

void RunConvTranspose(const std::vector<int64_t>& x, const std::vector<int64_t>& w, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& dilations, const std::vector<int64_t>& pads,
                      const std::vector<int64_t>& output_padding, int64_t group) {
  OnnxGraph g;
  g.Input("x", x);
  g.Initializer("w", w, RandomValues(Elements(w), -1, 1, 11));
  g.Initializer("b", {w[1] * group}, RandomValues(w[1] * group, -1, 1, 12));
  onnx::NodeProto* n = g.Node("ConvTranspose", {"x", "w", "b"}, {"y"});
  if (!strides.empty()) OnnxGraph::Attr(n, "strides", strides);
  if (!dilations.empty()) OnnxGraph::Attr(n, "dilations", dilations);
  if (!pads.empty()) OnnxGraph::Attr(n, "pads", pads);
  if (!output_padding.empty()) OnnxGraph::Attr(n, "output_padding", output_padding);
  if (group != 1) OnnxGraph::Attr(n, "group", group);
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", x, RandomValues(Elements(x))}});
}

TEST(OnnxVolumeOpsTest, ConvTranspose3d) {
  RunConvTranspose({1, 4, 3, 5, 4}, {4, 3, 2, 2, 2}, {2, 2, 2}, {}, {}, {}, 1);
  RunConvTranspose({1, 4, 3, 4, 5}, {4, 2, 3, 3, 3}, {2, 1, 2}, {1, 1, 2}, {1, 0, 1, 1, 1, 0}, {1, 0, 0}, 2);
}

TEST(OnnxVolumeOpsTest, ConvTranspose1d) {
  RunConvTranspose({1, 4, 9}, {4, 3, 4}, {2}, {}, {1, 1}, {}, 1);
  RunConvTranspose({2, 6, 7}, {6, 2, 3}, {3}, {}, {0, 1}, {2}, 3);
}

void RunPool(const std::string& op, const std::vector<int64_t>& x, const std::vector<int64_t>& kernel,
             const std::vector<int64_t>& strides, const std::vector<int64_t>& pads, int64_t ceil_mode,
             int64_t count_include_pad) {
  OnnxGraph g;
  g.Input("x", x);
  onnx::NodeProto* n = g.Node(op, {"x"}, {"y"});
  OnnxGraph::Attr(n, "kernel_shape", kernel);
  if (!strides.empty()) OnnxGraph::Attr(n, "strides", strides);
  if (!pads.empty()) OnnxGraph::Attr(n, "pads", pads);
  if (ceil_mode) OnnxGraph::Attr(n, "ceil_mode", ceil_mode);
  if (count_include_pad) OnnxGraph::Attr(n, "count_include_pad", count_include_pad);
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", x, RandomValues(Elements(x))}});
}

TEST(OnnxVolumeOpsTest, Pool3d) {
  RunPool("MaxPool", {1, 3, 6, 9, 8}, {2, 3, 3}, {2, 2, 2}, {0, 1, 1, 0, 1, 1}, 0, 0);
  RunPool("MaxPool", {1, 2, 5, 7, 7}, {3, 3, 3}, {2, 2, 2}, {}, 1, 0);
  // S3D's: (1, 3, 3) stride (1, 2, 2) with H/W padding, (3, 3, 3) stride 1
  // pad 1 in its inception branches, (2, 2, 2) stride 2.
  RunPool("MaxPool", {1, 4, 5, 11, 10}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1, 0, 1, 1}, 0, 0);
  RunPool("MaxPool", {2, 3, 4, 6, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, 0, 0);
  RunPool("MaxPool", {1, 2, 7, 9, 9}, {2, 2, 2}, {2, 2, 2}, {}, 1, 0);
  RunPool("AveragePool", {2, 3, 5, 6, 7}, {3, 3, 3}, {1, 2, 2}, {1, 1, 1, 1, 1, 1}, 0, 0);
  RunPool("AveragePool", {1, 2, 5, 6, 7}, {3, 3, 3}, {1, 2, 2}, {1, 1, 1, 1, 1, 1}, 0, 1);
  RunPool("AveragePool", {1, 2, 6, 7, 7}, {2, 2, 2}, {2, 2, 2}, {}, 1, 0);
}

TEST(OnnxVolumeOpsTest, Pool1d) {
  RunPool("MaxPool", {1, 3, 17}, {3}, {2}, {1, 1}, 0, 0);
  RunPool("AveragePool", {2, 4, 16}, {4}, {3}, {}, 1, 0);
}

TEST(OnnxVolumeOpsTest, GlobalAveragePoolOverOneAndThreeAxes) {
  for (const std::vector<int64_t>& x : {std::vector<int64_t>{1, 5, 3, 7, 6}, std::vector<int64_t>{2, 4, 9}}) {
    OnnxGraph g;
    g.Input("x", x);
    g.Node("GlobalAveragePool", {"x"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", x, RandomValues(Elements(x))}});
  }
}

// A small video block as r3d_18 has it: Conv3d, ReLU, a residual Add, the
// global pool and a classifier.
TEST(OnnxVolumeOpsTest, VideoBlock) {
  OnnxGraph g;
  g.Input("x", {1, 3, 4, 16, 16});
  g.Initializer("w1", {8, 3, 3, 3, 3}, RandomValues(8 * 3 * 27, -0.5f, 0.5f, 7));
  g.Initializer("w2", {8, 8, 3, 3, 3}, RandomValues(8 * 8 * 27, -0.3f, 0.3f, 8));
  g.Initializer("fc", {5, 8}, RandomValues(40, -1, 1, 9));
  OnnxGraph::Attr(g.Node("Conv", {"x", "w1"}, {"c1"}), "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
  g.Node("Relu", {"c1"}, {"r1"});
  OnnxGraph::Attr(g.Node("Conv", {"r1", "w2"}, {"c2"}), "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
  g.Node("Add", {"c2", "r1"}, {"s"});
  g.Node("Relu", {"s"}, {"r2"});
  g.Node("GlobalAveragePool", {"r2"}, {"p"});
  g.Node("Flatten", {"p"}, {"f"});
  OnnxGraph::Attr(g.Node("Gemm", {"f", "fc"}, {"y"}), "transB", int64_t{1});
  g.Output("y");
  // Both ReLUs fuse: the first into its CONV_3D's epilogue, the second into
  // the ADD.
  const std::shared_ptr<const Model> m = LoadOnnxGraph(g, "video_block.onnx", /*optimize=*/true);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CountOps(*m, "RELU"), 0);
  EXPECT_EQ(CountOps(*m, "CONV_3D"), 2);
  ExpectMatchesOrt(g, {{"x", {1, 3, 4, 16, 16}, RandomValues(3 * 4 * 256)}});
}

// What `rill model info` reports: each layer's kernel and multiply-adds
// (CONV_3D: outputs x C/group x kd x kh x kw).
TEST(OnnxVolumeOpsTest, LayersNameTheirKernelsAndMacs) {
  OnnxGraph g;
  g.Input("x", {1, 4, 5, 8, 8});
  g.Initializer("w", {6, 4, 3, 3, 3}, RandomValues(6 * 4 * 27, -1, 1, 16));
  g.Initializer("dw", {6, 1, 3, 3, 3}, RandomValues(6 * 27, -1, 1, 17));
  OnnxGraph::Attr(g.Node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
  onnx::NodeProto* dw = g.Node("Conv", {"c", "dw"}, {"d"});
  OnnxGraph::Attr(dw, "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
  OnnxGraph::Attr(dw, "group", int64_t{6});
  OnnxGraph::Attr(g.Node("MaxPool", {"d"}, {"y"}), "kernel_shape", std::vector<int64_t>{1, 3, 3});
  g.Output("y");
  const std::shared_ptr<const Model> m = LoadOnnxGraph(g, "layers.onnx", /*optimize=*/true);
  ASSERT_NE(m, nullptr);
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    SessionConfig config;
    config.algorithm = policy;
    auto s = Session::Create(m, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const std::vector<LayerInfo> layers = (*s)->Layers();
    ASSERT_EQ(layers.size(), 3u);
    EXPECT_EQ(layers[0].macs, 6LL * 5 * 8 * 8 * 4 * 27);
    EXPECT_EQ(layers[1].macs, 6LL * 5 * 8 * 8 * 27);
    EXPECT_EQ(layers[2].macs, 0);
    const bool ref = policy == AlgorithmPolicy::kReference;
    EXPECT_EQ(layers[0].kernel.rfind(ref ? "conv3d_ref" : "conv3d_gemm_", 0), 0u) << layers[0].kernel;
    EXPECT_EQ(layers[1].kernel, ref ? "conv3d_ref" : "conv3d_depthwise");
    EXPECT_EQ(layers[2].kernel, ref ? "max_pool3d_ref" : "max_pool3d_separable");
  }
}

// A pointwise 3-D convolution (S3D's inception branches) over more output
// voxels than one block, more channels than one GEMM row tile, then ReLU;
// and one with no bias whose output rows end mid-panel.
TEST(OnnxVolumeOpsTest, PointwiseConv3dWithRelu) {
  for (bool bias : {true, false}) {
    OnnxGraph g;
    g.Input("x", {1, 24, 3, 21, 19});
    g.Initializer("w", {13, 24, 1, 1, 1}, RandomValues(13 * 24, -1, 1, 14));
    std::vector<std::string> in = {"x", "w"};
    if (bias) {
      g.Initializer("b", {13}, RandomValues(13, -1, 1, 15));
      in.push_back("b");
    }
    g.Node("Conv", in, {"c"});
    g.Node("Relu", {"c"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {1, 24, 3, 21, 19}, RandomValues(24 * 3 * 21 * 19)}});
  }
}

}  // namespace
}  // namespace rill::inference::testing
