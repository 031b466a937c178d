#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

std::string Graph(const std::string& options) {
  return R"pb(
    input_stream: "from"
    input_stream: "to"
    node {
      calculator: "VisibilityCopyCalculator"
      input_stream: "NORM_LANDMARKS_FROM:from"
      input_stream: "LANDMARKS_TO:to"
      output_stream: "LANDMARKS_TO:out"
      options { [mediapipe.VisibilityCopyCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

StreamPackets Inputs() {
  NormalizedLandmarkList from;
  for (float v : {0.9f, 0.2f}) {
    NormalizedLandmark* l = from.add_landmark();
    l->set_x(0.5f);
    l->set_visibility(v);
    l->set_presence(v - 0.1f);
  }
  LandmarkList to;
  for (float x : {1.f, 2.f}) {
    Landmark* l = to.add_landmark();
    l->set_x(x);
    l->set_y(-x);
    l->set_z(3 * x);
    l->set_visibility(0.5f);
    l->set_presence(0.5f);
  }
  return {{"from", {MakePacket<NormalizedLandmarkList>(from).At(Timestamp(1))}},
          {"to",
           {MakePacket<LandmarkList>(to).At(Timestamp(1)),
            MakePacket<LandmarkList>(to).At(Timestamp(2))}}};
}

TEST(VisibilityCopyCalculatorTest, CopiesVisibilityAndPresence) {
  auto out = RunGraph(Graph(""), {"out"}, Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  // Nothing at 2, where there is nothing to copy from.
  ASSERT_EQ((*out)["out"].size(), 1u);
  const LandmarkList& got = (*out)["out"][0].Get<LandmarkList>();
  ASSERT_EQ(got.landmark_size(), 2);
  EXPECT_FLOAT_EQ(got.landmark(1).x(), 2.f);  // coordinates of TO
  EXPECT_FLOAT_EQ(got.landmark(1).y(), -2.f);
  EXPECT_FLOAT_EQ(got.landmark(1).z(), 6.f);
  EXPECT_FLOAT_EQ(got.landmark(0).visibility(), 0.9f);  // of FROM
  EXPECT_FLOAT_EQ(got.landmark(1).visibility(), 0.2f);
  EXPECT_FLOAT_EQ(got.landmark(0).presence(), 0.8f);
  EXPECT_FLOAT_EQ(got.landmark(1).presence(), 0.1f);
}

TEST(VisibilityCopyCalculatorTest, CopyPresenceOff) {
  auto out = RunGraph(Graph("copy_presence: false"), {"out"}, Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  const LandmarkList& got = (*out)["out"][0].Get<LandmarkList>();
  EXPECT_FLOAT_EQ(got.landmark(0).visibility(), 0.9f);
  EXPECT_FLOAT_EQ(got.landmark(0).presence(), 0.5f);
}

TEST(VisibilityCopyCalculatorTest, OutputTagMustMatchTheToInput) {
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "VisibilityCopyCalculator"
                input_stream: "NORM_LANDMARKS_FROM:from"
                input_stream: "LANDMARKS_TO:to"
                output_stream: "NORM_LANDMARKS_TO:out")pb")
                  .message(),
              HasSubstr("LANDMARKS_TO"));
}

}  // namespace
}  // namespace rill
