// optimize::CropDeadConvTaps: kernel rows and columns of a dilated or
// heavily padded conv that read only padding everywhere are cropped from the
// filter (DeepLabV3's ASPP), and the conv still computes ONNX Runtime's
// values (optimized and reference kernels, 1 and 2 threads); and
// optimize::SplitConvIntoTapBands, which splits a conv whose taps read only
// padding at most of its outputs into regions of cropped filters.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

struct Case {
  std::vector<int64_t> x, w, dilations, pads;
  int64_t group;
  std::string auto_pad;
  Shape cropped;  // the filter's shape after optimization ([O, kh, kw, I])
};

void Check(const Case& c) {
  OnnxGraph g;
  g.Input("x", c.x);
  g.Initializer("w", c.w, RandomValues(Elements(c.w), -1, 1, 21));
  g.Initializer("b", {c.w[0]}, RandomValues(c.w[0], -1, 1, 22));
  onnx::NodeProto* n = g.Node("Conv", {"x", "w", "b"}, {"y"});
  OnnxGraph::Attr(n, "dilations", c.dilations);
  if (!c.pads.empty()) OnnxGraph::Attr(n, "pads", c.pads);
  if (!c.auto_pad.empty()) OnnxGraph::Attr(n, "auto_pad", c.auto_pad);
  if (c.group != 1) OnnxGraph::Attr(n, "group", c.group);
  g.Output("y");
  const std::shared_ptr<const Model> m = LoadOnnxGraph(g, "dead_taps.onnx", /*optimize=*/true);
  ASSERT_NE(m, nullptr);
  Shape filter;
  for (const ir::Node& node : m->graph().nodes) {
    if (ir::OpTypeName(node.type) == std::string("CONV_2D") ||
        ir::OpTypeName(node.type) == std::string("DEPTHWISE_CONV_2D")) {
      filter = m->graph().tensors[node.inputs[1]].shape;
    }
  }
  EXPECT_EQ(filter, c.cropped);
  ExpectMatchesOrt(g, {{"x", c.x, RandomValues(Elements(c.x), -1, 1, 23)}});
}

TEST(DeadTapsTest, CroppedWhereOnlyPaddingIsRead) {
  // ASPP at rate 36 on a 6x7 map: every tap but the centre reads padding.
  Check({{1, 8, 6, 7}, {5, 8, 3, 3}, {36, 36}, {36, 36, 36, 36}, 1, "", {5, 1, 1, 8}});
  // Rate 5 on 4x9: rows 0 and 2 dead, columns all live.
  Check({{1, 3, 4, 9}, {4, 3, 3, 3}, {5, 5}, {5, 5, 5, 5}, 1, "", {4, 1, 3, 3}});
  // Asymmetric padding: only the bottom row of taps dead (it reads rows
  // 6-8 of 5).
  Check({{1, 2, 5, 5}, {3, 2, 3, 3}, {3, 1}, {0, 1, 4, 1}, 1, "", {3, 2, 3, 2}});
  // SAME padding of a 7x7 depthwise kernel on a 3x3 map: the outer ring
  // reads only padding.
  Check({{1, 4, 3, 3}, {4, 1, 7, 7}, {1, 1}, {}, 4, "SAME_UPPER", {1, 5, 5, 4}});
}

TEST(DeadTapsTest, LeftAloneWhereEveryTapReadsSomething) {
  // Rate 2 on 8x8: every tap reads the input somewhere.
  Check({{1, 3, 8, 8}, {4, 3, 3, 3}, {2, 2}, {2, 2, 2, 2}, 1, "", {4, 3, 3, 3}});
}

// optimize::SplitConvIntoTapBands: the conv's CONV_2D nodes after
// optimization (their filters' shapes) and whether SLICE / CONCATENATION
// nodes were added; the values against ONNX Runtime.
struct Split {
  std::vector<Shape> filters;
  int slices = 0, concats = 0;
};

Split Optimized(const OnnxGraph& g) {
  Split s;
  const std::shared_ptr<const Model> m = LoadOnnxGraph(g, "tap_bands.onnx", /*optimize=*/true);
  EXPECT_NE(m, nullptr);
  if (m == nullptr) return s;
  for (const ir::Node& node : m->graph().nodes) {
    const std::string op = ir::OpTypeName(node.type);
    if (op == "CONV_2D") s.filters.push_back(m->graph().tensors[node.inputs[1]].shape);
    s.slices += op == "SLICE";
    s.concats += op == "CONCATENATION";
  }
  return s;
}

OnnxGraph DilatedConv(int64_t c, int64_t size, int64_t rate, bool relu) {
  OnnxGraph g;
  g.Input("x", {1, c, size, size});
  g.Initializer("w", {c, c, 3, 3}, RandomValues(c * c * 9, -1, 1, 31));
  g.Initializer("b", {c}, RandomValues(c, -1, 1, 32));
  onnx::NodeProto* n = g.Node("Conv", {"x", "w", "b"}, {relu ? "conv" : "y"});
  OnnxGraph::Attr(n, "dilations", std::vector<int64_t>{rate, rate});
  OnnxGraph::Attr(n, "pads", std::vector<int64_t>{rate, rate, rate, rate});
  if (relu) g.Node("Relu", {"conv"}, {"y"});
  g.Output("y");
  return g;
}

TEST(DeadTapsTest, SplitIntoBandsWhereMostTapsReadPadding) {
  // DeepLabV3's rate-24 ASPP conv on its 32x32 map (64 channels here: 38M
  // MACs): rows and columns each fall into three bands (taps {1, 2} for
  // outputs 0-7, {1} for 8-23, {0, 1} for 24-31), so nine regions: four 2x2
  // filters at the corners, four 1x2 / 2x1 at the edges, a 1x1 in the
  // middle; a quarter of the MACs. With and without a fused ReLU.
  for (bool relu : {false, true}) {
    SCOPED_TRACE(relu ? "with relu" : "plain");
    const OnnxGraph g = DilatedConv(64, 32, 24, relu);
    const Split s = Optimized(g);
    ASSERT_EQ(s.filters.size(), 9u);
    int corners = 0, edges = 0, centre = 0;
    for (const Shape& f : s.filters) {
      ASSERT_EQ(f.size(), 4u);
      const int taps = f[1] * f[2];
      corners += taps == 4;
      edges += taps == 2;
      centre += taps == 1;
    }
    EXPECT_EQ(corners, 4);
    EXPECT_EQ(edges, 4);
    EXPECT_EQ(centre, 1);
    EXPECT_GT(s.slices, 0);
    EXPECT_EQ(s.concats, 4);  // three rows of three, then the rows
    ExpectMatchesOrt(g, {{"x", {1, 64, 32, 32}, RandomValues(64 * 32 * 32, -1, 1, 33)}});
  }
}

TEST(DeadTapsTest, SplitAlongOneAxisWhereSmallRegionsWouldCostMore) {
  // Rate 12 on 32x32 (DeepLabV3's other ASPP conv): split both ways, the
  // 8x8 and 12x8 regions would run small GEMMs, so only the rows split:
  // bands of 12, 8 and 12 whole rows with 2, 3 and 2 rows of taps, the
  // columns' dead taps kept (the regions padded left and right).
  const OnnxGraph g = DilatedConv(64, 32, 12, false);
  const Split s = Optimized(g);
  ASSERT_EQ(s.filters.size(), 3u);
  EXPECT_EQ(s.filters[0], (Shape{64, 2, 3, 64}));
  EXPECT_EQ(s.filters[1], (Shape{64, 3, 3, 64}));
  EXPECT_EQ(s.filters[2], (Shape{64, 2, 3, 64}));
  EXPECT_EQ(s.concats, 1);
  ExpectMatchesOrt(g, {{"x", {1, 64, 32, 32}, RandomValues(64 * 32 * 32, -1, 1, 34)}});
}

TEST(DeadTapsTest, NotSplitWhereMostTapsAreLiveOrTheConvIsSmall) {
  // Rate 4 on 32x32 (DeepLabV3's layer4 convs): a quarter of the rows and
  // columns lose one tap; the split would save too little.
  {
    const OnnxGraph g = DilatedConv(64, 32, 4, false);
    const Split s = Optimized(g);
    ASSERT_EQ(s.filters.size(), 1u);
    EXPECT_EQ(s.filters[0], (Shape{64, 3, 3, 64}));
    EXPECT_EQ(s.slices + s.concats, 0);
  }
  // Rate 24 but 0.6M MACs: the slices and joins would cost more than they save.
  {
    const OnnxGraph g = DilatedConv(8, 32, 24, false);
    const Split s = Optimized(g);
    ASSERT_EQ(s.filters.size(), 1u);
    EXPECT_EQ(s.slices + s.concats, 0);
  }
}

}  // namespace
}  // namespace rill::inference::testing
