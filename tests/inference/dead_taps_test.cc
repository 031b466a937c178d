// optimize::CropDeadConvTaps: kernel rows and columns of a dilated or
// heavily padded conv that read only padding everywhere are cropped from the
// filter (DeepLabV3's ASPP), and the conv still computes ONNX Runtime's
// values (optimized and reference kernels, 1 and 2 threads).
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

}  // namespace
}  // namespace rill::inference::testing
