#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

Image Mask(std::vector<float> values) {
  auto frame = std::make_shared<ImageFrame>(
      ImageFormat::VEC32F1, static_cast<int>(values.size()), 1);
  float* row = reinterpret_cast<float*>(frame->MutableRow(0));
  for (size_t i = 0; i < values.size(); ++i) row[i] = values[i];
  return Image(frame);
}

std::vector<float> Values(const Image& image) {
  const ImageFrame& f = *image.GetImageFrameSharedPtr();
  const float* row = reinterpret_cast<const float*>(f.Row(0));
  return std::vector<float>(row, row + f.Width());
}

std::string Graph(float ratio) {
  return R"pb(
    input_stream: "mask"
    input_stream: "prev"
    node {
      calculator: "SegmentationSmoothingCalculator"
      input_stream: "MASK:mask"
      input_stream: "MASK_PREVIOUS:prev"
      output_stream: "MASK_SMOOTHED:out"
      options { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] {
        combine_with_previous_ratio: )pb" +
         std::to_string(ratio) + "}}}";
}

// The documented uncertainty polynomial, evaluated in double.
double Uncertainty(double p) {
  const double x = (p - 0.5) * (p - 0.5);
  const double poly =
      x * (5.68842 + x * (-0.748699 + x * (-57.8051 +
                                           x * (291.309 + x * -624.717))));
  return 1.0 - std::min(1.0, poly);
}

TEST(SegmentationSmoothingCalculatorTest, BlendsWhereTheNewMaskIsUncertain) {
  auto out = RunGraph(Graph(0.5f), {"out"},
                      {{"mask", {MakePacket<Image>(Mask({0.5f, 0.f, 0.9f}))
                                     .At(Timestamp(1))}},
                       {"prev", {MakePacket<Image>(Mask({1.f, 1.f, 0.f}))
                                     .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  const std::vector<float> v = Values((*out)["out"][0].Get<Image>());
  ASSERT_EQ(v.size(), 3u);
  // 0.5 is fully uncertain: 0.5 + (1 - 0.5) * 1 * 0.5.
  EXPECT_FLOAT_EQ(v[0], 0.75f);
  // 0 is certain (the polynomial gives 0.99996 there): barely moves.
  EXPECT_NEAR(v[1], 0.5 * Uncertainty(0.0), 1e-6);
  EXPECT_LT(v[1], 1e-4);
  // 0.9: x = 0.16.
  EXPECT_NEAR(v[2], 0.9 + (0.0 - 0.9) * Uncertainty(0.9) * 0.5, 1e-6);
}

// Rows are blended four pixels at a time: every pixel, those of the
// 4-wide body and of the tail, equals the formula in float, exactly.
TEST(SegmentationSmoothingCalculatorTest, EveryPixelIsTheFloatFormula) {
  std::vector<float> mask, prev;
  for (int i = 0; i < 203; ++i) {
    mask.push_back(-0.1f + 1.2f * static_cast<float>((i * 37) % 203) / 202.0f);
    prev.push_back(static_cast<float>((i * 91) % 203) / 202.0f);
  }
  mask[5] = 0.5f;
  mask[6] = 0.0f;
  mask[7] = 1.0f;
  const float ratio = 0.7f;
  auto out =
      RunGraph(Graph(ratio), {"out"},
               {{"mask", {MakePacket<Image>(Mask(mask)).At(Timestamp(1))}},
                {"prev", {MakePacket<Image>(Mask(prev)).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  const std::vector<float> v = Values((*out)["out"][0].Get<Image>());
  ASSERT_EQ(v.size(), mask.size());
  const float r = std::stof(std::to_string(ratio));  // as the graph text
  for (size_t i = 0; i < v.size(); ++i) {
    const float c = mask[i], t = c - 0.5f, x = t * t;
    const float poly =
        x * (5.68842f + x * (-0.748699f +
                             x * (-57.8051f + x * (291.309f + x * -624.717f))));
    const float u = 1.0f - std::min(1.0f, poly);
    EXPECT_EQ(v[i], c + (prev[i] - c) * (u * r)) << "pixel " << i;
  }
  EXPECT_FLOAT_EQ(v[5], 0.5f + (prev[5] - 0.5f) * 0.7f);  // fully uncertain
}

TEST(SegmentationSmoothingCalculatorTest, WithoutPreviousMaskPassesTheMask) {
  auto out = RunGraph(Graph(0.9f), {"out"},
                      {{"mask", {MakePacket<Image>(Mask({0.5f, 0.25f}))
                                     .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  EXPECT_THAT(Values((*out)["out"][0].Get<Image>()),
              testing::ElementsAre(0.5f, 0.25f));
}

TEST(SegmentationSmoothingCalculatorTest, ZeroRatioKeepsTheNewMask) {
  auto out = RunGraph(Graph(0.f), {"out"},
                      {{"mask", {MakePacket<Image>(Mask({0.5f, 0.25f}))
                                     .At(Timestamp(1))}},
                       {"prev", {MakePacket<Image>(Mask({1.f, 1.f}))
                                     .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values((*out)["out"][0].Get<Image>()),
              testing::ElementsAre(0.5f, 0.25f));
}

TEST(SegmentationSmoothingCalculatorTest, SizeMismatchIsAnError) {
  auto out = RunGraph(Graph(0.5f), {"out"},
                      {{"mask", {MakePacket<Image>(Mask({0.5f, 0.25f}))
                                     .At(Timestamp(1))}},
                       {"prev", {MakePacket<Image>(Mask({1.f}))
                                     .At(Timestamp(1))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("MASK_PREVIOUS"));
}

}  // namespace
}  // namespace rill
