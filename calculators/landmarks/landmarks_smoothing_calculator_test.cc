#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kFrameUs = 33333;  // 30 fps

LandmarkList Points(std::vector<std::pair<float, float>> xy) {
  LandmarkList list;
  for (const auto& [x, y] : xy) {
    Landmark* l = list.add_landmark();
    l->set_x(x);
    l->set_y(y);
    l->set_z(0.f);
    l->set_visibility(0.75f);
  }
  return list;
}

NormalizedLandmarkList NormPoints(std::vector<std::pair<float, float>> xy) {
  NormalizedLandmarkList list;
  for (const auto& [x, y] : xy) {
    NormalizedLandmark* l = list.add_landmark();
    l->set_x(x);
    l->set_y(y);
    l->set_z(0.f);
  }
  return list;
}

std::string PixelGraph(const std::string& options, bool roi = false) {
  return std::string(R"pb(
           input_stream: "lm"
           input_stream: "roi"
           node {
             calculator: "LandmarksSmoothingCalculator"
             input_stream: "LANDMARKS:lm"
           )pb") +
         (roi ? R"pb(input_stream: "OBJECT_SCALE_ROI:roi")pb" : "") +
         R"pb(
             output_stream: "FILTERED_LANDMARKS:out"
             options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

std::vector<float> Xs(const std::vector<Packet>& packets, int landmark = 0) {
  std::vector<float> xs;
  for (const Packet& p : packets) {
    xs.push_back(p.Get<LandmarkList>().landmark(landmark).x());
  }
  return xs;
}

TEST(LandmarksSmoothingCalculatorTest, VelocityFilterStepWithoutScaling) {
  auto out = RunGraph(
      PixelGraph("velocity_filter { window_size: 5 velocity_scale: 10 "
                 "disable_value_scaling: true }"),
      {"out"},
      {{"lm", {MakePacket<LandmarkList>(Points({{0, 5}})).At(Timestamp(0)),
               MakePacket<LandmarkList>(Points({{1, 5}})).At(Timestamp(kFrameUs)),
               MakePacket<LandmarkList>(Points({{1, 5}}))
                   .At(Timestamp(2 * kFrameUs))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  // velocity 1 / 0.033333 s, then (1 + 0) / 0.066666 s (window).
  const double a1 = 1.0 - 1.0 / (1.0 + 10.0 / 0.033333);
  const double a2 = 1.0 - 1.0 / (1.0 + 10.0 / 0.066666);
  const std::vector<float> xs = Xs((*out)["out"]);
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_FLOAT_EQ(xs[0], 0.f);
  EXPECT_NEAR(xs[1], a1, 1e-6);
  EXPECT_NEAR(xs[2], a2 + (1 - a2) * a1, 1e-6);
  // y never moved; visibility passes through.
  const Landmark& last = (*out)["out"][2].Get<LandmarkList>().landmark(0);
  EXPECT_FLOAT_EQ(last.y(), 5.f);
  EXPECT_FLOAT_EQ(last.visibility(), 0.75f);
}

TEST(LandmarksSmoothingCalculatorTest, ObjectScaleRoiScalesTheVelocity) {
  Rect roi;
  roi.set_width(4);
  roi.set_height(2);  // object scale 3, value scale 1/3
  Rect tiny;          // scale 0: below min_allowed_object_scale
  auto out = RunGraph(
      PixelGraph("velocity_filter {}", /*roi=*/true), {"out"},
      {{"lm",
        {MakePacket<LandmarkList>(Points({{0, 0}})).At(Timestamp(0)),
         MakePacket<LandmarkList>(Points({{1, 0}})).At(Timestamp(100000)),
         MakePacket<LandmarkList>(Points({{7, 0}})).At(Timestamp(200000))}},
       {"roi",
        {MakePacket<Rect>(roi).At(Timestamp(0)),
         MakePacket<Rect>(roi).At(Timestamp(100000)),
         MakePacket<Rect>(tiny).At(Timestamp(200000))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  // distance 1/3 over 0.1 s: velocity 10/3, alpha 1 - 1 / (1 + 10 * 10/3).
  const double a = 1.0 - 1.0 / (1.0 + 100.0 / 3.0);
  EXPECT_THAT(Xs((*out)["out"]),
              ElementsAre(0.f, testing::FloatNear(a, 1e-6), 7.f));
}

TEST(LandmarksSmoothingCalculatorTest, NormalizedFilteredInPixelsAndResetAfterGap) {
  // Two landmarks on a 200 x 100 image: A (20, 20) px, B (60, 60) px, object
  // scale ((60 - 20) + (60 - 20)) / 2 = 40. Both move 20 px right.
  const std::string graph = R"pb(
    input_stream: "lm"
    input_stream: "size"
    node {
      calculator: "LandmarksSmoothingCalculator"
      input_stream: "NORM_LANDMARKS:lm"
      input_stream: "IMAGE_SIZE:size"
      output_stream: "NORM_FILTERED_LANDMARKS:out"
      options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
        velocity_filter { window_size: 5 velocity_scale: 10 } } }
    })pb";
  const std::pair<int, int> size{200, 100};
  auto out = RunGraph(
      graph, {"out"},
      {{"lm",
        {MakePacket<NormalizedLandmarkList>(NormPoints({{0.1f, 0.2f}, {0.3f, 0.6f}}))
             .At(Timestamp(0)),
         MakePacket<NormalizedLandmarkList>(NormPoints({{0.2f, 0.2f}, {0.4f, 0.6f}}))
             .At(Timestamp(kFrameUs)),
         // nothing at 2 frames: the object was lost
         MakePacket<NormalizedLandmarkList>(NormPoints({{0.5f, 0.2f}, {0.7f, 0.6f}}))
             .At(Timestamp(3 * kFrameUs))}},
       {"size", MakePackets<std::pair<int, int>>(
                    {size, size, size, size},
                    {0, kFrameUs, 2 * kFrameUs, 3 * kFrameUs})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 3u);
  EXPECT_THAT(PacketTimestamps((*out)["out"]),
              ElementsAre(0, kFrameUs, 3 * kFrameUs));
  // x: distance 40/40 - 20/40 = 0.5 over 0.033333 s.
  const double a = 1.0 - 1.0 / (1.0 + 10.0 * 0.5 / 0.033333);
  const auto& second = (*out)["out"][1].Get<NormalizedLandmarkList>();
  EXPECT_NEAR(second.landmark(0).x(), (a * 40 + (1 - a) * 20) / 200, 1e-6);
  EXPECT_NEAR(second.landmark(1).x(), (a * 80 + (1 - a) * 60) / 200, 1e-6);
  EXPECT_FLOAT_EQ(second.landmark(0).y(), 0.2f);  // y did not move
  // After the gap the filters start afresh: the jump passes unchanged.
  const auto& third = (*out)["out"][2].Get<NormalizedLandmarkList>();
  EXPECT_FLOAT_EQ(third.landmark(0).x(), 0.5f);
  EXPECT_FLOAT_EQ(third.landmark(1).x(), 0.7f);
}

TEST(LandmarksSmoothingCalculatorTest, OneEuroReducesJitter) {
  // x jitters by +-1 around 10; the 1€ filter at 1 Hz cuts it down.
  std::vector<Packet> in;
  for (int i = 0; i < 60; ++i) {
    in.push_back(MakePacket<LandmarkList>(Points({{i % 2 ? 11.f : 9.f, 0}}))
                     .At(Timestamp(i * kFrameUs)));
  }
  auto out = RunGraph(PixelGraph("one_euro_filter { min_cutoff: 1 beta: 0 "
                                 "disable_value_scaling: true }"),
                      {"out"}, {{"lm", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> xs = Xs((*out)["out"]);
  ASSERT_EQ(xs.size(), 60u);
  // alpha at 30 Hz and 1 Hz is 0.1732: a +-1 square wave at 15 Hz comes out
  // as +-alpha / (2 - alpha) around its mean, about +-0.095.
  for (size_t i = 40; i < xs.size(); ++i) {
    EXPECT_NEAR(xs[i], 10.0, 0.1) << "frame " << i;
  }
}

TEST(LandmarksSmoothingCalculatorTest, NoFilterPassesThrough) {
  auto out = RunGraph(
      PixelGraph("no_filter {}"), {"out"},
      {{"lm", {MakePacket<LandmarkList>(Points({{0, 0}})).At(Timestamp(0)),
               MakePacket<LandmarkList>(Points({{5, 0}})).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Xs((*out)["out"]), ElementsAre(0.f, 5.f));
}

TEST(LandmarksSmoothingCalculatorTest, EmptyListPolicy) {
  const StreamPackets empty = {
      {"lm", {MakePacket<LandmarkList>(LandmarkList()).At(Timestamp(0))}}};
  auto failed = RunGraph(PixelGraph("velocity_filter {}"), {"out"}, empty);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("empty"));
  auto reset = RunGraph(
      PixelGraph("velocity_filter {} "
                 "empty_landmarks_policy: EMPTY_LANDMARKS_POLICY_RESET"),
      {"out"}, empty);
  ASSERT_TRUE(reset.ok()) << reset.status();
  ASSERT_EQ((*reset)["out"].size(), 1u);
  EXPECT_EQ((*reset)["out"][0].Get<LandmarkList>().landmark_size(), 0);
}

TEST(LandmarksSmoothingCalculatorTest, ContractErrors) {
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "LandmarksSmoothingCalculator"
                input_stream: "NORM_LANDMARKS:lm"
                output_stream: "NORM_FILTERED_LANDMARKS:out"
                options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
                  no_filter {} } })pb")
                  .message(),
              HasSubstr("IMAGE_SIZE"));
  EXPECT_THAT(CheckContract(R"pb(
                calculator: "LandmarksSmoothingCalculator"
                input_stream: "LANDMARKS:lm"
                output_stream: "FILTERED_LANDMARKS:out")pb")
                  .message(),
              HasSubstr("needs a filter"));
}

}  // namespace
}  // namespace rill
