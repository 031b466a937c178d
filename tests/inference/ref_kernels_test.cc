// Every reference kernel against values computed by hand, on small odd
// shapes (1, 2, 3, 7 channels; stride 2; SAME/VALID padding; dilation;
// batch 2).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/ref/activations.h"
#include "inference/backend/cpu/kernels/ref/add.h"
#include "inference/backend/cpu/kernels/ref/concatenation.h"
#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/densify.h"
#include "inference/backend/cpu/kernels/ref/depth_to_space.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/dequantize.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/ref/mean.h"
#include "inference/backend/cpu/kernels/ref/mul.h"
#include "inference/backend/cpu/kernels/ref/pad.h"
#include "inference/backend/cpu/kernels/ref/pooling.h"
#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"
#include "inference/backend/cpu/kernels/ref/resize_nearest.h"
#include "inference/backend/cpu/kernels/ref/resize_separable.h"
#include "inference/backend/cpu/kernels/ref/reshape.h"
#include "inference/backend/cpu/kernels/ref/transpose_conv2d.h"
#include "inference/ir/conv_geometry.h"
#include "inference/runtime/arena_planner.h"

namespace rill::inference::cpu {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::FloatNear;
using ::testing::Pointwise;

std::vector<float> Iota(int n, float start = 1.0f) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

ConvParams Conv(int in_h, int in_w, int in_c, int out_h, int out_w, int out_c, int k_h, int k_w) {
  ConvParams p;
  p.in_h = in_h;
  p.in_w = in_w;
  p.in_c = in_c;
  p.out_h = out_h;
  p.out_w = out_w;
  p.out_c = out_c;
  p.kernel_h = k_h;
  p.kernel_w = k_w;
  return p;
}

TEST(Conv2DRefTest, ValidOnesWithBias) {
  ConvParams p = Conv(3, 3, 1, 2, 2, 1, 2, 2);
  const std::vector<float> x = Iota(9), w(4, 1.0f), bias = {1.0f};
  std::vector<float> y(4);
  Conv2DRef(p, x.data(), w.data(), bias.data(), y.data());
  EXPECT_THAT(y, ElementsAre(13, 17, 25, 29));
}

TEST(Conv2DRefTest, SameStride2) {
  // 3x3 input, 3x3 kernel, stride 2, SAME: out 2x2, pad top/left 1.
  ConvParams p = Conv(3, 3, 1, 2, 2, 1, 3, 3);
  p.stride_h = p.stride_w = 2;
  EXPECT_EQ(ir::WindowOutputSize(3, 3, 2, 1, ir::Padding::kSame), 2);
  p.pad_top = p.pad_left = ir::WindowPadBefore(3, 2, 3, 2, 1, ir::Padding::kSame);
  EXPECT_EQ(p.pad_top, 1);
  const std::vector<float> x = Iota(9), w(9, 1.0f);
  std::vector<float> y(4);
  Conv2DRef(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_THAT(y, ElementsAre(12, 16, 24, 28));
}

TEST(Conv2DRefTest, ThreeChannelsTwoFiltersRelu6) {
  ConvParams p = Conv(1, 1, 3, 1, 1, 2, 1, 1);
  p.activation = FusedActivation::kRelu6;
  const std::vector<float> x = {1, 2, 3}, w = {1, 1, 1, 1, -1, 2}, bias = {0.5f, -0.5f};
  std::vector<float> y(2);
  Conv2DRef(p, x.data(), w.data(), bias.data(), y.data());
  EXPECT_THAT(y, ElementsAre(6.0f, 4.5f));
}

TEST(Conv2DRefTest, Dilation2) {
  ConvParams p = Conv(5, 5, 1, 3, 3, 1, 2, 2);
  p.dilation_h = p.dilation_w = 2;
  EXPECT_EQ(ir::WindowOutputSize(5, 2, 1, 2, ir::Padding::kValid), 3);
  const std::vector<float> x = Iota(25, 0.0f), w(4, 1.0f);
  std::vector<float> y(9);
  Conv2DRef(p, x.data(), w.data(), nullptr, y.data());
  // out(i,j) = x(i,j) + x(i,j+2) + x(i+2,j) + x(i+2,j+2) = 4*x(i,j) + 24.
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_EQ(y[i * 3 + j], 4 * (i * 5 + j) + 24);
  }
}

TEST(Conv2DRefTest, Batch2SevenChannels1x1) {
  ConvParams p = Conv(1, 2, 7, 1, 2, 3, 1, 1);
  p.batch = 2;
  std::vector<float> x(2 * 2 * 7);
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 14; ++i) x[n * 14 + i] = static_cast<float>(n + 1);
  }
  std::vector<float> w(3 * 7);
  for (int o = 0; o < 3; ++o) {
    for (int c = 0; c < 7; ++c) w[o * 7 + c] = static_cast<float>(o);  // filter o sums to 7*o
  }
  std::vector<float> y(2 * 2 * 3);
  Conv2DRef(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_THAT(y, ElementsAre(0, 7, 14, 0, 7, 14, 0, 14, 28, 0, 14, 28));
}

TEST(DepthwiseConv2DRefTest, TwoChannelsValid) {
  ConvParams p = Conv(3, 3, 2, 2, 2, 2, 2, 2);
  std::vector<float> x(18);
  for (int i = 0; i < 9; ++i) {
    x[2 * i] = i + 1.0f;
    x[2 * i + 1] = 10.0f * (i + 1);
  }
  // Filter 1x2x2x2: channel 0 all ones, channel 1 only the top-left tap.
  const std::vector<float> w = {1, 1, 1, 0, 1, 0, 1, 0};
  std::vector<float> y(8);
  DepthwiseConv2DRef(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_THAT(y, ElementsAre(12, 10, 16, 20, 24, 40, 28, 50));
}

TEST(DepthwiseConv2DRefTest, DepthMultiplier2WithBias) {
  ConvParams p = Conv(1, 1, 1, 1, 1, 2, 1, 1);
  p.depth_multiplier = 2;
  const std::vector<float> x = {3}, w = {2, -1}, bias = {1, 1};
  std::vector<float> y(2);
  p.activation = FusedActivation::kRelu;
  DepthwiseConv2DRef(p, x.data(), w.data(), bias.data(), y.data());
  EXPECT_THAT(y, ElementsAre(7, 0));
}

TEST(TransposeConv2DRefTest, Stride2Kernel2FillsBlocks) {
  ConvParams p = Conv(2, 2, 1, 4, 4, 1, 2, 2);
  p.stride_h = p.stride_w = 2;
  const std::vector<float> x = {1, 2, 3, 4}, w(4, 1.0f), bias = {1};
  std::vector<float> y(16);
  TransposeConv2DRef(p, x.data(), w.data(), bias.data(), y.data());
  EXPECT_THAT(y, ElementsAre(2, 2, 3, 3, 2, 2, 3, 3, 4, 4, 5, 5, 4, 4, 5, 5));
}

TEST(TransposeConv2DRefTest, Stride1Overlaps) {
  ConvParams p = Conv(2, 2, 1, 3, 3, 1, 2, 2);
  const std::vector<float> x = {1, 2, 3, 4}, w(4, 1.0f);
  std::vector<float> y(9);
  TransposeConv2DRef(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_THAT(y, ElementsAre(1, 3, 2, 4, 10, 6, 3, 7, 4));
}

TEST(TransposeConv2DRefTest, SameKernel3Stride2TwoChannelsIn) {
  // 2x2 -> 4x4 (SAME); the forward conv 4x4 -> 2x2 needs no padding before.
  ConvParams p = Conv(2, 2, 2, 4, 4, 1, 3, 3);
  p.stride_h = p.stride_w = 2;
  EXPECT_EQ(ir::TransposeConvOutputSize(2, 3, 2, ir::Padding::kSame), 4);
  p.pad_top = p.pad_left = ir::WindowPadBefore(4, 2, 3, 2, 1, ir::Padding::kSame);
  EXPECT_EQ(p.pad_top, 0);
  // Channel 1 is ignored by a zero weight.
  std::vector<float> x = {1, 100, 2, 100, 3, 100, 4, 100};
  std::vector<float> w(18);
  for (int i = 0; i < 9; ++i) w[2 * i] = 1.0f;
  std::vector<float> y(16);
  TransposeConv2DRef(p, x.data(), w.data(), nullptr, y.data());
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[2], 3);         // row 0 col 2: inputs (0,0),(0,1)
  EXPECT_EQ(y[2 * 4 + 2], 10);  // all four inputs
  EXPECT_EQ(y[3 * 4 + 3], 4);
  EXPECT_EQ(y[2 * 4 + 0], 4);  // (0,0),(1,0)
}

TEST(FullyConnectedRefTest, Batch2) {
  const std::vector<float> x = {1, 1, 1, 1, 2, 3}, w = {1, 2, 3, -1, 0, 1}, bias = {0, 1};
  std::vector<float> y(4);
  FullyConnectedRef(2, 3, 2, FusedActivation::kNone, x.data(), w.data(), bias.data(), y.data());
  EXPECT_THAT(y, ElementsAre(6, 1, 14, 3));
  FullyConnectedRef(2, 3, 2, FusedActivation::kReluN1To1, x.data(), w.data(), nullptr, y.data());
  EXPECT_THAT(y, ElementsAre(1, 0, 1, 1));
}

TEST(BinaryRefTest, AddBroadcastsRowAndColumn) {
  BroadcastParams p;
  ASSERT_TRUE(MakeBroadcastParams({2, 3}, {3}, &p));
  const std::vector<float> a = Iota(6), row = {10, 20, 30}, col = {100, 200};
  std::vector<float> y(6);
  AddRef(p, a.data(), row.data(), y.data());
  EXPECT_THAT(y, ElementsAre(11, 22, 33, 14, 25, 36));
  ASSERT_TRUE(MakeBroadcastParams({2, 3}, {2, 1}, &p));
  AddRef(p, a.data(), col.data(), y.data());
  EXPECT_THAT(y, ElementsAre(101, 102, 103, 204, 205, 206));
  EXPECT_FALSE(MakeBroadcastParams({2, 3}, {2}, &p));
}

TEST(BinaryRefTest, MulScalarAndNhwcChannelScaleWithRelu) {
  BroadcastParams p;
  ASSERT_TRUE(MakeBroadcastParams({1, 2, 1, 3}, {1}, &p));
  const std::vector<float> a = {1, -2, 3, -4, 5, -6}, two = {2};
  std::vector<float> y(6);
  MulRef(p, a.data(), two.data(), y.data());
  EXPECT_THAT(y, ElementsAre(2, -4, 6, -8, 10, -12));
  ASSERT_TRUE(MakeBroadcastParams({1, 2, 1, 3}, {1, 1, 1, 3}, &p));
  p.activation = FusedActivation::kRelu;
  const std::vector<float> scale = {1, -1, 0.5f};
  MulRef(p, a.data(), scale.data(), y.data());
  EXPECT_THAT(y, ElementsAre(1, 2, 1.5f, 0, 0, 0));
  ASSERT_TRUE(MakeBroadcastParams({2, 2}, {2, 2}, &p));
  EXPECT_TRUE(p.same_shape);
}

TEST(ActivationRefTest, HandValues) {
  const std::vector<float> x = {-4, -1, 0, 1, 4, 7};
  std::vector<float> y(6);
  ReluRef(6, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(0, 0, 0, 1, 4, 7));
  Relu6Ref(6, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(0, 0, 0, 1, 4, 6));
  HardSwishRef(6, x.data(), y.data());
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), std::vector<float>{0, -1.0f / 3, 0, 2.0f / 3, 4, 7}));
  const std::vector<float> z = {0, std::log(3.0f), -std::log(3.0f)};
  std::vector<float> s(3);
  LogisticRef(3, z.data(), s.data());
  EXPECT_THAT(s, Pointwise(FloatNear(1e-6f), std::vector<float>{0.5f, 0.75f, 0.25f}));
}

TEST(PadRefTest, Rank4HeightAndWidth) {
  PadParams p;
  p.rank = 4;
  const int dims[4] = {1, 1, 2, 1};
  for (int i = 0; i < 4; ++i) p.in_dims[i] = dims[i];
  p.before[1] = 1;  // one row on top
  p.before[2] = 1;
  p.after[2] = 2;  // width 2 -> 5
  const std::vector<float> x = {1, 2};
  std::vector<float> y(2 * 5, -1.0f);
  PadRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(0, 0, 0, 0, 0, 0, 1, 2, 0, 0));
}

TEST(PadRefTest, ChannelPadding) {
  PadParams p;
  p.rank = 2;
  p.in_dims[0] = 2;
  p.in_dims[1] = 1;
  p.after[1] = 2;
  const std::vector<float> x = {5, 6};
  std::vector<float> y(6, -1.0f);
  PadRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(5, 0, 0, 6, 0, 0));
}

PoolParams Pool3x3To2x2() {
  PoolParams p;
  p.in_h = p.in_w = 3;
  p.out_h = p.out_w = 2;
  p.kernel_h = p.kernel_w = 2;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = ir::WindowPadBefore(3, 2, 2, 2, 1, ir::Padding::kSame);
  return p;
}

TEST(PoolRefTest, MaxSameStride2) {
  PoolParams p = Pool3x3To2x2();
  EXPECT_EQ(p.pad_top, 0);
  const std::vector<float> x = Iota(9);
  std::vector<float> y(4);
  MaxPool2DRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(5, 6, 8, 9));
}

TEST(PoolRefTest, AverageIgnoresPadding) {
  PoolParams p = Pool3x3To2x2();
  const std::vector<float> x = Iota(9);
  std::vector<float> y(4);
  AveragePool2DRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(3, 4.5f, 7.5f, 9));
}

TEST(PoolRefTest, ThreeChannelsBatch2) {
  PoolParams p;
  p.batch = 2;
  p.in_h = 1;
  p.in_w = 2;
  p.channels = 3;
  p.out_h = p.out_w = 1;
  p.kernel_h = 1;
  p.kernel_w = 2;
  const std::vector<float> x = Iota(12);
  std::vector<float> y(6);
  MaxPool2DRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(4, 5, 6, 10, 11, 12));
  AveragePool2DRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(2.5f, 3.5f, 4.5f, 8.5f, 9.5f, 10.5f));
}

TEST(MeanRefTest, SpatialMeanPerChannel) {
  ReduceParams p;
  p.rank = 4;
  const int dims[4] = {1, 2, 2, 3};
  for (int i = 0; i < 4; ++i) p.in_dims[i] = dims[i];
  p.reduce[1] = p.reduce[2] = true;
  const std::vector<float> x = Iota(12);
  std::vector<float> y(3);
  MeanRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(5.5f, 6.5f, 7.5f));
}

TEST(MeanRefTest, LastAxisOfBatch2) {
  ReduceParams p;
  p.rank = 2;
  p.in_dims[0] = 2;
  p.in_dims[1] = 7;
  p.reduce[1] = true;
  const std::vector<float> x = Iota(14, 0.0f);
  std::vector<float> y(2);
  MeanRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(3, 10));
}

TEST(ResizeBilinearRefTest, AlignCorners) {
  ResizeParams p;
  p.in_h = p.in_w = 2;
  p.out_h = p.out_w = 3;
  p.align_corners = true;
  const std::vector<float> x = {0, 1, 2, 3};
  std::vector<float> y(9);
  ResizeBilinearRef(p, x.data(), y.data());
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3}));
}

TEST(ResizeBilinearRefTest, DefaultAndHalfPixel) {
  ResizeParams p;
  p.in_h = 1;
  p.in_w = 2;
  p.out_h = 1;
  p.out_w = 4;
  const std::vector<float> x = {0, 1};
  std::vector<float> y(4);
  ResizeBilinearRef(p, x.data(), y.data());
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), std::vector<float>{0, 0.5f, 1, 1}));
  p.half_pixel_centers = true;
  ResizeBilinearRef(p, x.data(), y.data());
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), std::vector<float>{0, 0.25f, 0.75f, 1}));
}

TEST(ResizeBilinearRefTest, TwoChannels) {
  ResizeParams p;
  p.in_h = 1;
  p.in_w = 2;
  p.channels = 2;
  p.out_h = 1;
  p.out_w = 3;
  p.align_corners = true;
  const std::vector<float> x = {0, 10, 2, 30};
  std::vector<float> y(6);
  ResizeBilinearRef(p, x.data(), y.data());
  EXPECT_THAT(y, Pointwise(FloatNear(1e-6f), std::vector<float>{0, 10, 1, 20, 2, 30}));
}

// ONNX scales: coordinates divide by the model's scale, not by out / in
// (9 columns x 1.5 give 13, whose out / in is 1.444).
TEST(ResizeBilinearRefTest, OnnxScaleDividesCoordinates) {
  ResizeParams p;
  p.in_w = 9;
  p.out_w = 13;
  p.scale_w = 1.5f;
  p.coordinate = ir::ResizeCoordinate::kAsymmetric;
  std::vector<float> x(9), y(13);
  for (int i = 0; i < 9; ++i) x[i] = static_cast<float>(i);
  ResizeBilinearRef(p, x.data(), y.data());  // asymmetric: column o reads o / 1.5
  for (int o = 0; o < 12; ++o) EXPECT_FLOAT_EQ(y[o], o / 1.5f) << o;
  EXPECT_FLOAT_EQ(y[12], 8.0f);  // 12 / 1.5 = 8, the last column
  p.coordinate = ir::ResizeCoordinate::kHalfPixel;  // (o + 0.5) / 1.5 - 0.5
  ResizeBilinearRef(p, x.data(), y.data());
  EXPECT_FLOAT_EQ(y[0], 0.0f);  // -0.17 clamps to column 0
  EXPECT_NEAR(y[5], 5.5f / 1.5f - 0.5f, 1e-6f);
}

// TFLite's RESIZE_NEAREST_NEIGHBOR rules, output columns of one row holding
// the source column index: floor(o * in/out); align_corners rounds
// o * (in-1)/(out-1) half away from zero; half_pixel_centers takes
// floor((o + 0.5) * in/out).
TEST(ResizeNearestRefTest, TfliteRules) {
  auto columns = [](int in, int out, bool align, bool half) {
    ResizeNearestParams p;
    p.in_w = in;
    p.out_w = out;
    p.align_corners = align;
    p.half_pixel_centers = half;
    std::vector<float> x(in), y(out);
    for (int i = 0; i < in; ++i) x[i] = static_cast<float>(i);
    ResizeNearestRef(p, x.data(), y.data());
    return y;
  };
  EXPECT_THAT(columns(4, 8, false, false), ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(columns(4, 7, true, false), ElementsAre(0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(columns(4, 8, false, true), ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_THAT(columns(8, 3, false, true), ElementsAre(1, 4, 6));
  EXPECT_THAT(columns(8, 3, false, false), ElementsAre(0, 2, 5));
  EXPECT_THAT(columns(3, 1, true, false), ElementsAre(0));
}

// Channels and rows move together; ONNX modes pick the rows ONNX Runtime
// picks (onnx_resize_test checks every mode against it).
TEST(ResizeNearestRefTest, ChannelsRowsAndOnnxModes) {
  ResizeNearestParams p;
  p.in_h = 2;
  p.in_w = 1;
  p.channels = 2;
  p.out_h = 4;
  p.out_w = 2;
  const std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y(16);
  ResizeNearestRef(p, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4));
  p.coordinate = ir::ResizeCoordinate::kHalfPixel;  // rows (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25
  p.rounding = ir::NearestRounding::kRoundPreferFloor;
  EXPECT_EQ(NearestSourceIndex(p, ResizeAxis{2, 4, 2.0f}, 0), 0);
  EXPECT_EQ(NearestSourceIndex(p, ResizeAxis{2, 4, 2.0f}, 2), 1);
  p.coordinate = ir::ResizeCoordinate::kAsymmetric;  // 3 / 2 = 1.5: the tie
  EXPECT_EQ(NearestSourceIndex(p, ResizeAxis{3, 6, 2.0f}, 3), 1);
  p.rounding = ir::NearestRounding::kRoundPreferCeil;
  EXPECT_EQ(NearestSourceIndex(p, ResizeAxis{3, 6, 2.0f}, 3), 2);
  p.rounding = ir::NearestRounding::kCeil;
  EXPECT_EQ(NearestSourceIndex(p, ResizeAxis{3, 6, 2.0f}, 5), 2);  // ceil(2.5) = 3 clamps to 2
}

// The separable resampling's taps: a constant image stays constant under
// every filter and mode (clamped or renormalized taps); Keys' cubic with
// a = -0.5 and antialiased linear reproduce a ramp at the source coordinate
// where no tap reaches past an edge; a tf_crop_and_resize source outside the
// input is extrapolation_value. (onnx_resize_test checks every mode against
// ONNX Runtime.)
ResizeSeparableParams Row(int in_w, int out_w, ResizeFilter filter, ir::ResizeCoordinate coordinate) {
  ResizeSeparableParams p;
  p.in_w = in_w;
  p.out_w = out_w;
  p.filter = filter;
  p.coordinate = coordinate;
  return p;
}
std::vector<float> RunRow(const ResizeSeparableParams& p, const std::vector<float>& x) {
  ResizeTaps rows, cols;
  ComputeResizeSeparableTaps(p, true, &rows);
  ComputeResizeSeparableTaps(p, false, &cols);
  std::vector<float> y(static_cast<size_t>(p.out_h) * p.out_w);
  ResizeSeparableRef(p, rows, cols, x.data(), y.data());
  return y;
}

TEST(ResizeSeparableRefTest, ConstantStaysConstant) {
  for (ResizeFilter filter : {ResizeFilter::kCubic, ResizeFilter::kAntialiasLinear, ResizeFilter::kAntialiasCubic}) {
    for (ir::ResizeCoordinate mode : {ir::ResizeCoordinate::kHalfPixel, ir::ResizeCoordinate::kAlignCorners,
                                      ir::ResizeCoordinate::kAsymmetric, ir::ResizeCoordinate::kPytorchHalfPixel}) {
      for (bool exclude : {false, true}) {
        for (int out_w : {1, 3, 16}) {
          ResizeSeparableParams p = Row(6, out_w, filter, mode);
          p.exclude_outside = exclude;
          p.out_h = 2;
          const std::vector<float> y = RunRow(p, std::vector<float>(6, 2.5f));
          // Within float rounding: Keys' weights sum to 1 in exact arithmetic.
          EXPECT_THAT(y, Pointwise(FloatNear(1e-5f), std::vector<float>(y.size(), 2.5f)))
              << static_cast<int>(filter) << " " << static_cast<int>(mode) << " " << exclude << " " << out_w;
        }
      }
    }
  }
}

TEST(ResizeSeparableRefTest, RampsAndExtrapolation) {
  std::vector<float> ramp(10);
  for (int i = 0; i < 10; ++i) ramp[i] = static_cast<float>(i);
  // Cubic, a = -0.5, x2 half_pixel: output o samples (o + 0.5) / 2 - 0.5.
  ResizeSeparableParams p = Row(10, 20, ResizeFilter::kCubic, ir::ResizeCoordinate::kHalfPixel);
  p.cubic_coeff_a = -0.5f;
  std::vector<float> y = RunRow(p, ramp);
  for (int o = 4; o < 16; ++o) EXPECT_NEAR(y[o], (o + 0.5f) / 2 - 0.5f, 1e-5f) << o;
  // At the edges the clamped taps pull towards the edge pixel: -0.25 -> above 0.
  EXPECT_GT(y[0], -0.25f + 1e-3f);
  // Antialiased linear, /2: a [1, 3, 3, 1] / 8 filter around 2o + 0.5.
  p = Row(10, 5, ResizeFilter::kAntialiasLinear, ir::ResizeCoordinate::kHalfPixel);
  y = RunRow(p, ramp);
  for (int o = 1; o < 4; ++o) EXPECT_NEAR(y[o], 2 * o + 0.5f, 1e-5f) << o;
  // tf_crop_and_resize over [-0.5, 0.5] of the row to 9 outputs: source
  // -4.5 + o * 9 / 8, outside the input for o < 4 (extrapolation_value), the
  // ramp where every tap is inside (o >= 5). (10 outputs would have scale 1:
  // not transformed at all, as in ONNX Runtime.)
  p = Row(10, 9, ResizeFilter::kCubic, ir::ResizeCoordinate::kTfCropAndResize);
  p.cubic_coeff_a = -0.5f;  // (only a = -0.5 reproduces ramps)
  p.roi_start_w = -0.5f;
  p.roi_end_w = 0.5f;
  p.extrapolation_value = -9.0f;
  y = RunRow(p, ramp);
  for (int o = 0; o < 4; ++o) EXPECT_EQ(y[o], -9.0f) << o;
  for (int o = 5; o < 9; ++o) EXPECT_NEAR(y[o], o * 1.125f - 4.5f, 1e-5f) << o;
}

TEST(ConcatenationRefTest, Axis1AndLastAxis) {
  const std::vector<float> a = {1, 2}, b = {3, 4, 5, 6};
  const float* inputs[2] = {a.data(), b.data()};
  const long long chunks[2] = {1, 2};  // [2,1] ++ [2,2] along axis 1
  std::vector<float> y(6);
  ConcatenationRef(2, inputs, chunks, 2, FusedActivation::kNone, y.data());
  EXPECT_THAT(y, ElementsAre(1, 3, 4, 2, 5, 6));
  const long long whole[2] = {2, 4};  // along axis 0
  ConcatenationRef(2, inputs, whole, 1, FusedActivation::kNone, y.data());
  EXPECT_THAT(y, ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(DepthToSpaceRefTest, Block2) {
  const std::vector<float> x = Iota(8);
  std::vector<float> y(8);
  DepthToSpaceRef(1, 1, 1, 8, 2, x.data(), y.data());
  EXPECT_THAT(y, ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));  // (0,0)=[1,2] (0,1)=[3,4] (1,0)=[5,6] (1,1)=[7,8]
  // 1x1x2x4 with one output channel: each input pixel becomes a 2x2 block.
  const std::vector<float> z = Iota(8);
  DepthToSpaceRef(1, 1, 2, 4, 2, z.data(), y.data());
  EXPECT_THAT(y, ElementsAre(1, 2, 5, 6, 3, 4, 7, 8));
}

TEST(ReshapeRefTest, CopiesBytes) {
  const std::vector<float> x = Iota(5);
  std::vector<float> y(5);
  ReshapeRef(5 * sizeof(float), x.data(), y.data());
  EXPECT_EQ(x, y);
}

TEST(DequantizeRefTest, Fp16Values) {
  const std::vector<uint16_t> h = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x3555, 0x8000, 0x7C00, 0x0400};
  std::vector<float> f(h.size());
  DequantizeFp16Ref(static_cast<long long>(h.size()), h.data(), f.data());
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[2], 65504.0f);
  EXPECT_EQ(f[3], std::ldexp(1.0f, -24));
  EXPECT_EQ(f[4], 0.333251953125f);
  EXPECT_EQ(f[5], 0.0f);
  EXPECT_TRUE(std::signbit(f[5]));
  EXPECT_TRUE(std::isinf(f[6]));
  EXPECT_EQ(f[7], std::ldexp(1.0f, -14));
  const std::vector<int8_t> q = {-128, 0, 127};
  std::vector<float> d(3);
  DequantizeInt8Ref(3, q.data(), 0.5f, -1, d.data());
  EXPECT_THAT(d, ElementsAre(-63.5f, 0.5f, 64));
}

TEST(DensifyRefTest, CsrRows) {
  ir::SparsityInfo s;
  s.traversal_order = {0, 1};
  s.dims.resize(2);
  s.dims[0].dense_size = 2;
  s.dims[1].sparse = true;
  s.dims[1].segments = {0, 2, 3};
  s.dims[1].indices = {1, 3, 0};
  const std::vector<float> values = {7, 8, 9};
  std::vector<float> out(8, -1.0f);
  std::string error;
  ASSERT_TRUE(DensifyRef(s, {2, 4}, 4, reinterpret_cast<const uint8_t*>(values.data()), 3,
                         reinterpret_cast<uint8_t*>(out.data()), &error))
      << error;
  EXPECT_THAT(out, ElementsAre(0, 7, 0, 8, 9, 0, 0, 0));
}

TEST(DensifyRefTest, BlockSparseColumns) {
  ir::SparsityInfo s;
  s.traversal_order = {0, 1, 2};
  s.block_map = {1};
  s.dims.resize(3);
  s.dims[0].dense_size = 2;
  s.dims[1].sparse = true;
  s.dims[1].segments = {0, 1, 2};
  s.dims[1].indices = {1, 0};
  s.dims[2].dense_size = 2;
  const std::vector<float> values = {1, 2, 3, 4};
  std::vector<float> out(8);
  std::string error;
  ASSERT_TRUE(DensifyRef(s, {2, 4}, 4, reinterpret_cast<const uint8_t*>(values.data()), 4,
                         reinterpret_cast<uint8_t*>(out.data()), &error))
      << error;
  EXPECT_THAT(out, ElementsAre(0, 0, 1, 2, 3, 4, 0, 0));
}

TEST(DensifyRefTest, MalformedMetadataIsAnError) {
  ir::SparsityInfo s;
  s.traversal_order = {0, 1};
  s.dims.resize(2);
  s.dims[0].dense_size = 2;
  s.dims[1].sparse = true;
  s.dims[1].segments = {0, 2, 9};  // runs past the indices
  s.dims[1].indices = {1, 3, 0};
  const std::vector<float> values = {7, 8, 9};
  std::vector<float> out(8);
  std::string error;
  EXPECT_FALSE(DensifyRef(s, {2, 4}, 4, reinterpret_cast<const uint8_t*>(values.data()), 3,
                          reinterpret_cast<uint8_t*>(out.data()), &error));
  EXPECT_FALSE(error.empty());
  s.dims[1].segments = {0, 2, 3};
  s.dims[1].indices = {1, 4, 0};  // column 4 of 4
  EXPECT_FALSE(DensifyRef(s, {2, 4}, 4, reinterpret_cast<const uint8_t*>(values.data()), 3,
                          reinterpret_cast<uint8_t*>(out.data()), &error));
}

TEST(ArenaPlannerTest, ReusesMemoryOfDeadBuffers) {
  // A chain a -> b -> c: a and c never live together.
  const std::vector<BufferRequest> chain = {{1000, 0, 1}, {500, 1, 2}, {1000, 2, 3}};
  const ArenaPlan plan = PlanArena(chain, 64);
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_NE(plan.offsets[1], plan.offsets[0]);
  EXPECT_EQ(plan.total_bytes, 1024u + 512u);
}

TEST(ArenaPlannerTest, OverlappingBuffersNeverShareBytes) {
  std::vector<BufferRequest> reqs;
  for (int i = 0; i < 40; ++i) reqs.push_back({static_cast<size_t>(64 * (1 + (i * 7) % 13)), i % 10, i % 10 + i % 4});
  const ArenaPlan plan = PlanArena(reqs, 64);
  for (size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0u);
    EXPECT_LE(plan.offsets[i] + reqs[i].bytes, plan.total_bytes);
    for (size_t j = i + 1; j < reqs.size(); ++j) {
      const bool live_together = reqs[i].first_step <= reqs[j].last_step && reqs[j].first_step <= reqs[i].last_step;
      const bool bytes_overlap = plan.offsets[i] < plan.offsets[j] + reqs[j].bytes &&
                                 plan.offsets[j] < plan.offsets[i] + reqs[i].bytes;
      EXPECT_FALSE(live_together && bytes_overlap) << i << " and " << j;
    }
  }
}

}  // namespace
}  // namespace rill::inference::cpu
