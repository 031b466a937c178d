#include <array>
#include <cmath>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

NormalizedLandmarkList Points(std::vector<std::array<float, 3>> pts) {
  NormalizedLandmarkList l;
  for (auto p : pts) {
    auto* lm = l.add_landmark();
    lm->set_x(p[0]);
    lm->set_y(p[1]);
    lm->set_z(p[2]);
  }
  return l;
}

TEST(LandmarkLetterboxRemovalCalculatorTest, MapsPaddedToUnpadded) {
  const std::array<float, 4> pad = {0.25f, 0.0f, 0.25f, 0.0f};
  auto out = RunGraph(
      R"pb(
        input_stream: "in"
        input_stream: "pad"
        output_stream: "out"
        node {
          calculator: "LandmarkLetterboxRemovalCalculator"
          input_stream: "LANDMARKS:in"
          input_stream: "LETTERBOX_PADDING:pad"
          output_stream: "LANDMARKS:out"
        })pb",
      {"out"},
      {{"in",
        {MakePacket<NormalizedLandmarkList>(
             Points({{0.25f, 0.5f, 0.1f}, {0.5f, 0.2f, 0}}))
             .At(Timestamp(0))}},
       {"pad", {MakePacket<std::array<float, 4>>(pad).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& l = (*out)["out"].at(0).Get<NormalizedLandmarkList>();
  EXPECT_NEAR(l.landmark(0).x(), 0.0f, 1e-6);
  EXPECT_NEAR(l.landmark(0).y(), 0.5f, 1e-6);
  EXPECT_NEAR(l.landmark(0).z(), 0.2f, 1e-6);
  EXPECT_NEAR(l.landmark(1).x(), 0.5f, 1e-6);
}

TEST(LandmarkProjectionCalculatorTest, RotatedRegionToImage) {
  NormalizedRect r;
  r.set_x_center(0.5f);
  r.set_y_center(0.4f);
  r.set_width(0.2f);
  r.set_height(0.4f);
  r.set_rotation(static_cast<float>(M_PI / 2));
  auto out =
      RunGraph(R"pb(
                 input_stream: "in"
                 input_stream: "rect"
                 output_stream: "out"
                 node {
                   calculator: "LandmarkProjectionCalculator"
                   input_stream: "NORM_LANDMARKS:in"
                   input_stream: "NORM_RECT:rect"
                   output_stream: "NORM_LANDMARKS:out"
                 })pb",
               {"out"},
               {{"in",
                 {MakePacket<NormalizedLandmarkList>(
                      Points({{0.5f, 0.5f, 0.5f}, {1.0f, 0.5f, 0}}))
                      .At(Timestamp(0))}},
                {"rect", {MakePacket<NormalizedRect>(r).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& l = (*out)["out"].at(0).Get<NormalizedLandmarkList>();
  // The centre maps to the rect's centre, z scaled by its width.
  EXPECT_NEAR(l.landmark(0).x(), 0.5f, 1e-6);
  EXPECT_NEAR(l.landmark(0).y(), 0.4f, 1e-6);
  EXPECT_NEAR(l.landmark(0).z(), 0.1f, 1e-6);
  // The region's right edge, turned by 90 degrees, is below the centre.
  EXPECT_NEAR(l.landmark(1).x(), 0.5f, 1e-6);
  EXPECT_NEAR(l.landmark(1).y(), 0.4f + 0.5f * 0.4f, 1e-6);
}

TEST(WorldLandmarkProjectionCalculatorTest, UndoesTheRegionRotation) {
  LandmarkList l;
  auto* lm = l.add_landmark();
  lm->set_x(0.1f);
  lm->set_y(0.0f);
  lm->set_z(0.3f);
  NormalizedRect r;
  r.set_x_center(0.5f);
  r.set_y_center(0.5f);
  r.set_width(1);
  r.set_height(1);
  r.set_rotation(static_cast<float>(M_PI / 2));
  auto out =
      RunGraph(R"pb(
                 input_stream: "in"
                 input_stream: "rect"
                 output_stream: "out"
                 node {
                   calculator: "WorldLandmarkProjectionCalculator"
                   input_stream: "LANDMARKS:in"
                   input_stream: "NORM_RECT:rect"
                   output_stream: "LANDMARKS:out"
                 })pb",
               {"out"},
               {{"in", {MakePacket<LandmarkList>(l).At(Timestamp(0))}},
                {"rect", {MakePacket<NormalizedRect>(r).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& p = (*out)["out"].at(0).Get<LandmarkList>().landmark(0);
  EXPECT_NEAR(p.x(), 0.0f, 1e-6);
  EXPECT_NEAR(p.y(), 0.1f, 1e-6);
  EXPECT_FLOAT_EQ(p.z(), 0.3f);
}

}  // namespace
}  // namespace rill
