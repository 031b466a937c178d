// WarpAffineCalculator and InverseMatrixCalculator against hand-computed
// pixels and matrices.
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;
using Matrix = std::array<float, 16>;

constexpr Matrix kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

// A w x h VEC32F1 frame whose pixel (x, y) is 10 * y + x + 1.
ImageFrame Ramp(int w, int h) {
  ImageFrame f(ImageFormat::VEC32F1, w, h);
  for (int y = 0; y < h; ++y) {
    float* row = reinterpret_cast<float*>(f.MutableRow(y));
    for (int x = 0; x < w; ++x) row[x] = 10.0f * y + x + 1;
  }
  return f;
}

float At(const ImageFrame& f, int x, int y) {
  return reinterpret_cast<const float*>(f.Row(y))[x];
}

absl::StatusOr<StreamPackets> Warp(Packet image, const Matrix& m,
                                   std::pair<int, int> size,
                                   const std::string& options = "") {
  return RunGraph(R"pb(
                    input_stream: "image"
                    input_stream: "matrix"
                    input_stream: "size"
                    node {
                      calculator: "WarpAffineCalculator"
                      input_stream: "IMAGE:image"
                      input_stream: "MATRIX:matrix"
                      input_stream: "OUTPUT_SIZE:size"
                      output_stream: "IMAGE:out"
                      options { [mediapipe.WarpAffineCalculatorOptions.ext] {)pb" +
                      options + R"pb(} }
                    })pb",
                  {"out"},
                  {{"image", {image.At(Timestamp(5))}},
                   {"matrix", {MakePacket<Matrix>(m).At(Timestamp(5))}},
                   {"size", {MakePacket<std::pair<int, int>>(size).At(Timestamp(5))}}});
}

TEST(WarpAffineCalculatorTest, IdentityCopiesTheImage) {
  auto out = Warp(MakePacket<ImageFrame>(Ramp(4, 3)), kIdentity, {4, 3});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  EXPECT_EQ((*out)["out"][0].Timestamp(), Timestamp(5));
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  ASSERT_EQ(f.Width(), 4);
  ASSERT_EQ(f.Height(), 3);
  EXPECT_EQ(f.Format(), ImageFormat::VEC32F1);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_FLOAT_EQ(At(f, x, y), 10.0f * y + x + 1);
}

// Output x reads input x + W/2: the right half moves left, zeros after it.
TEST(WarpAffineCalculatorTest, ShiftByHalfWithZeroBorder) {
  Matrix m = kIdentity;
  m[3] = 0.5f;
  auto out = Warp(MakePacket<ImageFrame>(Ramp(4, 2)), m, {4, 2},
                  "border_mode: BORDER_ZERO");
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["out"][0].Get<ImageFrame>();
  for (int y = 0; y < 2; ++y) {
    EXPECT_FLOAT_EQ(At(f, 0, y), 10.0f * y + 3);
    EXPECT_FLOAT_EQ(At(f, 1, y), 10.0f * y + 4);
    EXPECT_FLOAT_EQ(At(f, 2, y), 0.0f);
    EXPECT_FLOAT_EQ(At(f, 3, y), 0.0f);
  }
}

// The default border repeats the edge; an Image in gives an Image out, at
// the requested size: a 2x upscale of the normalized plane samples input
// pixel floor(x / 2) at even x.
TEST(WarpAffineCalculatorTest, ImageInImageOutAtTheOutputSize) {
  auto out = Warp(MakePacket<Image>(std::make_shared<ImageFrame>(Ramp(2, 2))),
                  kIdentity, {4, 4}, "interpolation: INTER_NEAREST");
  ASSERT_TRUE(out.ok()) << out.status();
  const Image& image = (*out)["out"][0].Get<Image>();
  const ImageFrame& f = *image.GetImageFrameSharedPtr();
  ASSERT_EQ(f.Width(), 4);
  ASSERT_EQ(f.Height(), 4);
  EXPECT_FLOAT_EQ(At(f, 0, 0), 1.0f);
  EXPECT_FLOAT_EQ(At(f, 2, 0), 2.0f);
  EXPECT_FLOAT_EQ(At(f, 0, 2), 11.0f);
  EXPECT_FLOAT_EQ(At(f, 2, 2), 12.0f);
}

TEST(WarpAffineCalculatorTest, BadOutputSizeIsAnError) {
  auto out = Warp(MakePacket<ImageFrame>(Ramp(2, 2)), kIdentity, {0, 4});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("OUTPUT_SIZE 0x4"));
}

absl::StatusOr<StreamPackets> Invert(const Matrix& m) {
  return RunGraph(R"pb(
                    input_stream: "m"
                    node {
                      calculator: "InverseMatrixCalculator"
                      input_stream: "MATRIX:m"
                      output_stream: "MATRIX:inv"
                    })pb",
                  {"inv"}, {{"m", {MakePacket<Matrix>(m).At(Timestamp(1))}}});
}

TEST(InverseMatrixCalculatorTest, InvertsScaleAndShift) {
  // x' = 2x + 1, y' = 4y + 2  ->  x = 0.5x' - 0.5, y = 0.25y' - 0.5.
  const Matrix m = {2, 0, 0, 1, 0, 4, 0, 2, 0, 0, 1, 0, 0, 0, 0, 1};
  auto out = Invert(m);
  ASSERT_TRUE(out.ok()) << out.status();
  const Matrix& inv = (*out)["inv"][0].Get<Matrix>();
  const Matrix want = {0.5f, 0, 0, -0.5f, 0, 0.25f, 0, -0.5f,
                       0,    0, 1, 0,     0, 0,     0, 1};
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(inv[i], want[i], 1e-6) << i;
}

TEST(InverseMatrixCalculatorTest, SingularMatrixIsAnError) {
  Matrix m = kIdentity;
  m[0] = 0;
  auto out = Invert(m);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("cannot be inverted"));
}

}  // namespace
}  // namespace rill
