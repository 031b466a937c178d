#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

Detection Box(float score, float xmin, float ymin, float w, float h,
              std::vector<std::pair<float, float>> kps = {}) {
  Detection d;
  d.add_score(score);
  d.add_label_id(0);
  auto* loc = d.mutable_location_data();
  loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
  auto* b = loc->mutable_relative_bounding_box();
  b->set_xmin(xmin);
  b->set_ymin(ymin);
  b->set_width(w);
  b->set_height(h);
  for (auto [x, y] : kps) {
    auto* k = loc->add_relative_keypoints();
    k->set_x(x);
    k->set_y(y);
  }
  return d;
}

absl::StatusOr<std::vector<std::vector<Detection>>> RunNms(
    const std::string& options, const std::vector<Detection>& in) {
  auto out = RunGraph(
      R"pb(
            input_stream: "in"
            output_stream: "out"
            node { calculator: "NonMaxSuppressionCalculator" input_stream: "in"
                   output_stream: "out"
                   options {
                     [mediapipe.NonMaxSuppressionCalculatorOptions.ext] {)pb" +
          options + "}}}",
      {"out"},
      {{"in", {MakePacket<std::vector<Detection>>(in).At(Timestamp(1))}}});
  if (!out.ok()) return out.status();
  return PacketValues<std::vector<Detection>>((*out)["out"]);
}

// Two boxes on one object (IoU 0.6) and one elsewhere.
std::vector<Detection> Overlapping() {
  return {Box(0.6f, 0.10f, 0.10f, 0.20f, 0.20f, {{0.15f, 0.15f}}),
          Box(0.9f, 0.12f, 0.12f, 0.20f, 0.20f, {{0.17f, 0.17f}}),
          Box(0.7f, 0.60f, 0.60f, 0.20f, 0.20f, {{0.70f, 0.70f}})};
}

TEST(NonMaxSuppressionCalculatorTest, DefaultKeepsTheBestOfOverlappingBoxes) {
  auto out = RunNms(
      "min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION",
      Overlapping());
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  const auto& kept = (*out)[0];
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_FLOAT_EQ(kept[0].score(0), 0.9f);  // by descending score
  EXPECT_FLOAT_EQ(kept[0].location_data().relative_bounding_box().xmin(),
                  0.12f);
  EXPECT_FLOAT_EQ(kept[1].score(0), 0.7f);
}

TEST(NonMaxSuppressionCalculatorTest, HighThresholdKeepsEverything) {
  auto out = RunNms("min_suppression_threshold: 0.9 overlap_type: JACCARD",
                    Overlapping());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].size(), 3u);
}

TEST(NonMaxSuppressionCalculatorTest, WeightedAveragesTheCluster) {
  auto out = RunNms(
      "min_suppression_threshold: 0.3 overlap_type: INTERSECTION_OVER_UNION "
      "algorithm: WEIGHTED",
      Overlapping());
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& kept = (*out)[0];
  ASSERT_EQ(kept.size(), 2u);
  // Score of the best, box and keypoints the score-weighted mean:
  // xmin = (0.9*0.12 + 0.6*0.10) / 1.5 = 0.112.
  EXPECT_FLOAT_EQ(kept[0].score(0), 0.9f);
  const auto& b = kept[0].location_data().relative_bounding_box();
  EXPECT_NEAR(b.xmin(), 0.112f, 1e-6);
  EXPECT_NEAR(b.ymin(), 0.112f, 1e-6);
  EXPECT_NEAR(b.width(), 0.20f, 1e-6);
  EXPECT_NEAR(kept[0].location_data().relative_keypoints(0).x(), 0.162f, 1e-6);
  // The lone box is unchanged.
  EXPECT_NEAR(kept[1].location_data().relative_bounding_box().xmin(), 0.60f,
              1e-6);
}

TEST(NonMaxSuppressionCalculatorTest, ModifiedJaccardNormalizesByTheCandidate) {
  // A small box inside a big one: IoU 0.04, but fully covered.
  std::vector<Detection> in = {Box(0.9f, 0.0f, 0.0f, 0.5f, 0.5f),
                               Box(0.8f, 0.1f, 0.1f, 0.1f, 0.1f)};
  auto iou = RunNms("min_suppression_threshold: 0.5 overlap_type: JACCARD", in);
  auto covered = RunNms(
      "min_suppression_threshold: 0.5 overlap_type: MODIFIED_JACCARD", in);
  ASSERT_TRUE(iou.ok() && covered.ok());
  EXPECT_EQ((*iou)[0].size(), 2u);
  EXPECT_EQ((*covered)[0].size(), 1u);
}

TEST(NonMaxSuppressionCalculatorTest, ScoreThresholdAndMaxNumber) {
  auto out = RunNms(
      "min_suppression_threshold: 0.9 overlap_type: JACCARD "
      "max_num_detections: 1",
      Overlapping());
  ASSERT_TRUE(out.ok());
  ASSERT_EQ((*out)[0].size(), 1u);
  EXPECT_FLOAT_EQ((*out)[0][0].score(0), 0.9f);
  out = RunNms(
      "min_suppression_threshold: 0.9 overlap_type: JACCARD "
      "min_score_threshold: 0.65",
      Overlapping());
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].size(), 2u);
}

TEST(NonMaxSuppressionCalculatorTest, EmptyInputGivesNoPacketUnlessAsked) {
  auto none =
      RunNms("min_suppression_threshold: 0.3 overlap_type: JACCARD", {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto empty = RunNms(
      "min_suppression_threshold: 0.3 overlap_type: JACCARD "
      "return_empty_detections: true",
      {});
  ASSERT_TRUE(empty.ok());
  ASSERT_EQ(empty->size(), 1u);
  EXPECT_TRUE((*empty)[0].empty());
}

TEST(NonMaxSuppressionCalculatorTest, StreamCountMustMatchTheOption) {
  absl::Status s = CheckContract(R"pb(
    calculator: "NonMaxSuppressionCalculator"
    input_stream: "a"
    input_stream: "b"
    output_stream: "out"
  )pb");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              ::testing::HasSubstr("num_detection_streams"));
}

}  // namespace
}  // namespace rill
