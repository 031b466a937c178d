// The fusing passes on graphs built in memory: optimize::FuseResidualAdd
// (conv -> ADD(skip) -> activation, BlazeFace's channel PAD of the skip),
// optimize::FusePRelu (conv -> PRELU, BlazePalm's blocks) and
// optimize::FuseDepthwiseBlocks ([expand ->] depthwise -> project): which
// patterns fuse and which must not, and that the fused graph computes what
// the raw graph computes, on the optimized and the reference kernels, at 1, 2
// and 3 threads (the optimized kernels bit-identical for any thread count).
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "inference/optimize/passes.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

struct Builder {
  ir::Graph g;
  std::mt19937 rng{7};

  int Activation(const std::string& name, const Shape& shape) {
    ir::TensorInfo t;
    t.name = name;
    t.shape = shape;
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  }
  int Floats(const std::string& name, const Shape& shape) {
    const int id = Activation(name, shape);
    const std::vector<float> v = testing::RandomFloats(static_cast<size_t>(NumElements(shape)), &rng);
    std::vector<uint8_t> bytes(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    g.SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
    return id;
  }
  int Ints(const std::string& name, const Shape& shape, const std::vector<int32_t>& v) {
    const int id = Activation(name, shape);
    std::vector<uint8_t> bytes(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    g.SetConstant(id, DataType::kInt32, shape, std::move(bytes));
    return id;
  }
  // A SAME conv of `out_c` filters of size k (in `groups` channel groups),
  // returning its output tensor.
  int Conv(const std::string& name, int x, int out_c, int k, ir::Activation act, int groups = 1) {
    const Shape xs = g.tensors[x].shape;  // a copy: adding tensors moves them
    ir::Node n;
    n.name = name;
    n.type = ir::OpType::kConv2D;
    n.attrs.padding = ir::Padding::kSame;
    n.attrs.activation = act;
    n.inputs = {x, Floats(name + "/w", {out_c, k, k, xs[3] / groups}), Floats(name + "/b", {out_c})};
    n.outputs = {Activation(name, {xs[0], xs[1], xs[2], out_c})};
    g.nodes.push_back(n);
    return n.outputs[0];
  }
  // A k x k depthwise conv (multiplier 1), output shape given.
  int Depthwise(const std::string& name, int x, int k, int stride, ir::Padding padding, ir::Activation act,
                const Shape& out) {
    const Shape xs = g.tensors[x].shape;
    ir::Node n;
    n.name = name;
    n.type = ir::OpType::kDepthwiseConv2D;
    n.attrs.padding = padding;
    n.attrs.stride_h = n.attrs.stride_w = stride;
    n.attrs.activation = act;
    n.inputs = {x, Floats(name + "/w", {1, k, k, xs[3]}), Floats(name + "/b", {xs[3]})};
    n.outputs = {Activation(name, out)};
    g.nodes.push_back(n);
    return n.outputs[0];
  }
  int Op(ir::OpType type, const std::string& name, std::vector<int> inputs, const Shape& out,
         ir::Activation act = ir::Activation::kNone) {
    ir::Node n;
    n.name = name;
    n.type = type;
    n.attrs.activation = act;
    n.inputs = std::move(inputs);
    n.outputs = {Activation(name, out)};
    g.nodes.push_back(n);
    return n.outputs[0];
  }
};

int Count(const ir::Graph& g, ir::OpType type) {
  int n = 0;
  for (const ir::Node& node : g.nodes) n += node.type == type;
  return n;
}

// Outputs equal to rounding: within 1e-4 of 1 + |want| each (stops at the
// first miss).
void ExpectNear(const std::vector<float>& want, const float* got, size_t n, int threads) {
  ASSERT_EQ(want.size(), n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_NEAR(want[i], got[i], 1e-4f * (1.0f + std::fabs(want[i]))) << "at " << i << " threads " << threads;
  }
}

// Runs the raw and the optimized graph on the same random input and expects
// the same outputs (to float rounding), for both kernel policies and 1/2 threads.
void ExpectSameOutputs(const ir::Graph& raw, const ir::Graph& fused) {
  auto raw_model = std::make_shared<Model>(std::make_shared<const ir::Graph>(raw));
  auto fused_model = std::make_shared<Model>(std::make_shared<const ir::Graph>(fused));
  std::mt19937 rng(3);
  std::vector<float> single;
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    for (int threads : {1, 2, 3}) {
      rng.seed(3);  // the same input for every run
      SessionConfig config;
      config.algorithm = policy;
      config.num_threads = threads;
      auto a = Session::Create(raw_model, config);
      auto b = Session::Create(fused_model, config);
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      Tensor* in_a = (*a)->input(0);
      const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in_a->num_elements()), &rng);
      std::memcpy(in_a->data(), x.data(), x.size() * 4);
      std::memcpy((*b)->input(0)->data(), x.data(), x.size() * 4);
      ASSERT_TRUE((*a)->Run().ok());
      ASSERT_TRUE((*b)->Run().ok());
      const Tensor* ya = (*a)->output(0);
      const Tensor* yb = (*b)->output(0);
      ASSERT_EQ(ya->shape(), yb->shape());
      const std::vector<float> want(ya->data_as<float>(), ya->data_as<float>() + ya->num_elements());
      ExpectNear(want, yb->data_as<float>(), static_cast<size_t>(yb->num_elements()), threads);
      if (::testing::Test::HasFatalFailure()) return;
      if (policy != AlgorithmPolicy::kAuto) continue;
      // The optimized kernels give the same bits for any thread count.
      std::vector<float> got(yb->data_as<float>(), yb->data_as<float>() + yb->num_elements());
      if (threads == 1) {
        single = got;
      } else {
        ASSERT_EQ(single, got) << threads << " threads differ from 1";
      }
    }
  }
}

TEST(ResidualFusionTest, ConvAddActivationBecomesOneConv) {
  Builder b;
  const int x = b.Activation("x", {2, 6, 5, 8});
  b.g.inputs = {x};
  const int skip = b.Conv("skip", x, 8, 3, ir::Activation::kRelu);
  const int main = b.Conv("main", skip, 8, 1, ir::Activation::kNone);
  const int out = b.Op(ir::OpType::kAdd, "out", {main, skip}, {2, 6, 5, 8}, ir::Activation::kRelu6);
  b.g.outputs = {out};
  ir::Graph fused = b.g;
  ASSERT_EQ(optimize::FuseResidualAdd(&fused), 1);
  ASSERT_EQ(fused.nodes.size(), 2u);
  const ir::Node& conv = fused.nodes[1];
  EXPECT_EQ(conv.type, ir::OpType::kConv2D);
  ASSERT_EQ(conv.inputs.size(), 4u);
  EXPECT_EQ(conv.inputs[3], skip);
  EXPECT_EQ(conv.outputs[0], out);
  EXPECT_EQ(conv.attrs.activation, ir::Activation::kRelu6);
  ExpectSameOutputs(b.g, fused);
}

TEST(ResidualFusionTest, ChannelPaddedSkipIsReadUnpadded) {
  Builder b;
  const int x = b.Activation("x", {1, 7, 9, 4});
  b.g.inputs = {x};
  const int skip = b.Conv("skip", x, 4, 3, ir::Activation::kRelu);
  const int main = b.Conv("main", skip, 10, 1, ir::Activation::kNone);
  const int pads = b.Ints("pads", {4, 2}, {0, 0, 0, 0, 0, 0, 0, 6});
  const int padded = b.Op(ir::OpType::kPad, "padded", {skip, pads}, {1, 7, 9, 10});
  const int out = b.Op(ir::OpType::kAdd, "out", {padded, main}, {1, 7, 9, 10}, ir::Activation::kRelu);
  b.g.outputs = {out};
  ir::Graph fused = b.g;
  ASSERT_TRUE(optimize::Optimize(&fused).ok());
  EXPECT_EQ(Count(fused, ir::OpType::kPad), 0);
  EXPECT_EQ(Count(fused, ir::OpType::kAdd), 0);
  ASSERT_EQ(fused.nodes.size(), 2u);
  ASSERT_EQ(fused.nodes[1].inputs.size(), 4u);
  EXPECT_EQ(fused.nodes[1].inputs[3], skip);
  ExpectSameOutputs(b.g, fused);
}

TEST(ResidualFusionTest, PatternsThatMustNotFuse) {
  {  // the conv has an activation of its own (it would run after the sum)
    Builder b;
    const int x = b.Activation("x", {1, 4, 4, 8});
    b.g.inputs = {x};
    const int main = b.Conv("main", x, 8, 1, ir::Activation::kRelu);
    b.g.outputs = {b.Op(ir::OpType::kAdd, "out", {main, x}, {1, 4, 4, 8})};
    EXPECT_EQ(optimize::FuseResidualAdd(&b.g), 0);
  }
  {  // the conv's output is read by another node too
    Builder b;
    const int x = b.Activation("x", {1, 4, 4, 8});
    b.g.inputs = {x};
    const int main = b.Conv("main", x, 8, 1, ir::Activation::kNone);
    const int sum = b.Op(ir::OpType::kAdd, "sum", {main, x}, {1, 4, 4, 8});
    b.g.outputs = {b.Op(ir::OpType::kMul, "out", {sum, main}, {1, 4, 4, 8})};
    EXPECT_EQ(optimize::FuseResidualAdd(&b.g), 0);
  }
}

// A broadcast operand does not fuse; a PAD of height (not channels) stays a
// node of its own and its output is an ordinary skip.
TEST(ResidualFusionTest, BroadcastDoesNotFuseAndHeightPadStays) {
  Builder b;
  const int x = b.Activation("x", {1, 4, 4, 8});
  b.g.inputs = {x};
  const int main = b.Conv("main", x, 8, 1, ir::Activation::kNone);
  const int pooled = b.Op(ir::OpType::kMean, "pooled", {x, b.Ints("axes", {2}, {1, 2})}, {1, 1, 1, 8});
  b.g.nodes.back().attrs.keep_dims = true;
  const int sum = b.Op(ir::OpType::kAdd, "sum", {main, pooled}, {1, 4, 4, 8});
  const int small = b.Conv("small", x, 8, 1, ir::Activation::kNone);
  const int cut = b.Op(ir::OpType::kMaxPool2D, "cut", {small}, {1, 3, 4, 8});
  b.g.nodes.back().attrs.kernel_h = 2;
  b.g.nodes.back().attrs.kernel_w = 1;
  const int padded =
      b.Op(ir::OpType::kPad, "padded", {cut, b.Ints("pads", {4, 2}, {0, 0, 1, 0, 0, 0, 0, 0})}, {1, 4, 4, 8});
  const int main2 = b.Conv("main2", sum, 8, 1, ir::Activation::kNone);
  b.g.outputs = {b.Op(ir::OpType::kAdd, "out", {main2, padded}, {1, 4, 4, 8})};
  ir::Graph fused = b.g;
  EXPECT_EQ(optimize::FuseResidualAdd(&fused), 1);
  EXPECT_EQ(Count(fused, ir::OpType::kAdd), 1);  // "sum" (broadcast) is left
  EXPECT_EQ(Count(fused, ir::OpType::kPad), 1);
  ASSERT_EQ(fused.nodes.back().inputs.size(), 4u);
  EXPECT_EQ(fused.nodes.back().inputs[3], padded);
  ExpectSameOutputs(b.g, fused);
}

// A residual that does not fit the conv's output is a clear error at
// session creation (the optimizer never makes one; a hand-built or corrupt
// graph can).
TEST(ResidualFusionTest, MisfitResidualIsAnError) {
  Builder b;
  const int x = b.Activation("x", {1, 4, 4, 8});
  b.g.inputs = {x};
  const int main = b.Conv("main", x, 8, 1, ir::Activation::kNone);
  b.g.outputs = {main};
  const int wide = b.Activation("wide", {1, 4, 4, 9});
  b.g.inputs.push_back(wide);
  b.g.nodes[0].inputs.push_back(wide);
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(b.g));
  auto session = Session::Create(model, SessionConfig{});
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("residual [1,4,4,9] does not fit output [1,4,4,8]"), std::string::npos)
      << session.status().ToString();
  EXPECT_NE(session.status().message().find("main"), std::string::npos) << session.status().ToString();
}

// ---- Fused PRELU (optimize::FusePRelu).

// conv -> PRELU with a [1, 1, C] slope (TFLite's form); the PRELU is gone, the
// conv writes its output with the slope as input 4.
TEST(PReluFusionTest, ConvPReluBecomesOneConv) {
  Builder b;
  const int x = b.Activation("x", {2, 9, 7, 8});
  b.g.inputs = {x};
  const int conv = b.Conv("conv", x, 24, 3, ir::Activation::kNone);
  const int slope = b.Floats("slope", {1, 1, 24});
  const int out = b.Op(ir::OpType::kPRelu, "out", {conv, slope}, {2, 9, 7, 24});
  b.g.outputs = {out};
  ir::Graph fused = b.g;
  ASSERT_EQ(optimize::FusePRelu(&fused), 1);
  ASSERT_EQ(fused.nodes.size(), 1u);
  const ir::Node& c = fused.nodes[0];
  EXPECT_EQ(c.type, ir::OpType::kConv2D);
  ASSERT_EQ(c.inputs.size(), 5u);
  EXPECT_EQ(c.inputs[3], -1);
  EXPECT_EQ(c.inputs[4], slope);
  EXPECT_EQ(c.outputs[0], out);
  EXPECT_EQ(c.name, "out");
  ExpectSameOutputs(b.g, fused);
}

// BlazePalm's block: conv -> ADD(skip) -> PRELU becomes one conv with both
// the residual and the slope; a depthwise conv -> PRELU ([C] slope) too.
TEST(PReluFusionTest, ResidualThenPReluAndDepthwise) {
  Builder b;
  const int x = b.Activation("x", {1, 12, 10, 16});
  b.g.inputs = {x};
  const int d = b.Depthwise("dw", x, 5, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 12, 10, 16});
  const int dp = b.Op(ir::OpType::kPRelu, "dw_prelu", {d, b.Floats("dw_slope", {16})}, {1, 12, 10, 16});
  const int main = b.Conv("main", dp, 16, 1, ir::Activation::kNone);
  const int sum = b.Op(ir::OpType::kAdd, "sum", {main, x}, {1, 12, 10, 16});
  b.g.outputs = {b.Op(ir::OpType::kPRelu, "out", {sum, b.Floats("slope", {1, 1, 16})}, {1, 12, 10, 16})};
  ir::Graph fused = b.g;
  ASSERT_TRUE(optimize::Optimize(&fused).ok());
  EXPECT_EQ(Count(fused, ir::OpType::kPRelu), 0);
  EXPECT_EQ(Count(fused, ir::OpType::kAdd), 0);
  ASSERT_EQ(fused.nodes.size(), 2u);
  ASSERT_EQ(fused.nodes[0].inputs.size(), 5u);  // the depthwise conv
  EXPECT_GE(fused.nodes[0].inputs[4], 0);
  ASSERT_EQ(fused.nodes[1].inputs.size(), 5u);  // the 1x1 conv: residual and slope
  EXPECT_EQ(fused.nodes[1].inputs[3], x);
  EXPECT_GE(fused.nodes[1].inputs[4], 0);
  ExpectSameOutputs(b.g, fused);
}

// The project conv's PRELU goes into a DEPTHWISE_BLOCK with it (input 8,
// after the residual): a 72x64x32 depthwise output, big enough for a block.
TEST(PReluFusionTest, DepthwiseBlockTakesTheProjectPRelu) {
  Builder b;
  const int x = b.Activation("x", {1, 72, 64, 32});
  b.g.inputs = {x};
  const int d = b.Depthwise("dw", x, 5, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 72, 64, 32});
  const int p = b.Conv("project", d, 32, 1, ir::Activation::kNone);
  const int sum = b.Op(ir::OpType::kAdd, "sum", {p, x}, {1, 72, 64, 32});
  const int slope = b.Floats("slope", {1, 1, 32});
  b.g.outputs = {b.Op(ir::OpType::kPRelu, "out", {sum, slope}, {1, 72, 64, 32})};
  ir::Graph fused = b.g;
  ASSERT_TRUE(optimize::Optimize(&fused).ok());
  ASSERT_EQ(fused.nodes.size(), 1u);
  const ir::Node& block = fused.nodes[0];
  EXPECT_EQ(block.type, ir::OpType::kDepthwiseBlock);
  ASSERT_EQ(block.inputs.size(), 9u);
  EXPECT_EQ(block.inputs[7], x);
  EXPECT_EQ(block.inputs[8], slope);
  ExpectSameOutputs(b.g, fused);
}

TEST(PReluFusionTest, PatternsThatMustNotFuse) {
  {  // the conv's output is read by another node too
    Builder b;
    const int x = b.Activation("x", {1, 4, 4, 8});
    b.g.inputs = {x};
    const int conv = b.Conv("conv", x, 8, 1, ir::Activation::kNone);
    const int pr = b.Op(ir::OpType::kPRelu, "pr", {conv, b.Floats("slope", {8})}, {1, 4, 4, 8});
    b.g.outputs = {b.Op(ir::OpType::kAdd, "out", {pr, conv}, {1, 4, 4, 8})};
    EXPECT_EQ(optimize::FusePRelu(&b.g), 0);
  }
  {  // the conv has an activation of its own
    Builder b;
    const int x = b.Activation("x", {1, 4, 4, 8});
    b.g.inputs = {x};
    const int conv = b.Conv("conv", x, 8, 1, ir::Activation::kRelu6);
    b.g.outputs = {b.Op(ir::OpType::kPRelu, "out", {conv, b.Floats("slope", {8})}, {1, 4, 4, 8})};
    EXPECT_EQ(optimize::FusePRelu(&b.g), 0);
  }
  {  // a slope per pixel, a scalar slope, a slope that is not a constant
    for (int form = 0; form < 3; ++form) {
      Builder b;
      const int x = b.Activation("x", {1, 4, 4, 8});
      b.g.inputs = {x};
      const int conv = b.Conv("conv", x, 8, 1, ir::Activation::kNone);
      int slope;
      if (form == 0) {
        slope = b.Floats("slope", {1, 4, 4, 8});
      } else if (form == 1) {
        slope = b.Floats("slope", {1});
      } else {
        slope = b.Activation("slope", {8});
        b.g.inputs.push_back(slope);
      }
      b.g.outputs = {b.Op(ir::OpType::kPRelu, "out", {conv, slope}, {1, 4, 4, 8})};
      EXPECT_EQ(optimize::FusePRelu(&b.g), 0) << form;
    }
  }
  {  // a fused PRELU ends the conv: a RELU after it stays a node, an ADD after it is no residual
    Builder b;
    const int x = b.Activation("x", {1, 4, 4, 8});
    b.g.inputs = {x};
    const int conv = b.Conv("conv", x, 8, 1, ir::Activation::kNone);
    const int pr = b.Op(ir::OpType::kPRelu, "pr", {conv, b.Floats("slope", {8})}, {1, 4, 4, 8});
    const int sum = b.Op(ir::OpType::kAdd, "sum", {pr, x}, {1, 4, 4, 8});
    b.g.outputs = {b.Op(ir::OpType::kRelu, "out", {sum}, {1, 4, 4, 8})};
    ir::Graph fused = b.g;
    ASSERT_EQ(optimize::FusePRelu(&fused), 1);
    EXPECT_EQ(optimize::FuseResidualAdd(&fused), 0);
    ASSERT_TRUE(optimize::Optimize(&fused).ok());
    EXPECT_EQ(Count(fused, ir::OpType::kAdd), 1);
    ExpectSameOutputs(b.g, fused);
  }
}

// A slope that does not match the conv's channels is a clear error at
// session creation.
TEST(PReluFusionTest, MisfitSlopeIsAnError) {
  Builder b;
  const int x = b.Activation("x", {1, 4, 4, 8});
  b.g.inputs = {x};
  const int conv = b.Conv("main", x, 8, 1, ir::Activation::kNone);
  b.g.outputs = {conv};
  b.g.nodes[0].inputs.push_back(-1);
  b.g.nodes[0].inputs.push_back(b.Floats("slope", {7}));
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(b.g));
  auto session = Session::Create(model, SessionConfig{});
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("PRELU slope [7] does not match 8 output channels"), std::string::npos)
      << session.status().ToString();
}

// ---- Depthwise blocks.

std::string KernelOf(const ir::Graph& g, ir::OpType type) {
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(g));
  auto session = Session::Create(model, SessionConfig{});
  if (!session.ok()) return session.status().ToString();
  for (const LayerInfo& l : (*session)->Layers()) {
    if (l.op == ir::OpTypeName(type)) return l.kernel;
  }
  return "";
}

// MobileNetV2's inverted residual: expand 1x1 (relu6) -> depthwise 3x3 (relu6)
// -> project 1x1 + the block's input, batch 2, odd sizes.
TEST(DepthwiseBlockTest, InvertedResidualBecomesOneNode) {
  Builder b;
  const int x = b.Activation("x", {2, 30, 27, 16});
  b.g.inputs = {x};
  const int e = b.Conv("expand", x, 96, 1, ir::Activation::kRelu6);
  const int d = b.Depthwise("dw", e, 3, 1, ir::Padding::kSame, ir::Activation::kRelu6, {2, 30, 27, 96});
  const int p = b.Conv("project", d, 16, 1, ir::Activation::kNone);
  b.g.outputs = {b.Op(ir::OpType::kAdd, "out", {p, x}, {2, 30, 27, 16})};
  ir::Graph fused = b.g;
  ASSERT_TRUE(optimize::Optimize(&fused).ok());
  ASSERT_EQ(fused.nodes.size(), 1u);
  const ir::Node& block = fused.nodes[0];
  EXPECT_EQ(block.type, ir::OpType::kDepthwiseBlock);
  ASSERT_EQ(block.inputs.size(), 8u);
  EXPECT_EQ(block.inputs[0], x);
  EXPECT_EQ(block.inputs[7], x);  // the residual
  EXPECT_EQ(block.attrs.expand_activation, ir::Activation::kRelu6);
  EXPECT_EQ(block.attrs.depthwise_activation, ir::Activation::kRelu6);
  EXPECT_NE(KernelOf(fused, ir::OpType::kDepthwiseBlock).find("depthwise_block"), std::string::npos);
  ExpectSameOutputs(b.g, fused);
}

// Stride 2 with VALID padding and channel counts off the SIMD width (masked
// tails: 90 expanded, 17 out), and SAME at stride 2.
TEST(DepthwiseBlockTest, StrideTwoOddChannels) {
  for (ir::Padding padding : {ir::Padding::kValid, ir::Padding::kSame}) {
    Builder b;
    const int x = b.Activation("x", {1, 41, 39, 7});
    b.g.inputs = {x};
    const int e = b.Conv("expand", x, 90, 1, ir::Activation::kRelu);
    const Shape mid = padding == ir::Padding::kValid ? Shape{1, 20, 19, 90} : Shape{1, 21, 20, 90};
    const int d = b.Depthwise("dw", e, 3, 2, padding, ir::Activation::kNone, mid);
    b.g.outputs = {b.Conv("project", d, 17, 1, ir::Activation::kRelu6)};
    ir::Graph fused = b.g;
    ASSERT_EQ(optimize::FuseDepthwiseBlocks(&fused), 1);
    ASSERT_EQ(fused.nodes.size(), 1u);
    ExpectSameOutputs(b.g, fused);
  }
}

// No expand in front (MobileNetV2's first block, BlazeFace's 5x5 blocks):
// the depthwise conv reads the block's input directly.
TEST(DepthwiseBlockTest, WithoutExpandFiveByFive) {
  Builder b;
  const int x = b.Activation("x", {1, 40, 36, 100});
  b.g.inputs = {x};
  const int d = b.Depthwise("dw", x, 5, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 40, 36, 100});
  const int p = b.Conv("project", d, 3, 1, ir::Activation::kNone);
  b.g.nodes.back().attrs.activation = ir::Activation::kTanh;
  b.g.outputs = {p};
  ir::Graph fused = b.g;
  ASSERT_EQ(optimize::FuseDepthwiseBlocks(&fused), 1);
  ASSERT_EQ(fused.nodes.size(), 1u);
  EXPECT_EQ(fused.nodes[0].inputs[1], -1);
  EXPECT_EQ(fused.nodes[0].attrs.activation, ir::Activation::kTanh);
  ExpectSameOutputs(b.g, fused);
}

TEST(DepthwiseBlockTest, PatternsThatMustNotFuse) {
  {  // intermediate tensors too small to leave the cache
    Builder b;
    const int x = b.Activation("x", {1, 8, 8, 16});
    b.g.inputs = {x};
    const int e = b.Conv("expand", x, 32, 1, ir::Activation::kRelu6);
    const int d = b.Depthwise("dw", e, 3, 1, ir::Padding::kSame, ir::Activation::kRelu6, {1, 8, 8, 32});
    b.g.outputs = {b.Conv("project", d, 16, 1, ir::Activation::kNone)};
    EXPECT_EQ(optimize::FuseDepthwiseBlocks(&b.g), 0);
  }
  {  // the depthwise output is read twice; a 3x3 "project" conv
    Builder b;
    const int x = b.Activation("x", {1, 40, 40, 96});
    b.g.inputs = {x};
    const int d = b.Depthwise("dw", x, 3, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 40, 40, 96});
    const int p = b.Conv("project", d, 16, 1, ir::Activation::kNone);
    const int q = b.Conv("other", d, 16, 1, ir::Activation::kNone);
    const int d2 = b.Depthwise("dw2", x, 3, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 40, 40, 96});
    const int r = b.Conv("wide", d2, 16, 3, ir::Activation::kNone);
    b.g.outputs = {p, q, r};
    EXPECT_EQ(optimize::FuseDepthwiseBlocks(&b.g), 0);
  }
  {  // grouped 1x1 convs (ShuffleNet) as the expand or the project: the
     // block's GEMMs are ungrouped, so neither joins one
    Builder b;
    const int x = b.Activation("x", {1, 40, 40, 32});
    b.g.inputs = {x};
    const int e = b.Conv("expand", x, 96, 1, ir::Activation::kRelu, 4);
    const int d = b.Depthwise("dw", e, 3, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 40, 40, 96});
    const int p = b.Conv("project", d, 32, 1, ir::Activation::kNone, 4);
    b.g.outputs = {p};
    ir::Graph fused = b.g;
    EXPECT_EQ(optimize::FuseDepthwiseBlocks(&fused), 0);
    ExpectSameOutputs(b.g, fused);
  }
}

// Session::Create's status for a graph of one hand-built DEPTHWISE_BLOCK
// named `name` (expand 8 -> 12, a depthwise filter of `wd_channels`, project
// 12 -> 4) on a `side` x `side` map, with `dilation`.
Status HandBuiltBlockStatus(const std::string& name, int side, int wd_channels, int dilation) {
  Builder b;
  const int x = b.Activation("x", {1, side, side, 8});
  b.g.inputs = {x};
  ir::Node n;
  n.name = name;
  n.type = ir::OpType::kDepthwiseBlock;
  n.attrs.padding = ir::Padding::kSame;
  n.attrs.dilation_h = dilation;
  n.attrs.dilation_w = dilation;
  n.inputs = {x, b.Floats("we", {12, 1, 1, 8}), -1, b.Floats("wd", {1, 3, 3, wd_channels}), -1,
              b.Floats("wp", {4, 1, 1, 12}), -1, -1};
  n.outputs = {b.Activation("y", {1, side, side, 4})};
  b.g.nodes.push_back(n);
  b.g.outputs = {n.outputs[0]};
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(b.g));
  return Session::Create(model, SessionConfig{}).status();
}

// A dilated depthwise conv inside a block is refused by its shape function
// (the block kernels have no dilation; the optimizer never builds one), not
// run as if undilated.
TEST(DepthwiseBlockTest, DilatedBlockIsAnError) {
  const Status status = HandBuiltBlockStatus("dilated_block", 9, 12, 2);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("dilation 2x2"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("'dilated_block'"), std::string::npos) << status.ToString();
}

// A block whose filters do not fit is an error naming the node, not a crash.
TEST(DepthwiseBlockTest, MisfitFiltersAreErrors) {
  const Status status = HandBuiltBlockStatus("block", 6, 11, 1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("depthwise filter [1,3,3,11] does not match 12 channels"), std::string::npos)
      << status.ToString();
  EXPECT_NE(status.message().find("'block'"), std::string::npos) << status.ToString();
}

// ---- Concatenations written in place.

// The kernel a session planned for the node named `name`.
std::string KernelOf(const Session& s, const std::string& name) {
  for (const LayerInfo& l : s.Layers()) {
    if (l.name == name) return l.kernel;
  }
  return "";
}

// Runs `g` with the optimized kernels (1, 2, 3 threads) and the reference
// kernels on one random input: same outputs to rounding, the optimized ones
// bit-identical for any thread count; returns the concatenation's kernel.
std::string RunAgainstReference(const ir::Graph& g, const std::string& concat, int resize_h = 0) {
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(g));
  std::vector<float> want, single;
  std::string kernel;
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2, 3})) {
    auto s = Session::Create(model, config);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return "";
    if (resize_h > 0) {
      Shape shape = (*s)->input(0)->shape();
      shape[1] = resize_h;
      const Status r = (*s)->Resize({{g.tensors[g.inputs[0]].name, shape}});
      EXPECT_TRUE(r.ok()) << r.ToString();
    }
    std::mt19937 rng(5);
    Tensor* in = (*s)->input(0);
    const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in->num_elements()), &rng);
    std::memcpy(in->data(), x.data(), x.size() * 4);
    EXPECT_TRUE((*s)->Run().ok());
    const Tensor* y = (*s)->output(0);
    std::vector<float> got(y->data_as<float>(), y->data_as<float>() + y->num_elements());
    if (config.algorithm == AlgorithmPolicy::kReference) {
      EXPECT_EQ(KernelOf(**s, concat), "concatenation_ref");
      if (config.num_threads == 1) want = got;
      continue;
    }
    kernel = KernelOf(**s, concat);
    ExpectNear(want, got.data(), got.size(), config.num_threads);
    if (config.num_threads == 1) single = got;
    else EXPECT_EQ(single, got) << config.num_threads << " threads differ from 1";
  }
  return kernel;
}

// SqueezeNet's fire module: a 1x1 squeeze, then a 1x1 and a 3x3 expand
// concatenated on channels, read by one more conv. The expands (GEMM and
// Winograd; a 5x5 sliding window or im2col GEMM; odd channel counts, batch 2)
// write straight into their slices of the concatenation's output.
TEST(ConcatInPlaceTest, ConvOutputsAreWrittenIntoTheirSlices) {
  for (int variant = 0; variant < 3; ++variant) {
    Builder b;
    const int c = variant == 0 ? 32 : variant == 1 ? 7 : 24;
    const Shape xs = variant == 1 ? Shape{2, 9, 11, 5} : Shape{1, 20, 20, 16};
    const int x = b.Activation("x", xs);
    b.g.inputs = {x};
    const int squeeze = b.Conv("squeeze", x, 8, 1, ir::Activation::kRelu);
    const int e1 = b.Conv("expand1", squeeze, c, 1, ir::Activation::kRelu);
    const int e3 = b.Conv("expand3", squeeze, c + 3, variant == 2 ? 5 : 3, ir::Activation::kRelu6);
    const int e5 = b.Conv("expand_odd", squeeze, 3, 3, ir::Activation::kNone);
    const int cat = b.Op(ir::OpType::kConcatenation, "cat", {e1, e3, e5}, {xs[0], xs[1], xs[2], 2 * c + 6});
    b.g.nodes.back().attrs.axis = 3;
    b.g.outputs = {b.Conv("after", cat, 6, 1, ir::Activation::kNone)};
    EXPECT_EQ(RunAgainstReference(b.g, "cat"), "concatenation_in_place") << "variant " << variant;
    // A resize re-plans the strides and the aliasing.
    EXPECT_EQ(RunAgainstReference(b.g, "cat", xs[1] + 3), "concatenation_in_place") << "variant " << variant;
  }
}

// The concatenation is a graph output and also on the channel axis written
// as -1: still in place.
TEST(ConcatInPlaceTest, OutputConcatenationAndNegativeAxis) {
  Builder b;
  const int x = b.Activation("x", {1, 6, 7, 9});
  b.g.inputs = {x};
  const int a = b.Conv("a", x, 16, 3, ir::Activation::kRelu);
  const int c = b.Conv("c", x, 17, 1, ir::Activation::kNone);
  b.g.outputs = {b.Op(ir::OpType::kConcatenation, "cat", {a, c}, {1, 6, 7, 33})};
  b.g.nodes.back().attrs.axis = -1;
  EXPECT_EQ(RunAgainstReference(b.g, "cat"), "concatenation_in_place");
}

// Inputs that must keep their own bytes: a graph input, a conv output read
// by another node too, a depthwise conv (dense writes only), a
// concatenation on another axis. Each stays a copy, with the same results.
TEST(ConcatInPlaceTest, InputsThatCannotBeSlicesAreCopied) {
  for (int variant = 0; variant < 4; ++variant) {
    Builder b;
    const int x = b.Activation("x", {1, 6, 6, 8});
    b.g.inputs = {x};
    const int a = b.Conv("a", x, 8, 3, ir::Activation::kRelu);
    int other = x;
    Shape out = {1, 6, 6, 16};
    int axis = 3;
    if (variant == 1) {
      other = b.Conv("other", x, 8, 1, ir::Activation::kNone);
    } else if (variant == 2) {
      other = b.Depthwise("dw", x, 3, 1, ir::Padding::kSame, ir::Activation::kNone, {1, 6, 6, 8});
    } else if (variant == 3) {
      other = b.Conv("other", x, 8, 1, ir::Activation::kNone);
      out = {1, 6, 12, 8};
      axis = 2;
    }
    const int cat = b.Op(ir::OpType::kConcatenation, "cat", {a, other}, out);
    b.g.nodes.back().attrs.axis = axis;
    int y = b.Conv("after", cat, 4, 1, ir::Activation::kNone);
    if (variant == 1) {  // `other` is read by a second node
      y = b.Op(ir::OpType::kAdd, "sum", {y, b.Conv("side", other, 4, 1, ir::Activation::kNone)}, {1, 6, 6, 4});
    }
    b.g.outputs = {y};
    EXPECT_EQ(RunAgainstReference(b.g, "cat"), "concatenation_copy") << "variant " << variant;
  }
}


// Runs `g` (one input, one output) on a fixed-seed random input with the
// kernel policy and thread count; the output (empty on failure) and, if
// asked, the session's layers.
std::vector<float> RunGraph(const ir::Graph& g, AlgorithmPolicy policy, int threads,
                            std::vector<LayerInfo>* layers = nullptr) {
  auto model = std::make_shared<Model>(std::make_shared<const ir::Graph>(g));
  SessionConfig config;
  config.algorithm = policy;
  config.num_threads = threads;
  auto s = Session::Create(model, config);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  std::mt19937 rng(5);
  Tensor* in = (*s)->input(0);
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(in->num_elements()), &rng);
  std::memcpy(in->data(), x.data(), x.size() * 4);
  EXPECT_TRUE((*s)->Run().ok());
  if (layers) *layers = (*s)->Layers();
  const Tensor* y = (*s)->output(0);
  return std::vector<float>(y->data_as<float>(), y->data_as<float>() + y->num_elements());
}

// {reference output, optimized output} of `g` on the same input.
std::pair<std::vector<float>, std::vector<float>> RunBothPolicies(const ir::Graph& g, int threads) {
  return {RunGraph(g, AlgorithmPolicy::kReference, threads), RunGraph(g, AlgorithmPolicy::kAuto, threads)};
}

// `raw` and `fused` give the same bits under each kernel policy, at 1 and 2
// threads (a fusion that replays the same float operations).
void ExpectSameBitsBothPolicies(const ir::Graph& raw, const ir::Graph& fused) {
  for (int threads : {1, 2}) {
    const auto [raw_ref, raw_auto] = RunBothPolicies(raw, threads);
    const auto [fused_ref, fused_auto] = RunBothPolicies(fused, threads);
    ASSERT_FALSE(raw_ref.empty());
    EXPECT_EQ(raw_ref, fused_ref) << "reference, threads " << threads;
    EXPECT_EQ(raw_auto, fused_auto) << "optimized, threads " << threads;
  }
}

// ADD / MUL whose full-shape operand comes second (gate * x, as PyTorch's
// squeeze-excitation exports write it) and per-image channel gates
// [N, 1, 1, C] take the vector path, equal to the reference bit for bit.
TEST(BinaryBroadcastTest, GateFirstAndPerImageGatesAreVectorized) {
  for (ir::OpType type : {ir::OpType::kMul, ir::OpType::kAdd}) {
    for (const Shape& gate_shape : {Shape{1, 1, 1, 19}, Shape{3, 1, 1, 19}, Shape{19}}) {
      for (bool gate_first : {true, false}) {
        Builder b;
        const int x = b.Activation("x", {3, 7, 5, 19});
        b.g.inputs = {x};
        const int gate = b.Floats("gate", gate_shape);
        b.g.outputs = {b.Op(type, "y", gate_first ? std::vector<int>{gate, x} : std::vector<int>{x, gate},
                            {3, 7, 5, 19}, ir::Activation::kRelu)};
        EXPECT_EQ(KernelOf(b.g, type), type == ir::OpType::kMul ? "mul_avx2" : "add_avx2")
            << ShapeToString(gate_shape) << (gate_first ? " gate first" : "");
        for (int threads : {1, 2}) {
          const auto [want, got] = RunBothPolicies(b.g, threads);
          ASSERT_FALSE(want.empty());
          EXPECT_EQ(want, got) << ShapeToString(gate_shape) << (gate_first ? " gate first" : "") << " threads "
                               << threads;
        }
      }
    }
  }
}


// x * HardSigmoid(x) (alpha 1/6, beta 1/2: PyTorch's Hardswish before ONNX
// opset 14) becomes one HARD_SWISH, either operand order; other alphas, a
// gate read twice, or a gate of another tensor stay as they are.
TEST(HardSwishFusionTest, MulOfHardSigmoidBecomesHardSwish) {
  auto build = [](float alpha, bool gate_first, bool gate_read_twice, bool other_tensor) {
    Builder b;
    const int x = b.Activation("x", {2, 9, 7, 12});
    b.g.inputs = {x};
    const int src = other_tensor ? b.Op(ir::OpType::kRelu, "r", {x}, {2, 9, 7, 12}) : x;
    const int hs = b.Op(ir::OpType::kHardSigmoid, "hs", {x}, {2, 9, 7, 12});
    b.g.nodes.back().attrs.alpha = alpha;
    b.g.nodes.back().attrs.beta = 0.5f;
    const int y = b.Op(ir::OpType::kMul, "y", gate_first ? std::vector<int>{hs, src} : std::vector<int>{src, hs},
                       {2, 9, 7, 12});
    b.g.outputs = {y};
    if (gate_read_twice) b.g.outputs.push_back(hs);
    return b.g;
  };
  for (bool gate_first : {false, true}) {
    ir::Graph raw = build(1.0f / 6.0f, gate_first, false, false);
    ir::Graph fused = raw;
    ASSERT_EQ(optimize::FuseGatedActivations(&fused), 1);
    ASSERT_EQ(fused.nodes.size(), 1u);
    EXPECT_EQ(fused.nodes[0].type, ir::OpType::kHardSwish);
    ExpectSameOutputs(raw, fused);
  }
  ir::Graph other_alpha = build(0.2f, false, false, false);
  EXPECT_EQ(optimize::FuseGatedActivations(&other_alpha), 0);
  ir::Graph twice = build(1.0f / 6.0f, false, true, false);
  EXPECT_EQ(optimize::FuseGatedActivations(&twice), 0);
  ir::Graph other = build(1.0f / 6.0f, true, false, true);
  EXPECT_EQ(optimize::FuseGatedActivations(&other), 0);
}


// x * LOGISTIC(x) (SiLU / Swish, EfficientNet's activation) becomes one SILU,
// either operand order, with the same bits as the two ops it replaces under
// both kernel policies; a gate read elsewhere, or of another tensor, stays.
TEST(SiluFusionTest, MulOfLogisticBecomesSilu) {
  auto build = [](bool gate_first, bool gate_read_twice, bool other_tensor) {
    Builder b;
    const int x = b.Activation("x", {2, 9, 7, 20});
    b.g.inputs = {x};
    const int src = other_tensor ? b.Op(ir::OpType::kRelu, "r", {x}, {2, 9, 7, 20}) : x;
    const int s = b.Op(ir::OpType::kLogistic, "s", {x}, {2, 9, 7, 20});
    b.g.outputs = {b.Op(ir::OpType::kMul, "y", gate_first ? std::vector<int>{s, src} : std::vector<int>{src, s},
                        {2, 9, 7, 20})};
    if (gate_read_twice) b.g.outputs.push_back(s);
    return b.g;
  };
  for (bool gate_first : {false, true}) {
    ir::Graph raw = build(gate_first, false, false);
    ir::Graph fused = raw;
    ASSERT_EQ(optimize::FuseGatedActivations(&fused), 1);
    ASSERT_EQ(fused.nodes.size(), 1u);
    EXPECT_EQ(fused.nodes[0].type, ir::OpType::kSilu);
    EXPECT_NE(KernelOf(fused, ir::OpType::kSilu).find("silu_avx"), std::string::npos);
    ExpectSameBitsBothPolicies(raw, fused);
  }
  ir::Graph twice = build(false, true, false);
  EXPECT_EQ(optimize::FuseGatedActivations(&twice), 0);
  ir::Graph other = build(true, false, true);
  EXPECT_EQ(optimize::FuseGatedActivations(&other), 0);
}


// RESHAPEs are views: planned as their input's bytes and not run, unless a
// graph input or output is involved (ShuffleNet's channel shuffle:
// RESHAPE -> TRANSPOSE -> RESHAPE between convs). The same bits as copying.
TEST(ReshapeInPlaceTest, ReshapesAreViewsOfTheirInputs) {
  auto build = [](bool reshapes_are_outputs) {
    Builder b;
    const int x = b.Activation("x", {2, 6, 5, 12});
    b.g.inputs = {x};
    const int c = b.Conv("c", x, 12, 1, ir::Activation::kRelu);
    const int r1 = b.Op(ir::OpType::kReshape, "r1", {c}, {2, 6, 5, 3, 4});
    b.g.nodes.back().attrs.new_shape = {2, 6, 5, 3, 4};
    const int t = b.Op(ir::OpType::kTranspose, "t", {r1}, {2, 6, 5, 4, 3});
    b.g.nodes.back().attrs.perm = {0, 1, 2, 4, 3};
    const int r2 = b.Op(ir::OpType::kReshape, "r2", {t}, {2, 6, 5, 12});
    b.g.nodes.back().attrs.new_shape = {2, 6, 5, 12};
    b.g.outputs = {b.Conv("d", r2, 7, 1, ir::Activation::kNone)};
    if (reshapes_are_outputs) b.g.outputs.insert(b.g.outputs.end(), {r1, r2});
    return b.g;
  };
  auto run = [](const ir::Graph& g, AlgorithmPolicy policy, int threads, std::vector<std::string>* kernels) {
    std::vector<LayerInfo> layers;
    std::vector<float> out = RunGraph(g, policy, threads, &layers);
    kernels->clear();
    for (const LayerInfo& l : layers) {
      if (l.op == "RESHAPE") kernels->push_back(l.kernel);
    }
    return out;
  };
  const ir::Graph views = build(false), copies = build(true);
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kReference, AlgorithmPolicy::kAuto}) {
    for (int threads : {1, 2}) {
      std::vector<std::string> view_kernels, copy_kernels;
      const std::vector<float> a = run(views, policy, threads, &view_kernels);
      const std::vector<float> b = run(copies, policy, threads, &copy_kernels);
      EXPECT_EQ(view_kernels, (std::vector<std::string>{"reshape_in_place", "reshape_in_place"}));
      EXPECT_EQ(copy_kernels, (std::vector<std::string>{"reshape_ref", "reshape_ref"}));
      ASSERT_FALSE(a.empty());
      EXPECT_EQ(a, b) << "threads " << threads;
    }
  }
}

// The dead-tap passes fix what they do to the input's size: a graph that
// Session::Resize re-plans at other sizes (TFLite's, not specialized to its
// input shapes) is left alone, and after a Resize to a larger map (where
// every tap reads the input) it still computes the raw graph's values; a
// graph imported at each size (ONNX's) is cropped and split.
TEST(DeadTapsPassesTest, OnlyGraphsSpecializedToTheirInputSizes) {
  Builder b;
  const int x = b.Activation("x", {1, 32, 32, 48});
  for (int rate : {24, 36}) {
    ir::Node n;
    n.name = "conv" + std::to_string(rate);
    n.type = ir::OpType::kConv2D;
    n.attrs.padding = ir::Padding::kExplicit;
    n.attrs.pad_top = n.attrs.pad_bottom = n.attrs.pad_left = n.attrs.pad_right = rate;
    n.attrs.dilation_h = n.attrs.dilation_w = rate;
    const int w = b.Floats(n.name + "/w", {48, 3, 3, 48});
    const int bias = b.Floats(n.name + "/b", {48});
    n.inputs = {x, w, bias};
    n.outputs = {b.Activation(n.name, {1, 32, 32, 48})};
    b.g.nodes.push_back(n);
    b.g.outputs.push_back(n.outputs[0]);
  }
  b.g.inputs = {x};
  {
    ir::Graph g = b.g;  // specialized_to_input_shapes: false, as TFLite's
    EXPECT_EQ(optimize::CropDeadConvTaps(&g), 0);
    EXPECT_EQ(optimize::SplitConvIntoTapBands(&g), 0);
    ASSERT_TRUE(optimize::Optimize(&g).ok());
    // At 80x80, rates 24 and 36 read the input with every tap.
    auto raw = Session::Create(std::make_shared<Model>(std::make_shared<const ir::Graph>(b.g)));
    auto opt = Session::Create(std::make_shared<Model>(std::make_shared<const ir::Graph>(g)));
    ASSERT_TRUE(raw.ok() && opt.ok());
    ASSERT_TRUE((*raw)->Resize({{"x", {1, 80, 80, 48}}}).ok());
    ASSERT_TRUE((*opt)->Resize({{"x", {1, 80, 80, 48}}}).ok());
    std::mt19937 rng(5);
    const std::vector<float> in = testing::RandomFloats(80 * 80 * 48, &rng);
    std::memcpy((*raw)->input(0)->data(), in.data(), in.size() * 4);
    std::memcpy((*opt)->input(0)->data(), in.data(), in.size() * 4);
    ASSERT_TRUE((*raw)->Run().ok());
    ASSERT_TRUE((*opt)->Run().ok());
    for (int o = 0; o < 2; ++o) {
      const Tensor* want = (*raw)->output(o);
      const Tensor* got = (*opt)->output(o);
      ASSERT_EQ(want->shape(), got->shape());
      ExpectNear(std::vector<float>(want->data_as<float>(), want->data_as<float>() + want->num_elements()),
                 got->data_as<float>(), static_cast<size_t>(got->num_elements()), 1);
    }
  }
  {
    ir::Graph g = b.g;
    g.specialized_to_input_shapes = true;  // as ONNX's
    EXPECT_EQ(optimize::CropDeadConvTaps(&g), 1);       // rate 36: the centre tap only
    EXPECT_EQ(optimize::SplitConvIntoTapBands(&g), 1);  // rate 24: nine regions
    ASSERT_TRUE(g.Validate().ok());
    ExpectSameOutputs(b.g, g);
  }
}

}  // namespace
}  // namespace rill::inference

