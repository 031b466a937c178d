#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NormalizedLandmarkList One(float x, float visibility) {
  NormalizedLandmarkList list;
  NormalizedLandmark* l = list.add_landmark();
  l->set_x(x);
  l->set_visibility(visibility);
  return list;
}

TEST(LandmarkVisibilityCalculatorTest, ExtractsTheVisibility) {
  auto out = RunGraph(R"pb(
                        input_stream: "lm"
                        node {
                          calculator: "LandmarkVisibilityCalculator"
                          input_stream: "NORM_LANDMARKS:lm"
                          output_stream: "VISIBILITY:v"
                        })pb",
                      {"v"},
                      {{"lm", {MakePacket<NormalizedLandmarkList>(One(0.1f, 0.7f))
                                   .At(Timestamp(3))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<float>((*out)["v"]), ElementsAre(0.7f));
  EXPECT_THAT(PacketTimestamps((*out)["v"]), ElementsAre(3));
}

TEST(LandmarkVisibilityCalculatorTest, MoreThanOneLandmarkIsAnError) {
  NormalizedLandmarkList two = One(0, 0);
  two.add_landmark();
  auto out = RunGraph(R"pb(
                        input_stream: "lm"
                        node {
                          calculator: "LandmarkVisibilityCalculator"
                          input_stream: "NORM_LANDMARKS:lm"
                          output_stream: "VISIBILITY:v"
                        })pb",
                      {"v"},
                      {{"lm", {MakePacket<NormalizedLandmarkList>(two).At(
                                  Timestamp(1))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("holds 2 landmarks"));
}

TEST(SetLandmarkVisibilityCalculatorTest, SetsTheVisibility) {
  auto out = RunGraph(
      R"pb(
        input_stream: "lm"
        input_stream: "v"
        node {
          calculator: "SetLandmarkVisibilityCalculator"
          input_stream: "NORM_LANDMARKS:lm"
          input_stream: "VISIBILITY:v"
          output_stream: "NORM_LANDMARKS:out"
        })pb",
      {"out"},
      {{"lm",
        {MakePacket<NormalizedLandmarkList>(One(0.4f, 0.9f)).At(Timestamp(1)),
         MakePacket<NormalizedLandmarkList>(One(0.5f, 0.9f)).At(Timestamp(2))}},
       {"v", MakePackets<float>({0.25f}, {1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  // Nothing at 2: no visibility there.
  ASSERT_EQ((*out)["out"].size(), 1u);
  const auto& l = (*out)["out"][0].Get<NormalizedLandmarkList>().landmark(0);
  EXPECT_FLOAT_EQ(l.visibility(), 0.25f);
  EXPECT_FLOAT_EQ(l.x(), 0.4f);
}

}  // namespace
}  // namespace rill
