#include <array>
#include <cmath>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

// An SRGB image whose pixel (x, y) is (x, y, 7) (values < 256).
ImageFrame Gradient(int w, int h) {
  ImageFrame f(ImageFormat::SRGB, w, h);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = f.MutableRow(y);
    for (int x = 0; x < w; ++x) {
      row[3 * x] = static_cast<uint8_t>(x);
      row[3 * x + 1] = static_cast<uint8_t>(y);
      row[3 * x + 2] = 7;
    }
  }
  return f;
}

struct Result {
  Tensor tensor;
  std::array<float, 16> matrix;
  std::array<float, 4> padding;
};

absl::StatusOr<Result> Convert(const std::string& options, ImageFrame image,
                               const NormalizedRect* rect = nullptr) {
  std::string config =
      R"pb(
        input_stream: "image"
        input_stream: "rect"
        output_stream: "t"
        output_stream: "m"
        output_stream: "p"
        node { calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image"
               input_stream: "NORM_RECT:rect"
               output_stream: "TENSORS:t"
               output_stream: "MATRIX:m"
               output_stream: "LETTERBOX_PADDING:p"
               options {
                 [mediapipe.ImageToTensorCalculatorOptions.ext] {)pb" +
      options + "}}}";
  StreamPackets in = {
      {"image", {Adopt(new ImageFrame(std::move(image))).At(Timestamp(0))}}};
  in["rect"] = {};
  if (rect)
    in["rect"].push_back(MakePacket<NormalizedRect>(*rect).At(Timestamp(0)));
  auto out = RunGraph(config, {"t", "m", "p"}, in);
  if (!out.ok()) return out.status();
  if ((*out)["t"].size() != 1) return absl::InternalError("no tensor");
  const auto& tensors = (*out)["t"][0].Get<std::vector<Tensor>>();
  if (tensors.size() != 1) return absl::InternalError("not one tensor");
  return Result{tensors[0], (*out)["m"][0].Get<std::array<float, 16>>(),
                (*out)["p"][0].Get<std::array<float, 4>>()};
}

const float* At(const Tensor& t, int x, int y) {
  const int w = t.shape().dims[2], c = t.shape().dims[3];
  return t.data<float>() + (y * w + x) * c;
}

TEST(ImageToTensorCalculatorTest, WholeImageSameSizeIsACopyInRange) {
  auto r =
      Convert("output_tensor_float_range { min: 0 max: 255 }", Gradient(16, 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tensor.shape(), (Tensor::Shape{1, 8, 16, 3}));
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 16; ++x) {
      EXPECT_FLOAT_EQ(At(r->tensor, x, y)[0], x);
      EXPECT_FLOAT_EQ(At(r->tensor, x, y)[1], y);
      EXPECT_FLOAT_EQ(At(r->tensor, x, y)[2], 7);
    }
  }
  // Identity matrix on normalized coordinates, no padding.
  EXPECT_FLOAT_EQ(r->matrix[0], 1);
  EXPECT_FLOAT_EQ(r->matrix[5], 1);
  EXPECT_FLOAT_EQ(r->matrix[3], 0);
  EXPECT_THAT(r->padding, ::testing::ElementsAre(0, 0, 0, 0));
}

TEST(ImageToTensorCalculatorTest, FloatRangeMapsZeroAndFullScale) {
  ImageFrame f(ImageFormat::GRAY8, 2, 1);
  f.MutableRow(0)[0] = 0;
  f.MutableRow(0)[1] = 255;
  auto r =
      Convert("output_tensor_float_range { min: -1 max: 1 }", std::move(f));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tensor.shape(), (Tensor::Shape{1, 1, 2, 1}));
  EXPECT_FLOAT_EQ(r->tensor.data<float>()[0], -1.0f);
  EXPECT_FLOAT_EQ(r->tensor.data<float>()[1], 1.0f);
}

TEST(ImageToTensorCalculatorTest, KeepAspectRatioLetterboxesWithZeroBorder) {
  // A 2:1 image into a square tensor: a quarter of padding above and below.
  auto r = Convert(
      "output_tensor_width: 16 output_tensor_height: 16 keep_aspect_ratio: "
      "true "
      "output_tensor_float_range { min: -1 max: 1 } border_mode: BORDER_ZERO",
      Gradient(32, 16));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->padding, ::testing::ElementsAre(0, 0.25f, 0, 0.25f));
  // Padding rows are the range's min (zero pixels); the middle is image.
  EXPECT_FLOAT_EQ(At(r->tensor, 8, 0)[2], -1.0f);
  EXPECT_FLOAT_EQ(At(r->tensor, 8, 15)[2], -1.0f);
  EXPECT_NEAR(At(r->tensor, 8, 8)[2], 7 / 127.5f - 1, 1e-5);
  // The matrix maps the tensor's padded square onto the image: the top-left
  // of the image content (0, 0.25) maps to (0, 0), the centre to the centre.
  auto map = [&](float u, float v) {
    return std::array<float, 2>{
        r->matrix[0] * u + r->matrix[1] * v + r->matrix[3],
        r->matrix[4] * u + r->matrix[5] * v + r->matrix[7]};
  };
  EXPECT_NEAR(map(0, 0.25f)[0], 0, 1e-6);
  EXPECT_NEAR(map(0, 0.25f)[1], 0, 1e-6);
  EXPECT_NEAR(map(0.5f, 0.5f)[0], 0.5f, 1e-6);
  EXPECT_NEAR(map(0.5f, 0.5f)[1], 0.5f, 1e-6);
  EXPECT_NEAR(map(1, 0.75f)[1], 1, 1e-6);
}

TEST(ImageToTensorCalculatorTest, ReplicateBorderRepeatsEdgePixels) {
  auto r = Convert(
      "output_tensor_width: 16 output_tensor_height: 16 keep_aspect_ratio: "
      "true "
      "output_tensor_float_range { min: 0 max: 255 } border_mode: "
      "BORDER_REPLICATE",
      Gradient(32, 16));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FLOAT_EQ(At(r->tensor, 8, 0)[2], 7.0f);  // not zero
  EXPECT_FLOAT_EQ(At(r->tensor, 8, 0)[1], 0.0f);  // the top row's y
}

TEST(ImageToTensorCalculatorTest, NormRectCropsTheRegion) {
  // The right half of a 16x8 image, at its own size.
  NormalizedRect rect;
  rect.set_x_center(0.75f);
  rect.set_y_center(0.5f);
  rect.set_width(0.5f);
  rect.set_height(1.0f);
  auto r = Convert(
      "output_tensor_width: 8 output_tensor_height: 8 "
      "output_tensor_float_range { min: 0 max: 255 }",
      Gradient(16, 8), &rect);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int x = 0; x < 8; ++x) EXPECT_FLOAT_EQ(At(r->tensor, x, 3)[0], 8 + x);
  EXPECT_FLOAT_EQ(At(r->tensor, 0, 5)[1], 5);
}

TEST(ImageToTensorCalculatorTest, RotationTurnsTheRegionAndTheMatrixAgrees) {
  // A quarter turn of the whole (square) image.
  NormalizedRect rect;
  rect.set_x_center(0.5f);
  rect.set_y_center(0.5f);
  rect.set_width(1.0f);
  rect.set_height(1.0f);
  rect.set_rotation(static_cast<float>(M_PI / 2));
  auto r = Convert("output_tensor_float_range { min: 0 max: 255 }",
                   Gradient(9, 9), &rect);
  ASSERT_TRUE(r.ok()) << r.status();
  // Every tensor pixel holds the image pixel the matrix says it comes from.
  for (int y = 0; y < 9; ++y) {
    for (int x = 0; x < 9; ++x) {
      const float u = x / 9.0f, v = y / 9.0f;
      const float ix = (r->matrix[0] * u + r->matrix[1] * v + r->matrix[3]) * 9;
      const float iy = (r->matrix[4] * u + r->matrix[5] * v + r->matrix[7]) * 9;
      const float* px = At(r->tensor, x, y);
      if (ix < 0 || iy < 0 || ix > 8 || iy > 8) continue;
      EXPECT_NEAR(px[0], ix, 1e-3) << x << "," << y;
      EXPECT_NEAR(px[1], iy, 1e-3) << x << "," << y;
    }
  }
  // And it is a turn: the tensor's top-left corner comes from an image
  // corner other than the top-left.
  EXPECT_GT(std::abs(r->matrix[3]) + std::abs(r->matrix[7]), 0.5f);
  EXPECT_NEAR(r->matrix[0], 0.0f, 1e-6);
}

TEST(ImageToTensorCalculatorTest, SrgbaDropsAlphaAndUintRangeGivesBytes) {
  ImageFrame f(ImageFormat::SRGBA, 1, 1);
  uint8_t* p = f.MutableRow(0);
  p[0] = 10, p[1] = 20, p[2] = 30, p[3] = 40;
  auto r =
      Convert("output_tensor_uint_range { min: 0 max: 255 }", std::move(f));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tensor.element_type(), Tensor::ElementType::kUInt8);
  EXPECT_EQ(r->tensor.shape(), (Tensor::Shape{1, 1, 1, 3}));
  EXPECT_THAT(std::vector<int>(r->tensor.data<uint8_t>(),
                               r->tensor.data<uint8_t>() + 3),
              ::testing::ElementsAre(10, 20, 30));
}

// 8-bit images take the fused warp (affine_warp.h), on several threads for
// large tensors: the tensor must be bit-identical to OpenCV's warpAffine then
// convertTo, the calculator's former path, rebuilt here from the MATRIX
// output the way the calculator derives its warp from it.
TEST(ImageToTensorCalculatorTest, EightBitImagesMatchWarpAffineThenConvertTo) {
  cv::RNG rng(18);
  const ImageFormat::Format formats[] = {ImageFormat::SRGB, ImageFormat::SRGBA,
                                         ImageFormat::GRAY8};
  struct Out {
    int w, h;
    std::string range;
    int depth;
    double min, max;
  };
  const Out outs[] = {
      {192, 160, "output_tensor_float_range { min: 0 max: 1 }", CV_32F, 0, 1},
      {128, 128, "output_tensor_float_range { min: -1 max: 1 }", CV_32F, -1, 1},
      {24, 20, "output_tensor_float_range { min: -1 max: 1 }", CV_32F, -1, 1},
      {112, 100, "output_tensor_uint_range { min: 0 max: 255 }", CV_8U, 0, 255},
      {100, 100, "output_tensor_int_range { min: -128 max: 127 }", CV_8S, -128,
       127},
  };
  int cases = 0;
  for (ImageFormat::Format format : formats) {
    for (const Out& o : outs) {
      for (int border = 0; border < 2; ++border) {
        ImageFrame f(format, 203, 151);
        cv::Mat view = formats::MatView(&f);
        rng.fill(view, cv::RNG::UNIFORM, 0, 256);
        cv::Mat src = view.clone();
        // A rotated region that leaves the image on two sides.
        NormalizedRect rect;
        rect.set_x_center(0.7f);
        rect.set_y_center(0.4f);
        rect.set_width(0.8f);
        rect.set_height(1.1f);
        rect.set_rotation(0.6f);
        const std::string options =
            "output_tensor_width: " + std::to_string(o.w) +
            " output_tensor_height: " + std::to_string(o.h) +
            " keep_aspect_ratio: true " + o.range +
            (border ? " border_mode: BORDER_ZERO"
                    : " border_mode: BORDER_REPLICATE");
        auto r = Convert(options, std::move(f), &rect);
        ASSERT_TRUE(r.ok()) << r.status();
        const std::array<float, 16>& m = r->matrix;
        const int iw = 203, ih = 151;
        cv::Matx23d warp(m[0] * iw / o.w, m[1] * iw / o.h, m[3] * iw,
                         m[4] * ih / o.w, m[5] * ih / o.h, m[7] * ih);
        cv::Mat warped, want;
        cv::warpAffine(src, warped, warp, cv::Size(o.w, o.h),
                       cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                       border ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE,
                       cv::Scalar::all(0));
        if (format == ImageFormat::SRGBA)
          cv::cvtColor(warped, warped, cv::COLOR_RGBA2RGB);
        warped.convertTo(want, CV_MAKETYPE(o.depth, warped.channels()),
                         (o.max - o.min) / 255.0, o.min);
        ASSERT_EQ(r->tensor.bytes(), want.total() * want.elemSize()) << options;
        EXPECT_EQ(
            std::memcmp(r->tensor.raw_data(), want.data, r->tensor.bytes()), 0)
            << ImageFrame::FormatName(format) << " " << options;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 30);
}

TEST(ImageToTensorCalculatorTest, OptionErrors) {
  auto r = Convert("output_tensor_width: 8", Gradient(4, 4));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("output_tensor_height"));
  r = Convert("", Gradient(4, 4));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("output_tensor_float_range"));
}

}  // namespace
}  // namespace rill
