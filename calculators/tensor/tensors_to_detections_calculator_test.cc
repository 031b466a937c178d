#include <cmath>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "calculators/tensor/anchor.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

Tensor Floats(std::vector<int> shape, std::vector<float> v) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape(shape));
  std::copy(v.begin(), v.end(), t.mutable_data<float>());
  return t;
}

std::vector<Anchor> TwoAnchors() {
  std::vector<Anchor> a(2);
  a[0].set_x_center(0.25f);
  a[0].set_y_center(0.25f);
  a[0].set_w(1.0f);
  a[0].set_h(1.0f);
  a[1].set_x_center(0.75f);
  a[1].set_y_center(0.5f);
  a[1].set_w(0.5f);
  a[1].set_h(0.5f);
  return a;
}

absl::StatusOr<std::vector<Detection>> Decode(const std::string& options,
                                              std::vector<Tensor> t) {
  auto out = RunGraph(
      std::string(R"pb(
        input_stream: "t"
        input_side_packet: "anchors"
        output_stream: "d"
        node { calculator: "TensorsToDetectionsCalculator"
               input_stream: "TENSORS:t"
               input_side_packet: "ANCHORS:anchors"
               output_stream: "DETECTIONS:d"
               options {
                 [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
                   num_classes: 1
                   num_boxes: 2)pb") +
          " " + options + "}}}",
      {"d"},
      {{"t", {MakePacket<std::vector<Tensor>>(std::move(t)).At(Timestamp(0))}}},
      {{"anchors", MakePacket<std::vector<Anchor>>(TwoAnchors())}});
  if (!out.ok()) return out.status();
  if ((*out)["d"].size() != 1)
    return absl::InternalError("expected one packet");
  return (*out)["d"][0].Get<std::vector<Detection>>();
}

// Box values per anchor: xc, yc, w, h, then one keypoint (x, y), in pixels
// of a 100-pixel input.
std::vector<Tensor> Raw(float score0, float score1) {
  std::vector<Tensor> t;
  t.push_back(Floats({1, 2, 6}, {10, -5, 20, 40, 0, 10,  //
                                 -10, 0, 100, 50, 5, 5}));
  t.push_back(Floats({1, 2, 1}, {score0, score1}));
  return t;
}

const char kXywh[] =
    "num_coords: 6 keypoint_coord_offset: 4 num_keypoints: 1 "
    "reverse_output_order: true "
    "x_scale: 100 y_scale: 100 w_scale: 100 h_scale: 100 ";

TEST(TensorsToDetectionsCalculatorTest,
     DecodesBoxesAndKeypointsAgainstAnchors) {
  auto d =
      Decode(std::string(kXywh) + "min_score_thresh: 0.5", Raw(0.9f, 0.8f));
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->size(), 2u);
  // Anchor 0 (0.25, 0.25, 1x1): centre (0.35, 0.2), size 0.2 x 0.4.
  const auto& b0 = (*d)[0].location_data().relative_bounding_box();
  EXPECT_EQ((*d)[0].location_data().format(),
            LocationData::RELATIVE_BOUNDING_BOX);
  EXPECT_NEAR(b0.xmin(), 0.25f, 1e-6);
  EXPECT_NEAR(b0.ymin(), 0.0f, 1e-6);
  EXPECT_NEAR(b0.width(), 0.2f, 1e-6);
  EXPECT_NEAR(b0.height(), 0.4f, 1e-6);
  EXPECT_NEAR((*d)[0].location_data().relative_keypoints(0).x(), 0.25f, 1e-6);
  EXPECT_NEAR((*d)[0].location_data().relative_keypoints(0).y(), 0.35f, 1e-6);
  EXPECT_FLOAT_EQ((*d)[0].score(0), 0.9f);
  // Anchor 1 (0.75, 0.5, 0.5x0.5): values scale by the anchor's size.
  const auto& b1 = (*d)[1].location_data().relative_bounding_box();
  EXPECT_NEAR(b1.xmin(), 0.7f - 0.25f, 1e-6);
  EXPECT_NEAR(b1.width(), 0.5f, 1e-6);
  EXPECT_NEAR(b1.height(), 0.25f, 1e-6);
}

TEST(TensorsToDetectionsCalculatorTest, SigmoidClippingThresholdAndMaxResults) {
  // Logits: 2.0 -> 0.881, -1.0 -> 0.269; 500 clipped to 100.
  auto d = Decode(std::string(kXywh) +
                      "sigmoid_score: true score_clipping_thresh: 100 "
                      "min_score_thresh: 0.5",
                  Raw(2.0f, -1.0f));
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->size(), 1u);
  EXPECT_NEAR((*d)[0].score(0), 1.0f / (1.0f + std::exp(-2.0f)), 1e-6);
  d = Decode(
      std::string(kXywh) +
          "sigmoid_score: true score_clipping_thresh: 100 max_results: 1",
      Raw(500.0f, 500.0f));
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->size(), 1u);
  EXPECT_NEAR((*d)[0].score(0), 1.0f, 1e-6);
}

TEST(TensorsToDetectionsCalculatorTest, YxhwOrderIsTheDefault) {
  // Same numbers read as yc, xc, h, w.
  auto d = Decode(
      "num_coords: 6 x_scale: 100 y_scale: 100 w_scale: 100 h_scale: 100",
      Raw(0.9f, 0.1f));
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ(d->size(), 2u);  // no threshold
  const auto& b0 = (*d)[0].location_data().relative_bounding_box();
  EXPECT_NEAR(b0.xmin(), 0.2f - 0.2f, 1e-6);   // xc 0.2, w 0.4
  EXPECT_NEAR(b0.ymin(), 0.35f - 0.1f, 1e-6);  // yc 0.35, h 0.2
}

TEST(TensorsToDetectionsCalculatorTest, TensorOfTheWrongSizeIsAClearError) {
  std::vector<Tensor> t;
  t.push_back(Floats({1, 3, 6}, std::vector<float>(18, 0)));
  t.push_back(Floats({1, 2, 1}, {0, 0}));
  auto d = Decode(kXywh, std::move(t));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(
      std::string(d.status().message()),
      ::testing::AllOf(::testing::HasSubstr("box tensor has shape [1,3,6]"),
                       ::testing::HasSubstr("does the model fit the graph")));
}

}  // namespace
}  // namespace rill
