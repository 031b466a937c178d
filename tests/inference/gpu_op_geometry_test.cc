// The GPU backends' shared host-side code (inference/backend/gpu): each
// op's launch parameters, the weight layouts and the execution base's
// checks, against values worked out by hand from the shapes (no GPU
// needed; the OpenCL and Vulkan tests run the kernels that read them).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/gpu/gpu_execution.h"
#include "inference/backend/gpu/op_geometry.h"
#include "inference/backend/gpu/weights.h"
#include "inference/ir/graph.h"

namespace rill::inference::gpu {
namespace {

using V = std::vector<int>;

TEST(GpuOpGeometryTest, OpFamilies) {
  EXPECT_EQ(GpuOpOf(ir::OpType::kConv2D), GpuOp::kConv2D);
  EXPECT_EQ(GpuOpOf(ir::OpType::kDepthwiseBlock), GpuOp::kDepthwiseBlock);
  EXPECT_EQ(GpuOpOf(ir::OpType::kPRelu), GpuOp::kBinary);
  EXPECT_EQ(GpuOpOf(ir::OpType::kSilu), GpuOp::kUnary);
  EXPECT_EQ(GpuOpOf(ir::OpType::kAveragePool2D), GpuOp::kPool);
  EXPECT_EQ(GpuOpOf(ir::OpType::kPad), GpuOp::kView);
  EXPECT_EQ(GpuOpOf(ir::OpType::kReshape), GpuOp::kView);
  EXPECT_EQ(GpuOpOf(ir::OpType::kResizeBicubic), GpuOp::kResize);
  EXPECT_EQ(GpuOpOf(ir::OpType::kDepthToSpace), GpuOp::kDepthToSpace);
  EXPECT_EQ(GpuOpOf(ir::OpType::kDequantize), GpuOp::kNone);
  EXPECT_EQ(GpuOpOf(ir::OpType::kRegisteredOp), GpuOp::kNone);
}

TEST(GpuOpGeometryTest, StridesAndPad6) {
  EXPECT_EQ(Strides({2, 3, 4}), (V{12, 4, 1}));
  const int dims[] = {2, 3}, s[] = {3, 1}, t[] = {0, 1};
  EXPECT_EQ(Pad6(dims, {s, t}, 2), (V{1, 1, 1, 1, 2, 3, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 1}));
}

TEST(GpuOpGeometryTest, Windows) {
  ir::OpAttrs a;
  a.stride_h = a.stride_w = 2;
  a.padding = ir::Padding::kSame;
  a.activation = ir::Activation::kRelu6;
  // SAME, stride 2, 3x3 over 9x11 -> 5x6: 2 rows and 2 columns of padding,
  // 1 before each.
  const cpu::ConvParams c = Conv2DGeometry(a, {1, 9, 11, 6}, {4, 3, 3, 2}, {1, 5, 6, 4});
  EXPECT_EQ(c.groups, 3);
  EXPECT_EQ(c.pad_top, 1);
  EXPECT_EQ(c.pad_left, 1);
  EXPECT_EQ(c.kernel_h, 3);
  EXPECT_EQ(c.stride_w, 2);
  EXPECT_EQ(c.activation, cpu::FusedActivation::kRelu6);
  const cpu::ConvParams d = DepthwiseGeometry(a, {2, 9, 7, 5}, {1, 3, 3, 10}, {2, 5, 4, 10});
  EXPECT_EQ(d.depth_multiplier, 2);
  EXPECT_EQ(d.batch, 2);
  // A 3x2 pool, SAME, stride 2 over 9x7 -> 5x4: 2 rows (1 before), 1
  // column (0 before); dilation 1 whatever the attributes say.
  ir::OpAttrs pool = a;
  pool.kernel_h = 3;
  pool.kernel_w = 2;
  pool.dilation_h = pool.dilation_w = 3;
  const cpu::ConvParams p = PoolGeometry(pool, {2, 9, 7, 5}, {2, 5, 4, 5});
  EXPECT_EQ(p.kernel_h, 3);
  EXPECT_EQ(p.kernel_w, 2);
  EXPECT_EQ(p.dilation_h, 1);
  EXPECT_EQ(p.pad_top, 1);
  EXPECT_EQ(p.pad_left, 0);
  EXPECT_EQ(PoolKind(ir::OpType::kMaxPool2D), 1);
  EXPECT_EQ(PoolKind(ir::OpType::kAveragePool2D), 0);
  ir::OpAttrs tr;
  tr.stride_h = tr.stride_w = 2;
  tr.dilation_h = tr.dilation_w = 2;
  tr.padding = ir::Padding::kExplicit;
  tr.pad_top = 1;
  tr.pad_left = 0;
  const cpu::ConvParams t = TransposeConvGeometry(tr, {1, 5, 6, 4}, {6, 3, 3, 2}, {1, 10, 12, 6});
  EXPECT_EQ(t.groups, 2);
  EXPECT_EQ(t.dilation_h, 1);
  EXPECT_EQ(t.pad_top, 1);
  EXPECT_EQ(t.pad_left, 0);
}

// K = 3 * 3 * 40 = 360 over 2 output tiles of 64x64: on 132 compute units
// (264 tiles wanted) K splits in 2 chunks of 192; on one unit it does not.
TEST(GpuOpGeometryTest, ConvSplitsKWhereTilesAreFew) {
  ir::OpAttrs a;
  a.padding = ir::Padding::kSame;
  ConvPlan c;
  c.p = Conv2DGeometry(a, {1, 5, 6, 40}, {70, 3, 3, 40}, {1, 5, 6, 70});
  EXPECT_EQ(GemmTiles(c.p, 64, 64), 2);
  EXPECT_EQ(GemmTiles(c.p, 32, 32), 3 * 1);
  PlanConv(64, 64, 132, true, &c);
  EXPECT_TRUE(c.tiled);
  EXPECT_EQ(c.splits, 2);
  EXPECT_EQ(c.k_chunk, 192);
  EXPECT_EQ(c.partial_floats(), 2u * 5 * 6 * 70);
  PlanConv(64, 64, 132, false, &c);
  EXPECT_EQ(c.splits, 1);
  EXPECT_EQ(c.k_chunk, 360);
  EXPECT_EQ(c.partial_floats(), 0u);
  PlanConv(64, 64, 1, true, &c);
  EXPECT_EQ(c.splits, 1);
  PlanConv(64, 64, 132, true, &c, /*split_min_k=*/361);  // K 360: under the floor
  EXPECT_EQ(c.splits, 1);
  EXPECT_EQ(c.k_chunk, 360);
  PlanConv(64, 64, 132, true, &c, /*split_min_k=*/360);
  EXPECT_EQ(c.splits, 2);
  ConvPlan small;  // K 27, under one 128 chunk: never split, whatever the floor
  small.p = Conv2DGeometry(a, {1, 5, 6, 3}, {8, 3, 3, 3}, {1, 5, 6, 8});
  PlanConv(64, 64, 132, true, &small, /*split_min_k=*/1);
  EXPECT_EQ(small.splits, 1);
  EXPECT_GE(small.k_chunk, 27);
  c.p.groups = 2;
  PlanConv(64, 64, 132, true, &c);
  EXPECT_FALSE(c.tiled);
  EXPECT_EQ(c.splits, 1);
}

TEST(GpuOpGeometryTest, DepthwiseBlockAndFullyConnected) {
  ir::OpAttrs a;
  a.stride_h = a.stride_w = 2;
  a.padding = ir::Padding::kSame;
  a.activation = ir::Activation::kRelu;
  a.expand_activation = ir::Activation::kRelu6;
  a.depthwise_activation = ir::Activation::kTanh;
  const DepthwiseBlockGeometry g =
      MakeDepthwiseBlockGeometry(a, {1, 9, 8, 6}, {1, 3, 3, 10}, {7, 1, 1, 10}, {1, 5, 4, 7}, true);
  EXPECT_EQ(g.expand.p.in_c, 6);
  EXPECT_EQ(g.expand.p.out_c, 10);
  EXPECT_EQ(g.expand.p.out_h, 9);
  EXPECT_EQ(g.expand.p.kernel_h, 1);
  EXPECT_EQ(g.expand.act, Act(ir::Activation::kRelu6));
  EXPECT_EQ(g.depthwise.in_h, 9);
  EXPECT_EQ(g.depthwise.out_w, 4);
  EXPECT_EQ(g.depthwise.out_c, 10);
  EXPECT_EQ(g.depthwise.depth_multiplier, 1);
  EXPECT_EQ(g.depthwise_act, Act(ir::Activation::kTanh));
  EXPECT_EQ(g.project.p.in_c, 10);
  EXPECT_EQ(g.project.p.out_c, 7);
  EXPECT_EQ(g.project.p.out_w, 4);
  EXPECT_EQ(g.project.act, Act(ir::Activation::kRelu));
  EXPECT_EQ(g.expand_elements, 9u * 8 * 10);
  EXPECT_EQ(g.mid_elements, 5u * 4 * 10);
  // (720 + 200) floats = 3680 bytes -> 3712; as halves 1840 -> 1856.
  EXPECT_EQ(g.partial_offset_bytes(4), 3712u);
  EXPECT_EQ(g.partial_offset_bytes(2), 1856u);
  EXPECT_EQ(MakeDepthwiseBlockGeometry(a, {1, 9, 8, 10}, {1, 3, 3, 10}, {7, 1, 1, 10}, {1, 5, 4, 7}, false)
                .expand_elements,
            0u);
  const FullyConnectedGeometry fc = MakeFullyConnectedGeometry({3, 37}, {11, 37});
  EXPECT_EQ(fc.units, 11);
  EXPECT_EQ(fc.in_dim, 37);
  EXPECT_EQ(fc.rows, 3);
  const cpu::ConvParams p = fc.AsConv();
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.in_c, 37);
  EXPECT_EQ(p.out_c, 11);
  EXPECT_EQ(p.in_h * p.in_w * p.out_h * p.out_w * p.kernel_h * p.kernel_w * p.groups, 1);
}

TEST(GpuOpGeometryTest, Elementwise) {
  EXPECT_EQ(BinaryOpCode(ir::OpType::kAdd), 0);
  EXPECT_EQ(BinaryOpCode(ir::OpType::kSub), 1);
  EXPECT_EQ(BinaryOpCode(ir::OpType::kMul), 2);
  EXPECT_EQ(BinaryOpCode(ir::OpType::kDiv), 3);
  EXPECT_EQ(BinaryOpCode(ir::OpType::kPRelu), 4);
  BroadcastGeometry b;
  ASSERT_TRUE(MakeBroadcastGeometry({2, 3}, {3}, &b));
  EXPECT_EQ(b.count, 6);
  EXPECT_EQ(b.shape, (V{1, 1, 1, 1, 2, 3, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 1}));
  EXPECT_FALSE(MakeBroadcastGeometry({2, 3}, {4}, &b));
  ir::OpAttrs a;
  a.alpha = 0.2f;
  a.beta = 0.5f;
  a.clamp_min = -1.0f;
  a.clamp_max = 2.0f;
  const UnaryGeometry leaky = MakeUnaryGeometry(ir::OpType::kLeakyRelu, a, {2, 3, 7});
  EXPECT_EQ(leaky.op, 4);
  EXPECT_EQ(leaky.count, 42);
  EXPECT_EQ(leaky.alpha, 0.2f);
  const UnaryGeometry clamp = MakeUnaryGeometry(ir::OpType::kClamp, a, {5});
  EXPECT_EQ(clamp.op, 5);
  EXPECT_EQ(clamp.alpha, -1.0f);
  EXPECT_EQ(clamp.beta, 2.0f);
  EXPECT_EQ(MakeUnaryGeometry(ir::OpType::kSilu, a, {1}).op, 7);
}

TEST(GpuOpGeometryTest, MeanConcatSoftmax) {
  // Over H and W of 2x5x6x7: kept N, C (strides 210, 1), reduced H, W
  // (strides 42, 7), 30 elements per output.
  const MeanGeometry m = MakeMeanGeometry({2, 5, 6, 7}, {1, -2}, {2, 1, 1, 7});
  EXPECT_EQ(m.count, 14);
  EXPECT_EQ(m.reduced, 30);
  EXPECT_EQ(m.shape, (V{1, 1, 1, 1, 2, 7, 0, 0, 0, 0, 210, 1, 1, 1, 1, 1, 5, 6, 0, 0, 0, 0, 42, 7}));
  const ConcatGeometry c = MakeConcatGeometry(-1, {{2, 3, 4, 5}, {2, 3, 4, 6}}, {2, 3, 4, 11});
  EXPECT_EQ(c.outer, 24);
  EXPECT_EQ(c.stride, 11);
  EXPECT_EQ(c.chunks, (V{5, 6}));
  EXPECT_EQ(c.offsets, (V{0, 5}));
  const ConcatGeometry c1 = MakeConcatGeometry(1, {{2, 3, 4, 5}, {2, 2, 4, 5}}, {2, 5, 4, 5});
  EXPECT_EQ(c1.outer, 2);
  EXPECT_EQ(c1.stride, 100);
  EXPECT_EQ(c1.chunks, (V{60, 40}));
  EXPECT_EQ(c1.offsets, (V{0, 60}));
  const SoftmaxGeometry s = MakeSoftmaxGeometry(1, {2, 9, 3});
  EXPECT_EQ(s.axis_size, 9);
  EXPECT_EQ(s.inner, 3);
  EXPECT_EQ(s.count, 6);
}

// One node over x in a graph of its own (PAD's paddings a constant).
struct ViewCase {
  ir::Graph g;
  ir::Node node;
  explicit ViewCase(ir::OpType type, const V& pads = {}) {
    node.type = type;
    if (!pads.empty()) {
      g.tensors.resize(2);
      std::vector<uint8_t> bytes(pads.size() * sizeof(int));
      std::memcpy(bytes.data(), pads.data(), bytes.size());
      g.SetConstant(1, DataType::kInt32, {static_cast<int>(pads.size())}, std::move(bytes));
      node.inputs = {0, 1};
    }
  }
};

TEST(GpuOpGeometryTest, Views) {
  ViewGeometry v;
  {
    // x 2x5x7x5 (strides 175, 35, 5, 1) from [0, 1, 6, 0] by [1, 2, -2, 1]
    // -> 2x2x3x5: first element 35 + 30.
    ViewCase slice(ir::OpType::kSlice);
    slice.node.attrs.slice_start = {0, 1, 6, 0};
    slice.node.attrs.slice_end = {2, 4, 0, 5};
    slice.node.attrs.slice_step = {1, 2, -2, 1};
    ASSERT_TRUE(MakeViewGeometry(slice.g, slice.node, {2, 5, 7, 5}, {2, 2, 3, 5}, &v).ok());
    EXPECT_EQ(v.name, "slice");
    EXPECT_EQ(v.start, 65);
    EXPECT_EQ(v.pad, 0);
    EXPECT_EQ(v.count, 60);
    EXPECT_EQ(v.shape, (V{1, 1, 2, 2, 3, 5, 0, 0, 175, 70, -10, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
  }
  {
    ViewCase transpose(ir::OpType::kTranspose);
    transpose.node.attrs.perm = {0, 3, 1, 2};
    ASSERT_TRUE(MakeViewGeometry(transpose.g, transpose.node, {2, 3, 4, 5}, {2, 5, 3, 4}, &v).ok());
    EXPECT_EQ(v.name, "transpose");
    EXPECT_EQ(v.start, 0);
    EXPECT_EQ(v.shape, (V{1, 1, 2, 5, 3, 4, 0, 0, 60, 1, 20, 5, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
  }
  {
    ViewCase pad(ir::OpType::kPad, {0, 0, 1, 2, 2, 0, 0, 1});
    ASSERT_TRUE(MakeViewGeometry(pad.g, pad.node, {1, 4, 5, 3}, {1, 7, 7, 4}, &v).ok());
    EXPECT_EQ(v.name, "pad");
    EXPECT_EQ(v.pad, 1);
    EXPECT_EQ(v.value, 0.0f);
    EXPECT_EQ(v.count, 196);
    EXPECT_EQ(v.shape, (V{1, 1, 1, 7, 7, 4, 0, 0, 60, 15, 3, 1, 0, 0, 0, 1, 2, 0, 1, 1, 1, 4, 5, 3}));
  }
  {
    ViewCase reshape(ir::OpType::kReshape);
    ASSERT_TRUE(MakeViewGeometry(reshape.g, reshape.node, {2, 3, 4}, {6, 4}, &v).ok());
    EXPECT_EQ(v.name, "reshape_copy");
    EXPECT_EQ(v.count, 24);
    EXPECT_EQ(v.shape, (V{1, 1, 1, 1, 1, 24, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
  }
}

// Bilinear, TFLite's coordinates (no align_corners, no half pixel) from 2
// rows to 4: sources 0, 0.5, 1, 1.5 between their floor and ceiling, the
// last clamped to row 1.
// Nearest from 4 columns to 2: columns 0 and 2.
TEST(GpuOpGeometryTest, ResizeTaps) {
  const ResizeTables t = MakeResizeTaps(ir::OpType::kResizeBilinear, {}, {1, 2, 4, 3}, {1, 4, 2, 3});
  EXPECT_EQ(t.name, "resize_bilinear");
  EXPECT_EQ(t.taps, 2);
  EXPECT_EQ(t.rows, (V{0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(t.row_weights, (std::vector<float>{1, 0, 0.5f, 0.5f, 1, 0, 0.5f, 0.5f}));
  EXPECT_EQ(t.cols.size(), 4u);
  EXPECT_EQ(t.in_h, 2);
  EXPECT_EQ(t.in_w, 4);
  EXPECT_EQ(t.channels, 3);
  EXPECT_EQ(t.out_h, 4);
  EXPECT_EQ(t.out_w, 2);
  const ResizeTables n = MakeResizeTaps(ir::OpType::kResizeNearest, {}, {1, 2, 4, 3}, {1, 4, 2, 3});
  EXPECT_EQ(n.name, "resize_nearest");
  EXPECT_EQ(n.taps, 1);
  EXPECT_EQ(n.cols, (V{0, 2}));
  EXPECT_EQ(n.col_weights, (std::vector<float>{1, 1}));
  // Bicubic, 4 taps a side, half-pixel: an identity resize puts all of each
  // output's weight on its own row.
  ir::OpAttrs a;
  a.resize_coordinate = ir::ResizeCoordinate::kHalfPixel;
  const ResizeTables c = MakeSeparableResizeTaps(ir::OpType::kResizeBicubic, a, {1, 5, 5, 1}, {1, 5, 5, 1});
  EXPECT_EQ(c.name, "resize_bicubic");
  EXPECT_EQ(c.taps, 4);
  EXPECT_EQ(c.col_taps, 4);
  ASSERT_EQ(c.divisor.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    float own = 0, sum = 0;
    for (int k = 0; k < 4; ++k) {
      sum += c.row_weights[i * 4 + k];
      if (c.rows[i * 4 + k] == i) own += c.row_weights[i * 4 + k];
    }
    EXPECT_NEAR(own, 1.0f, 1e-6) << i;
    EXPECT_NEAR(sum, 1.0f, 1e-6) << i;
  }
  a.antialias = true;
  EXPECT_EQ(MakeSeparableResizeTaps(ir::OpType::kResizeBilinear, a, {1, 6, 6, 1}, {1, 3, 3, 1}).name,
            "resize_antialias_linear");
  EXPECT_EQ(MakeSeparableResizeTaps(ir::OpType::kResizeBicubic, a, {1, 6, 6, 1}, {1, 3, 3, 1}).name,
            "resize_antialias_cubic");
}

// The shared execution base's checks, on a PAD node: x, paddings, value.
class PadExecution : public GpuExecution {
 public:
  explicit PadExecution(const ExecutionArgs& args) : GpuExecution(args, "testgpu") {}
  std::string name() const override { return "pad_test"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs());
    return MakeView(&view);
  }
  Status Run() override { return Status::Ok(); }
  ViewGeometry view;
};

TEST(GpuExecutionTest, RefusalsNameTheBackendAndConstantsAreRead) {
  ViewCase pad(ir::OpType::kPad, {0, 0, 1, 2, 2, 0, 0, 1});
  pad.node.name = "the_pad";
  const float half = 0.5f;
  TensorBinding x, pads, value, y;
  x.shape = {1, 4, 5, 3};
  pads.dtype = DataType::kInt32;
  pads.constant = true;
  value.shape = {};
  value.constant = true;
  value.constant_data = &half;
  y.shape = {1, 7, 7, 4};
  ExecutionArgs args;
  args.graph = &pad.g;
  args.node = &pad.node;
  args.inputs = {&x, &pads, &value};
  args.outputs = {&y};
  {
    PadExecution e(args);
    ASSERT_TRUE(e.Prepare().ok());
    EXPECT_EQ(e.view.value, 0.5f);
    EXPECT_EQ(e.view.pad, 1);
  }
  // A pad value that is not a constant: refused (Unimplemented), naming the
  // backend and the node.
  value.constant = false;
  {
    PadExecution e(args);
    const Status s = e.Prepare();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
    EXPECT_NE(s.message().find("testgpu: non-constant pad value"), std::string::npos) << s.ToString();
    EXPECT_NE(s.message().find("the_pad"), std::string::npos) << s.ToString();
  }
  // An int8 activation runs on the CPU.
  x.dtype = DataType::kInt8;
  {
    PadExecution e(args);
    const Status s = e.Prepare();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
    EXPECT_NE(s.message().find("testgpu: input type"), std::string::npos) << s.ToString();
  }
  // Rank 7: refused.
  x.dtype = DataType::kFloat32;
  x.shape = {1, 1, 1, 1, 4, 5, 3};
  {
    PadExecution e(args);
    const Status s = e.Prepare();
    EXPECT_NE(s.message().find("testgpu: rank > 6"), std::string::npos) << s.ToString();
  }
}

TEST(GpuWeightsTest, HalvesRoundToNearestEven) {
  EXPECT_EQ(ToHalf(1.0f), 0x3c00);
  EXPECT_EQ(ToHalf(-2.0f), 0xc000);
  EXPECT_EQ(ToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(ToHalf(65520.0f), 0x7c00);                     // past the largest half: infinity
  EXPECT_EQ(ToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // a tie: to even
  EXPECT_EQ(ToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(FromHalf(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(FromHalf(0x3c02), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(FromHalf(0xfc00), -INFINITY);
  EXPECT_EQ(ToHalves({1.0f, -2.0f}), (std::vector<uint16_t>{0x3c00, 0xc000}));
  // Subnormal halves (h * 2^-24), their ties and the edges around them.
  EXPECT_EQ(ToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(ToHalf(std::ldexp(1.0f, -15)), 0x0200);
  EXPECT_EQ(ToHalf(-std::ldexp(3.0f, -24)), 0x8003);
  EXPECT_EQ(ToHalf(std::ldexp(1.0f, -25)), 0x0000);            // a tie between 0 and 1: to even
  EXPECT_EQ(ToHalf(std::ldexp(3.0f, -25)), 0x0002);            // a tie between 1 and 2: to even
  EXPECT_EQ(ToHalf(std::ldexp(1.5f, -25)), 0x0001);            // above the tie: up
  EXPECT_EQ(ToHalf(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(ToHalf(std::ldexp(1023.0f, -24)), 0x03ff);         // the largest subnormal
  EXPECT_EQ(ToHalf(std::ldexp(1023.75f, -24)), 0x0400);        // rounds up into the normals
  for (uint16_t h = 1; h < 0x400; ++h) EXPECT_EQ(ToHalf(FromHalf(h)), h) << h;
}

TEST(GpuWeightsTest, BiasOrZeros) {
  const float values[] = {1.5f, -2.0f, 3.0f};
  TensorBinding bias;
  bias.shape = {3};
  bias.constant = true;
  bias.constant_data = values;
  EXPECT_EQ(BiasOrZeros(&bias, 3), (std::vector<float>{1.5f, -2.0f, 3.0f}));
  EXPECT_EQ(BiasOrZeros(nullptr, 2), (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(ConstFloats(&bias), (std::vector<float>{1.5f, -2.0f, 3.0f}));
}

TEST(GpuWeightsTest, FilterLayouts) {
  // [2][3] -> [3][2].
  EXPECT_EQ(PackGemmFilter(std::vector<float>{0, 1, 2, 3, 4, 5}.data(), 2, 3),
            (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // 5 output channels, 1x1, 2 inputs each -> 2 blocks of [2][4].
  EXPECT_EQ(PackConvFilter(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}.data(), 5, 1, 1, 2),
            (std::vector<float>{1, 3, 5, 7, 2, 4, 6, 8, 9, 0, 0, 0, 10, 0, 0, 0}));
  // NC4HW4 depthwise: 1x2 taps over 5 channels [t][c] -> 2 blocks of [2][4].
  EXPECT_EQ(PackDepthwiseFilterNc4(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}.data(), 1, 2, 5),
            (std::vector<float>{1, 2, 3, 4, 6, 7, 8, 9, 5, 0, 0, 0, 10, 0, 0, 0}));
  // NC4HW4 1x1: 5 outputs of 3 inputs -> 2 blocks of [4 inputs (one of
  // padding)][4 outputs].
  EXPECT_EQ(PackPointwiseFilterNc4(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}.data(), 5, 3),
            (std::vector<float>{1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12, 0, 0, 0, 0,  //
                                13, 0, 0, 0, 14, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(PadToBlocks({1, 2, 3, 4, 5}), (std::vector<float>{1, 2, 3, 4, 5, 0, 0, 0}));
  EXPECT_EQ(PadToBlocks({1, 2, 3, 4}), (std::vector<float>{1, 2, 3, 4}));
  // Winograd F(2x2, 3x3): G g G^T of one 3x3 filter (worked by hand), as
  // [16][in_c 1][out_c 1]; two outputs interleave as [16][1][2].
  const std::vector<float> g = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> u = {1, 3, 1, 3, 6, 11.25f, 3.75f, 9, 2, 3.75f, 1.25f, 3, 7, 12, 4, 9};
  EXPECT_EQ(WinogradFilter23(g.data(), 1, 1), u);
  std::vector<float> two(g);
  for (float v : g) two.push_back(-v);
  const std::vector<float> u2 = WinogradFilter23(two.data(), 2, 1);
  for (int z = 0; z < 16; ++z) {
    EXPECT_EQ(u2[z * 2], u[z]);
    EXPECT_EQ(u2[z * 2 + 1], -u[z]);
  }
}

// Which convs the NC4HW4 kernels take: depthwise with multiplier 1; 1x1,
// stride 1, unpadded, ungrouped, at most kNc4MaxPointwiseInC inputs.
TEST(GpuOpGeometryTest, ChannelBlockedKernelsTakeTheirConvs) {
  cpu::ConvParams dw = PointwiseGeometry(1, 30, 30, 7, 7);
  dw.kernel_h = dw.kernel_w = 3;
  dw.depth_multiplier = 1;
  EXPECT_TRUE(Nc4Depthwise(dw));
  dw.depth_multiplier = 2;
  dw.out_c = 14;
  EXPECT_FALSE(Nc4Depthwise(dw));
  EXPECT_TRUE(Nc4Pointwise(PointwiseGeometry(2, 28, 28, 192, 13)));
  EXPECT_FALSE(Nc4Pointwise(PointwiseGeometry(2, 28, 28, 193, 13)));  // deep K: the GEMM
  EXPECT_TRUE(Nc4Pointwise(PointwiseGeometry(1, 56, 56, 24, 192)));
  EXPECT_FALSE(Nc4Pointwise(PointwiseGeometry(1, 56, 56, 64, 256)));  // wide N (ResNet-50): the GEMM
  EXPECT_TRUE(Pointwise(PointwiseGeometry(2, 28, 28, 193, 13)));
  cpu::ConvParams p = PointwiseGeometry(1, 28, 28, 16, 16);
  p.stride_h = p.stride_w = 2;
  p.out_h = p.out_w = 14;
  EXPECT_FALSE(Nc4Pointwise(p));
  p = PointwiseGeometry(1, 28, 28, 16, 16);
  p.groups = 2;
  EXPECT_FALSE(Nc4Pointwise(p));
  p = PointwiseGeometry(1, 28, 28, 16, 16);
  p.kernel_h = p.kernel_w = 3;
  p.pad_top = p.pad_left = 1;
  EXPECT_FALSE(Nc4Pointwise(p));
  EXPECT_FALSE(Pointwise(p));
  EXPECT_EQ(kNc4MinPixels, 784);
  cpu::ConvParams w = PointwiseGeometry(1, 9, 9, 5, 7);
  w.kernel_h = w.kernel_w = 3;
  EXPECT_TRUE(Winograd23(w));
  w.stride_h = 2;
  EXPECT_FALSE(Winograd23(w));
  w.stride_h = 1;
  w.dilation_w = 2;
  EXPECT_FALSE(Winograd23(w));
  // Where Winograd pays (the default rule): maps of 28x28 and more.
  cpu::ConvParams r = PointwiseGeometry(1, 28, 28, 128, 128);
  r.kernel_h = r.kernel_w = 3;
  r.pad_top = r.pad_left = 1;
  EXPECT_TRUE(WinogradPays(r));
  r.in_h = r.in_w = r.out_h = r.out_w = 14;
  EXPECT_FALSE(WinogradPays(r));
  r.out_h = 56;  // a 56x14 map: 784 pixels
  r.in_h = 56;
  EXPECT_TRUE(WinogradPays(r));
  r.stride_h = 2;
  EXPECT_FALSE(WinogradPays(r));
}

}  // namespace
}  // namespace rill::inference::gpu
