// GatherElements, OneHot, Hardmax, Trilu, Size, IsNaN, IsInf,
// MeanVarianceNormalization and LpNormalization on the engine against ONNX
// Runtime (onnx_op_test_util.h: optimized and reference kernels, 1 and 2
// threads). ONNX Runtime's runner reads and writes float32, so integer and
// bool values pass through Cast nodes in the test graphs.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

// Indices as float, cast to int64 in the graph: in range, negative (from
// the end) and out of range (a row of `off`).
TEST(OnnxIndexOpsTest, OneHotEveryAxis) {
  const std::vector<float> idx = {0, 3, -1, 2, 7, -5, 1, 4};  // depth 5: 7 and -5 hit nothing / wrap to 0
  for (int64_t axis : {-1, 0, 1, 2}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    OnnxGraph g;
    g.Input("x", {2, 4});
    OnnxGraph::Attr(g.Node("Cast", {"x"}, {"i"}), "to", int64_t{7});
    g.Int64Initializer("depth", {}, {5});
    g.Initializer("values", {2}, {-0.5f, 2.0f});
    OnnxGraph::Attr(g.Node("OneHot", {"i", "depth", "values"}, {"y"}), "axis", axis);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 4}, idx}});
  }
}

TEST(OnnxIndexOpsTest, HardmaxFirstMaximum) {
  // Ties: the first maximum only.
  std::vector<float> x = RandomValues(60, -1.0f, 1.0f, 61);
  x[3] = x[4] = 5.0f;
  for (int64_t axis : {-1, 0, 1}) {
    OnnxGraph g(13);
    g.Input("x", {3, 4, 5});
    OnnxGraph::Attr(g.Node("Hardmax", {"x"}, {"y"}), "axis", axis);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {3, 4, 5}, x}});
  }
  OnnxGraph g(11);  // the 2-D view from axis 1
  g.Input("x", {3, 4, 5});
  OnnxGraph::Attr(g.Node("Hardmax", {"x"}, {"y"}), "axis", int64_t{1});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {3, 4, 5}, x}});
}

// Upper and lower, k of either sign, wide and tall.
TEST(OnnxIndexOpsTest, TriluBothTrianglesAnyK) {
  const std::vector<float> x = RandomValues(2 * 4 * 6, -2.0f, 2.0f, 62);
  for (int upper : {0, 1}) {
    for (int64_t k : {-2, 0, 1, 3}) {
      for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 4, 6}, std::vector<int64_t>{2, 6, 4}}) {
        SCOPED_TRACE("upper " + std::to_string(upper) + " k " + std::to_string(k));
        OnnxGraph g(14);
        g.Input("x", shape);
        g.Int64Initializer("k", {}, {k});
        OnnxGraph::Attr(g.Node("Trilu", {"x", "k"}, {"y"}), "upper", static_cast<int64_t>(upper));
        g.Output("y");
        ExpectMatchesOrt(g, {{"x", shape, x}});
      }
    }
  }
  OnnxGraph g(14);  // no k: 0
  g.Input("x", {5, 5});
  g.Node("Trilu", {"x"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {5, 5}, RandomValues(25, -1.0f, 1.0f, 63)}});
}

// Outside the kept triangle an infinity or NaN gives 0 (a select, not a
// multiply by a 0 / 1 mask); inside it stays (the comparison with ONNX
// Runtime's outputs cannot take infinities, so by hand).
TEST(OnnxIndexOpsTest, TriluZeroesInfinitiesOutsideItsTriangle) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  OnnxGraph g(14);
  g.Input("x", {2, 2});
  g.Node("Trilu", {"x"}, {"y"});  // upper, k 0
  g.Output("y");
  auto model = LoadOnnxGraph(g, "trilu.onnx");
  ASSERT_NE(model, nullptr);
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    const std::vector<float> y = RunEngine(*model, {inf, -inf, nan, 2.0f}, policy);
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(y[0], inf);
    EXPECT_EQ(y[1], -inf);
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[3], 2.0f);
  }
}

// GatherElements on every axis: run-time indices (cast from the float input,
// negative ones included), constant ones, and both constant (folded).
TEST(OnnxIndexOpsTest, GatherElementsEveryAxis) {
  const std::vector<int64_t> ds = {3, 4, 5};
  for (int64_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const int a = static_cast<int>(axis < 0 ? axis + 3 : axis);
    std::vector<int64_t> is = {2, 3, 4};  // smaller than data off the axis
    is[a] = 6;                            // longer than data along it
    std::vector<float> idx(Elements(is));
    for (size_t i = 0; i < idx.size(); ++i) {
      idx[i] = static_cast<float>(static_cast<int64_t>((i * 7) % (2 * ds[a])) - ds[a]);  // -dim .. dim-1
    }
    {
      OnnxGraph g;
      g.Input("data", ds);
      g.Input("i", is);
      OnnxGraph::Attr(g.Node("Cast", {"i"}, {"idx"}), "to", int64_t{7});
      OnnxGraph::Attr(g.Node("GatherElements", {"data", "idx"}, {"y"}), "axis", axis);
      g.Output("y");
      ExpectMatchesOrt(g, {{"data", ds, RandomValues(60, -2.0f, 2.0f, 65)}, {"i", is, idx}});
    }
    {
      OnnxGraph g;
      g.Input("data", ds);
      g.Int64Initializer("idx", is, std::vector<int64_t>(idx.begin(), idx.end()));
      OnnxGraph::Attr(g.Node("GatherElements", {"data", "idx"}, {"y"}), "axis", axis);
      g.Output("y");
      ExpectMatchesOrt(g, {{"data", ds, RandomValues(60, -2.0f, 2.0f, 66)}});
    }
  }
  OnnxGraph g;
  g.Input("x", {2, 2});
  g.Initializer("c", {2, 3}, {1, 2, 3, 4, 5, 6});
  g.Int64Initializer("idx", {2, 2}, {2, 0, -1, 1});
  OnnxGraph::Attr(g.Node("GatherElements", {"c", "idx"}, {"t"}), "axis", int64_t{1});
  g.Node("Add", {"x", "t"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 2}, RandomValues(4, -1.0f, 1.0f, 67)}});
  auto model = LoadOnnxGraph(g, "gather_elements_const.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "GATHER_ELEMENTS"), 0) << "constants fold";
}

TEST(OnnxIndexOpsTest, MeanVarianceAndLpNormalization) {
  const std::vector<int64_t> shape = {2, 3, 4, 5};
  const std::vector<float> x = RandomValues(120, -3.0f, 3.0f, 68);
  for (const std::vector<int64_t>& axes : {std::vector<int64_t>{}, std::vector<int64_t>{1}, std::vector<int64_t>{2, 3}}) {
    OnnxGraph g;
    g.Input("x", shape);
    onnx::NodeProto* n = g.Node("MeanVarianceNormalization", {"x"}, {"y"});
    if (!axes.empty()) OnnxGraph::Attr(n, "axes", axes);
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", shape, x}});
  }
  for (int64_t p : {1, 2}) {
    for (int64_t axis : {-1, 1}) {
      OnnxGraph g;
      g.Input("x", shape);
      onnx::NodeProto* n = g.Node("LpNormalization", {"x"}, {"y"});
      OnnxGraph::Attr(n, "p", p);
      OnnxGraph::Attr(n, "axis", axis);
      g.Output("y");
      ExpectMatchesOrt(g, {{"x", shape, x}});
    }
  }
}

TEST(OnnxIndexOpsTest, SizeFolds) {
  OnnxGraph g;
  g.Input("x", {2, 3, 4});
  g.Node("Size", {"x"}, {"n"});
  OnnxGraph::Attr(g.Node("Cast", {"n"}, {"nf"}), "to", int64_t{1});
  g.Node("Mul", {"x", "nf"}, {"y"});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {2, 3, 4}, RandomValues(24, -1.0f, 1.0f, 64)}});
  auto model = LoadOnnxGraph(g, "size.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "MUL"), 1);
  EXPECT_EQ(model->num_nodes(), 1) << "Size and its Cast fold";
}

TEST(OnnxIndexOpsTest, IsNanIsInf) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1.0f, nan, -inf, inf, 0.0f, -2.0f, nan, 3e38f};
  struct Case {
    const char* op;
    int negative, positive;  // IsInf's detect_negative / detect_positive (-1: not set)
  };
  for (const Case& k : {Case{"IsNaN", -1, -1}, Case{"IsInf", -1, -1}, Case{"IsInf", 0, 1}, Case{"IsInf", 1, 0}}) {
    SCOPED_TRACE(std::string(k.op) + " " + std::to_string(k.negative) + " " + std::to_string(k.positive));
    OnnxGraph g;
    g.Input("x", {8});
    onnx::NodeProto* n = g.Node(k.op, {"x"}, {"b"});
    if (k.negative >= 0) OnnxGraph::Attr(n, "detect_negative", static_cast<int64_t>(k.negative));
    if (k.positive >= 0) OnnxGraph::Attr(n, "detect_positive", static_cast<int64_t>(k.positive));
    OnnxGraph::Attr(g.Node("Cast", {"b"}, {"y"}), "to", int64_t{1});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {8}, x}});
  }
}

}  // namespace
}  // namespace rill::inference::testing
