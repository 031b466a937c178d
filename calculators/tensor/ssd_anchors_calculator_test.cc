#include "calculators/tensor/ssd_anchors_calculator.h"

#include <cmath>
#include <vector>

#include "calculators/core/test_util.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

SsdAnchorsCalculatorOptions FaceShortRange() {
  SsdAnchorsCalculatorOptions o;
  o.set_num_layers(4);
  o.set_min_scale(0.1484375f);
  o.set_max_scale(0.75f);
  o.set_input_size_width(128);
  o.set_input_size_height(128);
  o.add_aspect_ratios(1.0f);
  o.set_fixed_anchor_size(true);
  for (int s : {8, 16, 16, 16}) o.add_strides(s);
  o.set_interpolated_scale_aspect_ratio(1.0f);
  return o;
}

TEST(SsdAnchorsCalculatorTest, FaceShortRangeLayout) {
  auto anchors = GenerateSsdAnchors(FaceShortRange());
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  // 16x16 cells x 2 anchors, then 8x8 cells x 6 (three layers share stride 16).
  ASSERT_EQ(anchors->size(), 896u);
  EXPECT_FLOAT_EQ((*anchors)[0].x_center(), 0.5f / 16);
  EXPECT_FLOAT_EQ((*anchors)[0].y_center(), 0.5f / 16);
  EXPECT_FLOAT_EQ((*anchors)[1].x_center(),
                  0.5f / 16);  // second anchor, same cell
  EXPECT_FLOAT_EQ((*anchors)[2].x_center(), 1.5f / 16);
  EXPECT_FLOAT_EQ((*anchors)[0].w(), 1.0f);
  EXPECT_FLOAT_EQ((*anchors)[0].h(), 1.0f);
  EXPECT_FLOAT_EQ((*anchors)[512].x_center(), 0.5f / 8);
  EXPECT_FLOAT_EQ((*anchors)[517].x_center(), 0.5f / 8);
  EXPECT_FLOAT_EQ((*anchors)[518].x_center(), 1.5f / 8);
  EXPECT_FLOAT_EQ((*anchors)[895].y_center(), 7.5f / 8);
}

TEST(SsdAnchorsCalculatorTest, FaceFullRangeLayout) {
  SsdAnchorsCalculatorOptions o = FaceShortRange();
  o.set_num_layers(1);
  o.clear_strides();
  o.add_strides(4);
  o.set_input_size_width(192);
  o.set_input_size_height(192);
  o.set_interpolated_scale_aspect_ratio(0.0f);
  auto anchors = GenerateSsdAnchors(o);
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ASSERT_EQ(anchors->size(), 2304u);  // 48x48, one anchor each
  EXPECT_FLOAT_EQ((*anchors)[49].x_center(), 1.5f / 48);
  EXPECT_FLOAT_EQ((*anchors)[49].y_center(), 1.5f / 48);
}

TEST(SsdAnchorsCalculatorTest, SizedAnchorsFollowScaleAndAspectRatio) {
  SsdAnchorsCalculatorOptions o;
  o.set_num_layers(2);
  o.set_min_scale(0.2f);
  o.set_max_scale(0.6f);
  o.add_feature_map_width(2);
  o.add_feature_map_height(2);
  o.add_feature_map_width(1);
  o.add_feature_map_height(1);
  o.add_aspect_ratios(1.0f);
  o.add_aspect_ratios(4.0f);
  o.set_interpolated_scale_aspect_ratio(0.0f);
  auto anchors = GenerateSsdAnchors(o);
  ASSERT_TRUE(anchors.ok()) << anchors.status();
  ASSERT_EQ(anchors->size(), 2u * 4 + 2u * 1);
  // Layer 0 scale 0.2: ratio 1 -> 0.2 x 0.2, ratio 4 -> w 0.4, h 0.1.
  EXPECT_FLOAT_EQ((*anchors)[0].w(), 0.2f);
  EXPECT_FLOAT_EQ((*anchors)[1].w(), 0.4f);
  EXPECT_FLOAT_EQ((*anchors)[1].h(), 0.1f);
  // Layer 1 scale 0.6, one cell centred.
  EXPECT_FLOAT_EQ((*anchors)[8].w(), 0.6f);
  EXPECT_FLOAT_EQ((*anchors)[8].x_center(), 0.5f);
}

TEST(SsdAnchorsCalculatorTest, MissingStridesIsAnError) {
  SsdAnchorsCalculatorOptions o = FaceShortRange();
  o.clear_strides();
  o.add_strides(8);
  auto anchors = GenerateSsdAnchors(o);
  ASSERT_FALSE(anchors.ok());
  EXPECT_NE(anchors.status().message().find("strides"),
            absl::string_view::npos);
}

// In a graph: the side packet feeds TensorsToDetectionsCalculator; checked
// there (tensors_to_detections_calculator_test) and end to end in
// tests/solutions. Here: the node opens and the contract holds.
TEST(SsdAnchorsCalculatorTest, ContractIsOneSidePacket) {
  EXPECT_TRUE(CheckContract(R"pb(
                calculator: "SsdAnchorsCalculator"
                output_side_packet: "anchors"
              )pb")
                  .ok());
}

}  // namespace
}  // namespace rill
