// EyeLike, ReverseSequence, CenterCropPad, Col2Im, AffineGrid, MaxUnpool,
// LpPool, GlobalLpPool, CastLike, the Optional ops, DeformConv (lowered to
// existing ops at import) and Det (DET) on the engine against ONNX Runtime
// (onnx_op_test_util.h: optimized and reference kernels, 1 and 2 threads),
// and by hand where a lowering's arithmetic is worth spelling out. ONNX
// Runtime's runner reads and writes float32, so integer values pass through
// Cast nodes in the test graphs.
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

// EyeLike's output is a constant (from the input's shape): added to the
// input so that the graph's output is computed.
TEST(OnnxMoreOpsTest, EyeLikeAnyDiagonalAndType) {
  for (int64_t k : {-2, 0, 1, 4, 7}) {
    for (int64_t dtype : {int64_t{-1}, int64_t{7}}) {
      SCOPED_TRACE("k " + std::to_string(k) + " dtype " + std::to_string(dtype));
      OnnxGraph g;
      g.Input("x", {3, 5});
      onnx::NodeProto* n = g.Node("EyeLike", {"x"}, {"e"});
      OnnxGraph::Attr(n, "k", k);
      if (dtype >= 0) {
        OnnxGraph::Attr(n, "dtype", dtype);
        OnnxGraph::Attr(g.Node("Cast", {"e"}, {"ef"}), "to", int64_t{1});
      } else {
        g.Node("Identity", {"e"}, {"ef"});
      }
      g.Node("Add", {"x", "ef"}, {"y"});
      g.Output("y");
      ExpectMatchesOrt(g, {{"x", {3, 5}, RandomValues(15, -1.0f, 1.0f, 101)}});
    }
  }
  // By hand: x = 0, k = 1 on 2 x 3 gives the first superdiagonal.
  OnnxGraph g;
  g.Input("x", {2, 3});
  OnnxGraph::Attr(g.Node("EyeLike", {"x"}, {"e"}), "k", int64_t{1});
  g.Node("Add", {"x", "e"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "eyelike.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, std::vector<float>(6, 0.0f), AlgorithmPolicy::kReference),
            (std::vector<float>{0, 1, 0, 0, 0, 1}));
}

// Both axis orders, constant lengths (one index constant) and run-time ones
// (LESS / SUB / WHERE, expanded), a full and a length-1 sequence among them.
TEST(OnnxMoreOpsTest, ReverseSequenceConstantAndRunTimeLengths) {
  for (int64_t time_axis : {0, 1}) {
    const std::vector<int64_t> shape = time_axis == 0 ? std::vector<int64_t>{4, 3, 2} : std::vector<int64_t>{3, 4, 2};
    const std::vector<float> x = RandomValues(24, -2.0f, 2.0f, 102);
    for (bool constant : {true, false}) {
      SCOPED_TRACE("time_axis " + std::to_string(time_axis) + (constant ? " constant" : " run-time"));
      OnnxGraph g(11);
      g.Input("x", shape);
      if (constant) {
        g.Int64Initializer("lens", {3}, {4, 1, 3});
      } else {
        g.Input("l", {3});
        OnnxGraph::Attr(g.Node("Cast", {"l"}, {"lens"}), "to", int64_t{7});
      }
      onnx::NodeProto* n = g.Node("ReverseSequence", {"x", "lens"}, {"y"});
      OnnxGraph::Attr(n, "time_axis", time_axis);
      OnnxGraph::Attr(n, "batch_axis", 1 - time_axis);
      g.Output("y");
      std::vector<ort::OrtTensor> in = {{"x", shape, x}};
      if (!constant) in.push_back({"l", {3}, {4, 1, 3}});
      ExpectMatchesOrt(g, in);
    }
  }
  // Rank 2 by hand: [T = 3, B = 2], lengths 2 and 3.
  OnnxGraph g(11);
  g.Input("x", {3, 2});
  g.Int64Initializer("lens", {2}, {2, 3});
  g.Node("ReverseSequence", {"x", "lens"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "reverse_sequence.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, {0, 10, 1, 11, 2, 12}, AlgorithmPolicy::kReference),
            (std::vector<float>{1, 12, 0, 11, 2, 10}));
}

// Crops and pads by odd and even amounts (the odd element at the end), with
// and without axes.
TEST(OnnxMoreOpsTest, CenterCropPad) {
  const std::vector<float> x = RandomValues(60, -1.0f, 1.0f, 103);
  struct Case {
    std::vector<int64_t> shape, axes;
  };
  for (const Case& k : {Case{{3, 9}, {1, 2}}, Case{{4, 2, 8}, {}}, Case{{2, 3}, {-2, 0}}, Case{{5, 6}, {1, 2}}}) {
    OnnxGraph g(18);
    g.Input("x", {2, 5, 6});
    g.Int64Initializer("s", {static_cast<int64_t>(k.shape.size())}, k.shape);
    onnx::NodeProto* n = g.Node("CenterCropPad", {"x", "s"}, {"c"});
    if (!k.axes.empty()) OnnxGraph::Attr(n, "axes", k.axes);
    g.Node("Neg", {"c"}, {"y"});  // the last case is the input itself
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 5, 6}, x}});
  }
}

// Col2Im: plain, and strided, padded and dilated; by hand, overlapping
// blocks add.
TEST(OnnxMoreOpsTest, Col2Im) {
  {
    OnnxGraph g(18);
    g.Input("x", {2, 12, 16});  // C = 3, 2x2 blocks over a 5x5 image
    g.Int64Initializer("image", {2}, {5, 5});
    g.Int64Initializer("block", {2}, {2, 2});
    g.Node("Col2Im", {"x", "image", "block"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 12, 16}, RandomValues(384, -1.0f, 1.0f, 104)}});
  }
  {
    OnnxGraph g(18);
    g.Input("x", {2, 6, 18});  // C = 3, 2x1 blocks, L = 3 x 6
    g.Int64Initializer("image", {2}, {5, 5});
    g.Int64Initializer("block", {2}, {2, 1});
    onnx::NodeProto* n = g.Node("Col2Im", {"x", "image", "block"}, {"y"});
    OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 1});
    OnnxGraph::Attr(n, "dilations", std::vector<int64_t>{2, 1});
    OnnxGraph::Attr(n, "pads", std::vector<int64_t>{1, 0, 1, 1});
    g.Node("Identity", {"y"}, {"z"});
    g.Output("z");
    ExpectMatchesOrt(g, {{"x", {2, 6, 18}, RandomValues(216, -1.0f, 1.0f, 105)}});
  }
  // 1 channel, 1x3 image, 1x2 blocks at stride 1: image position = block
  // position + element, and the middle one is written twice.
  OnnxGraph g(18);
  g.Input("x", {1, 2, 2});
  g.Int64Initializer("image", {2}, {1, 3});
  g.Int64Initializer("block", {2}, {1, 2});
  g.Node("Col2Im", {"x", "image", "block"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "col2im.onnx");
  ASSERT_NE(model, nullptr);
  // Row 0 (the block's first element at positions 0 and 1): 1, 10; row 1
  // (its second, at 1 and 2): 100, 1000.
  EXPECT_EQ(RunEngine(*model, {1, 10, 100, 1000}, AlgorithmPolicy::kReference),
            (std::vector<float>{1, 110, 1000}));
}

TEST(OnnxMoreOpsTest, AffineGrid2dAnd3d) {
  for (int64_t align : {0, 1}) {
    SCOPED_TRACE("align_corners " + std::to_string(align));
    {
      OnnxGraph g(20);
      g.Input("theta", {2, 2, 3});
      g.Int64Initializer("size", {4}, {2, 3, 4, 5});
      OnnxGraph::Attr(g.Node("AffineGrid", {"theta", "size"}, {"y"}), "align_corners", align);
      g.Output("y");
      ExpectMatchesOrt(g, {{"theta", {2, 2, 3}, RandomValues(12, -1.5f, 1.5f, 106)}});
    }
    {
      OnnxGraph g(20);
      g.Input("theta", {2, 3, 4});
      g.Int64Initializer("size", {5}, {2, 1, 3, 4, 5});
      OnnxGraph::Attr(g.Node("AffineGrid", {"theta", "size"}, {"y"}), "align_corners", align);
      g.Output("y");
      ExpectMatchesOrt(g, {{"theta", {2, 3, 4}, RandomValues(24, -1.5f, 1.5f, 107)}});
    }
  }
  // By hand: the identity theta gives the base grid itself; 1 x 2 at
  // align_corners 0: x = -0.5, 0.5 and y = 0.
  OnnxGraph g(20);
  g.Input("theta", {1, 2, 3});
  g.Int64Initializer("size", {4}, {1, 1, 1, 2});
  g.Node("AffineGrid", {"theta", "size"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "affine_grid.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, {1, 0, 0, 0, 1, 0}, AlgorithmPolicy::kReference),
            (std::vector<float>{-0.5f, 0.0f, 0.5f, 0.0f}));
}

// Indices as MaxPool writes them (flat over the whole output tensor), given
// at run time and as a constant, with and without output_shape.
TEST(OnnxMoreOpsTest, MaxUnpool) {
  // [1, 2, 2, 2] unpooled by 2x2 windows at stride 2 into [1, 2, 4, 4]: one
  // position per window.
  const std::vector<float> idx = {5, 2, 8, 15, 16 + 0, 16 + 3, 16 + 13, 16 + 10};
  const std::vector<float> x = RandomValues(8, -1.0f, 1.0f, 108);
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "constant indices" : "run-time indices");
    OnnxGraph g(11);
    g.Input("x", {1, 2, 2, 2});
    if (constant) {
      g.Int64Initializer("i", {1, 2, 2, 2}, std::vector<int64_t>(idx.begin(), idx.end()));
    } else {
      g.Input("fi", {1, 2, 2, 2});
      OnnxGraph::Attr(g.Node("Cast", {"fi"}, {"i"}), "to", int64_t{7});
    }
    onnx::NodeProto* n = g.Node("MaxUnpool", {"x", "i"}, {"y"});
    OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 2});
    g.Output("y");
    std::vector<ort::OrtTensor> in = {{"x", {1, 2, 2, 2}, x}};
    if (!constant) in.push_back({"fi", {1, 2, 2, 2}, idx});
    ExpectMatchesOrt(g, in);
  }
  // output_shape [1, 2, 5, 5]: indices into the larger planes.
  OnnxGraph g(11);
  g.Input("x", {1, 2, 2, 2});
  g.Input("fi", {1, 2, 2, 2});
  OnnxGraph::Attr(g.Node("Cast", {"fi"}, {"i"}), "to", int64_t{7});
  g.Int64Initializer("shape", {4}, {1, 2, 5, 5});
  onnx::NodeProto* n = g.Node("MaxUnpool", {"x", "i", "shape"}, {"y"});
  OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
  OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 2});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 2, 2, 2}, x}, {"fi", {1, 2, 2, 2}, {0, 3, 11, 24, 25, 30, 42, 49}}});
  // 1-D with pads: [1, 1, 3] by 3 at stride 2, pads 1 and 1: 2 * 2 - 2 + 3 = 5.
  OnnxGraph g1(11);
  g1.Input("x", {1, 1, 3});
  g1.Int64Initializer("i", {1, 1, 3}, {0, 2, 4});
  onnx::NodeProto* n1 = g1.Node("MaxUnpool", {"x", "i"}, {"y"});
  OnnxGraph::Attr(n1, "kernel_shape", std::vector<int64_t>{3});
  OnnxGraph::Attr(n1, "strides", std::vector<int64_t>{2});
  OnnxGraph::Attr(n1, "pads", std::vector<int64_t>{1, 1});
  g1.Output("y");
  auto model = LoadOnnxGraph(g1, "max_unpool.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, {7, 8, 9}, AlgorithmPolicy::kReference), (std::vector<float>{7, 0, 8, 0, 9}));
}

TEST(OnnxMoreOpsTest, LpPool2d) {
  const std::vector<float> x = RandomValues(2 * 3 * 7 * 6, -2.0f, 2.0f, 109);
  for (int64_t p : {1, 2, 3}) {
    for (int variant = 0; variant < 3; ++variant) {
      SCOPED_TRACE("p " + std::to_string(p) + " variant " + std::to_string(variant));
      OnnxGraph g(11);
      g.Input("x", {2, 3, 7, 6});
      onnx::NodeProto* n = g.Node("LpPool", {"x"}, {"y"});
      OnnxGraph::Attr(n, "p", p);
      OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{3, 2});
      if (variant == 1) {
        OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 2});
        OnnxGraph::Attr(n, "pads", std::vector<int64_t>{1, 0, 1, 1});
      } else if (variant == 2) {
        OnnxGraph::Attr(n, "auto_pad", std::string("SAME_UPPER"));
        OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 1});
      }
      g.Output("y");
      ExpectMatchesOrt(g, {{"x", {2, 3, 7, 6}, x}});
    }
  }
}

// Opset 18: ceil_mode (the last window partly outside the input) and
// dilations; 1-D.
TEST(OnnxMoreOpsTest, LpPoolCeilModeDilationsAnd1d) {
  const std::vector<float> x = RandomValues(2 * 3 * 7 * 6, -2.0f, 2.0f, 110);
  {
    OnnxGraph g(18);
    g.Input("x", {2, 3, 7, 6});
    onnx::NodeProto* n = g.Node("LpPool", {"x"}, {"y"});
    OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{3, 3});
    OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2, 2});
    OnnxGraph::Attr(n, "ceil_mode", int64_t{1});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 7, 6}, x}});
  }
  {
    OnnxGraph g(18);
    g.Input("x", {2, 3, 7, 6});
    onnx::NodeProto* n = g.Node("LpPool", {"x"}, {"y"});
    OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    OnnxGraph::Attr(n, "dilations", std::vector<int64_t>{2, 1});
    OnnxGraph::Attr(n, "p", int64_t{3});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 7, 6}, x}});
  }
  {
    OnnxGraph g(11);
    g.Input("x", {2, 3, 9});
    onnx::NodeProto* n = g.Node("LpPool", {"x"}, {"y"});
    OnnxGraph::Attr(n, "kernel_shape", std::vector<int64_t>{3});
    OnnxGraph::Attr(n, "strides", std::vector<int64_t>{2});
    OnnxGraph::Attr(n, "pads", std::vector<int64_t>{1, 1});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3, 9}, RandomValues(54, -2.0f, 2.0f, 111)}});
  }
  // By hand: p = 2 over [3, 4] is 5.
  OnnxGraph g(11);
  g.Input("x", {1, 1, 2});
  OnnxGraph::Attr(g.Node("LpPool", {"x"}, {"y"}), "kernel_shape", std::vector<int64_t>{2});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "lp_pool.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> y = RunEngine(*model, {3, -4}, AlgorithmPolicy::kReference);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_FLOAT_EQ(y[0], 5.0f);
}

// Over 1, 2 and 3 spatial axes; an NHWC input (after a Conv) reduced in
// place.
TEST(OnnxMoreOpsTest, GlobalLpPool) {
  for (int64_t p : {1, 2, 3}) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{2, 3, 7}, std::vector<int64_t>{2, 3, 5, 6}, std::vector<int64_t>{1, 2, 3, 4, 5}}) {
      SCOPED_TRACE("p " + std::to_string(p) + " rank " + std::to_string(shape.size()));
      OnnxGraph g;
      g.Input("x", shape);
      OnnxGraph::Attr(g.Node("GlobalLpPool", {"x"}, {"y"}), "p", p);
      g.Output("y");
      ExpectMatchesOrt(g, {{"x", shape, RandomValues(Elements(shape), -2.0f, 2.0f, 112)}});
    }
  }
  OnnxGraph g;
  g.Input("x", {1, 3, 6, 5});
  g.Initializer("w", {4, 3, 3, 3}, RandomValues(108, -0.5f, 0.5f, 113));
  g.Node("Conv", {"x", "w"}, {"c"});
  OnnxGraph::Attr(g.Node("GlobalLpPool", {"c"}, {"y"}), "p", int64_t{3});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {1, 3, 6, 5}, RandomValues(90, -1.0f, 1.0f, 114)}});
  // By hand: p = 1 over [[1, -2], [3, -4]] is 10.
  OnnxGraph h;
  h.Input("x", {1, 1, 2, 2});
  OnnxGraph::Attr(h.Node("GlobalLpPool", {"x"}, {"y"}), "p", int64_t{1});
  h.Output("y");
  auto model = LoadOnnxGraph(h, "global_lp_pool.onnx");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(RunEngine(*model, {1, -2, 3, -4}, AlgorithmPolicy::kReference), (std::vector<float>{10}));
}

// CastLike to an int64 initializer's type (truncation), to a comparison's
// bool (x != 0), and to a float graph input's (as is).
TEST(OnnxMoreOpsTest, CastLike) {
  std::vector<float> x = RandomValues(24, -3.0f, 3.0f, 115);
  x[0] = 0.0f;
  for (int target = 0; target < 3; ++target) {
    SCOPED_TRACE("target " + std::to_string(target));
    OnnxGraph g(15);
    g.Input("x", {2, 3, 4});
    std::string like = "t";
    if (target == 0) {
      g.Int64Initializer("t", {1}, {5});
    } else if (target == 1) {
      g.Initializer("half", {}, {0.5f});
      g.Node("Greater", {"x", "half"}, {"t"});
    } else {
      g.Input("f", {1});
      OnnxGraph::Attr(g.Node("Cast", {"x"}, {"xi"}), "to", int64_t{7});
      like = "f";
    }
    g.Node("CastLike", {target == 2 ? "xi" : "x", like}, {"c"});
    OnnxGraph::Attr(g.Node("Cast", {"c"}, {"y"}), "to", int64_t{1});
    g.Output("y");
    std::vector<ort::OrtTensor> in = {{"x", {2, 3, 4}, x}};
    if (target == 2) in.push_back({"f", {1}, {0.0f}});
    ExpectMatchesOrt(g, in);
  }
}

// An optional holding x is x; it has an element (a constant true, as the
// missing input of opset 18 gives false).
TEST(OnnxMoreOpsTest, OptionalOps) {
  for (bool empty_input : {false, true}) {
    OnnxGraph g(18);
    g.Input("x", {2, 3});
    g.Node("Optional", {"x"}, {"o"});
    g.Node("OptionalGetElement", {"o"}, {"e"});
    g.Node("OptionalHasElement", {empty_input ? "" : "o"}, {"h"});
    OnnxGraph::Attr(g.Node("Cast", {"h"}, {"hf"}), "to", int64_t{1});
    g.Node("Mul", {"e", "hf"}, {"m"});
    g.Node("Add", {"m", "x"}, {"y"});  // 2x with an element, x without
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", {2, 3}, RandomValues(6, -1.0f, 1.0f, 116)}});
    auto model = LoadOnnxGraph(g, "optional.onnx");
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(RunEngine(*model, {1, 2, 3, 4, 5, 6}, AlgorithmPolicy::kReference),
              empty_input ? (std::vector<float>{1, 2, 3, 4, 5, 6}) : (std::vector<float>{2, 4, 6, 8, 10, 12}));
  }
}

// DeformConv: conv and offset groups, strides, pads, dilations, with and
// without mask and bias; offsets that reach outside the input.
TEST(OnnxMoreOpsTest, DeformConv) {
  struct Case {
    int64_t group, offset_group;
    std::vector<int64_t> strides, pads, dilations;
    bool mask, bias;
  };
  const std::vector<Case> cases = {
      {1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, false, false},
      {2, 2, {1, 2}, {1, 1, 1, 0}, {1, 1}, true, true},
      {1, 4, {2, 1}, {2, 1, 0, 2}, {2, 1}, true, false},
      {2, 1, {1, 1}, {1, 1, 1, 1}, {1, 2}, false, true},
  };
  for (size_t t = 0; t < cases.size(); ++t) {
    const Case& k = cases[t];
    SCOPED_TRACE("case " + std::to_string(t));
    const int64_t n = 2, ch = 4, h = 7, w = 6, oc = 6, kh = 3, kw = 2;
    const int64_t oh = (h + k.pads[0] + k.pads[2] - (k.dilations[0] * (kh - 1) + 1)) / k.strides[0] + 1;
    const int64_t ow = (w + k.pads[1] + k.pads[3] - (k.dilations[1] * (kw - 1) + 1)) / k.strides[1] + 1;
    const std::vector<int64_t> os = {n, k.offset_group * kh * kw * 2, oh, ow};
    const std::vector<int64_t> ms = {n, k.offset_group * kh * kw, oh, ow};
    OnnxGraph g(19);
    g.Input("x", {n, ch, h, w});
    g.Input("offset", os);
    g.Initializer("w", {oc, ch / k.group, kh, kw}, RandomValues(oc * ch / k.group * kh * kw, -1.0f, 1.0f, 117));
    std::vector<std::string> ins = {"x", "w", "offset"};
    std::vector<ort::OrtTensor> inputs = {{"x", {n, ch, h, w}, RandomValues(n * ch * h * w, -1.0f, 1.0f, 118)},
                                          {"offset", os, RandomValues(Elements(os), -2.5f, 2.5f, 119)}};
    if (k.bias) {
      g.Initializer("b", {oc}, RandomValues(oc, -1.0f, 1.0f, 120));
      ins.push_back("b");
    } else if (k.mask) {
      ins.push_back("");
    }
    if (k.mask) {
      g.Input("mask", ms);
      ins.push_back("mask");
      inputs.push_back({"mask", ms, RandomValues(Elements(ms), 0.0f, 1.0f, 121)});
    }
    onnx::NodeProto* node = g.Node("DeformConv", ins, {"y"});
    OnnxGraph::Attr(node, "group", k.group);
    OnnxGraph::Attr(node, "offset_group", k.offset_group);
    OnnxGraph::Attr(node, "strides", k.strides);
    OnnxGraph::Attr(node, "pads", k.pads);
    OnnxGraph::Attr(node, "dilations", k.dilations);
    OnnxGraph::Attr(node, "kernel_shape", std::vector<int64_t>{kh, kw});
    g.Output("y");
    ExpectMatchesOrt(g, inputs);
  }
  // By hand: a 1x1 kernel of weight 1 whose offset moves every tap half a
  // pixel right samples the mean of each pixel and its right neighbour (0
  // past the edge).
  OnnxGraph g(19);
  g.Input("x", {1, 1, 1, 3});
  g.Initializer("w", {1, 1, 1, 1}, {1.0f});
  g.Initializer("offset", {1, 2, 1, 3}, {0, 0, 0, 0.5f, 0.5f, 0.5f});
  g.Node("DeformConv", {"x", "w", "offset"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "deform_conv.onnx");
  ASSERT_NE(model, nullptr);
  const std::vector<float> y = RunEngine(*model, {2, 4, 8}, AlgorithmPolicy::kReference);
  const std::vector<float> want = {3, 6, 4};
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5) << i;
}

// Batches of matrices of sizes 1 to 5, a singular one and one that needs a
// row swap; by hand.
TEST(OnnxMoreOpsTest, Det) {
  for (int64_t m : {1, 2, 3, 5}) {
    SCOPED_TRACE("m " + std::to_string(m));
    const std::vector<int64_t> shape = {2, 3, m, m};
    OnnxGraph g(11);
    g.Input("x", shape);
    g.Node("Det", {"x"}, {"y"});
    g.Output("y");
    ExpectMatchesOrt(g, {{"x", shape, RandomValues(Elements(shape), -2.0f, 2.0f, 122)}});
  }
  OnnxGraph g(11);
  g.Input("x", {3, 2, 2});
  g.Node("Det", {"x"}, {"y"});
  g.Output("y");
  auto model = LoadOnnxGraph(g, "det.onnx");
  ASSERT_NE(model, nullptr);
  // [[1, 2], [3, 4]] -> -2; [[0, 1], [1, 0]] (a swap) -> -1; [[1, 2], [2, 4]] -> 0.
  EXPECT_EQ(RunEngine(*model, {1, 2, 3, 4, 0, 1, 1, 0, 1, 2, 2, 4}, AlgorithmPolicy::kReference),
            (std::vector<float>{-2, -1, 0}));
}

// Gemm and MatMul with constant weights become FULLY_CONNECTED with the
// weights stored [N, K] (alpha folded in, the transpose in blocks of 32):
// B as [K, N] and as [N, K] (transB), alpha and beta, a bias of N values and
// of one; sizes that are not multiples of the blocks.
TEST(OnnxMoreOpsTest, GemmAndMatMulWeightsAnyLayout) {
  const int m = 3, k = 37, n = 45;
  for (int trans_b : {0, 1}) {
    for (int bias_size : {n, 1}) {
      OnnxGraph g;
      g.Input("x", {m, k});
      g.Initializer("b", trans_b ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n},
                    RandomValues(n * k, -1, 1, 21 + trans_b));
      g.Initializer("c", {bias_size}, RandomValues(bias_size, -1, 1, 23));
      onnx::NodeProto* gemm = g.Node("Gemm", {"x", "b", "c"}, {"y"});
      OnnxGraph::Attr(gemm, "transB", int64_t{trans_b});
      OnnxGraph::Attr(gemm, "alpha", 0.5f);
      OnnxGraph::Attr(gemm, "beta", 2.0f);
      g.Output("y");
      const std::shared_ptr<const Model> model = LoadOnnxGraph(g, "gemm.onnx", /*optimize=*/false);
      ASSERT_NE(model, nullptr);
      EXPECT_EQ(CountOps(*model, "FULLY_CONNECTED"), 1);
      ExpectMatchesOrt(g, {{"x", {m, k}, RandomValues(m * k)}});
    }
  }
  OnnxGraph g;
  g.Input("x", {2, m, 70});
  g.Initializer("w", {70, 33}, RandomValues(70 * 33, -1, 1, 25));
  g.Node("MatMul", {"x", "w"}, {"y"});
  g.Output("y");
  const std::shared_ptr<const Model> model = LoadOnnxGraph(g, "matmul.onnx", /*optimize=*/false);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(CountOps(*model, "FULLY_CONNECTED"), 1);
  ExpectMatchesOrt(g, {{"x", {2, m, 70}, RandomValues(2 * m * 70)}});
}

}  // namespace
}  // namespace rill::inference::testing
