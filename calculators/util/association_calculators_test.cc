// Tests of AssociationNormRectCalculator and AssociationDetectionCalculator.
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NormalizedRect NormRect(float xc, float yc, float w, float h) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  return r;
}

// r1 and r3 overlap with IoU 0.036 / 0.044 = 0.818 (x ranges [0.2, 0.4] and
// [0.22, 0.42]); r2 is elsewhere.
const NormalizedRect kR1 = NormRect(0.3f, 0.3f, 0.2f, 0.2f);
const NormalizedRect kR2 = NormRect(0.7f, 0.7f, 0.2f, 0.2f);
const NormalizedRect kR3 = NormRect(0.32f, 0.3f, 0.2f, 0.2f);

std::string RectGraph(const std::string& options) {
  return R"pb(input_stream: "a" input_stream: "b"
              node { calculator: "AssociationNormRectCalculator"
                     input_stream: "a" input_stream: "b"
                     output_stream: "out"
                     options { [mediapipe.AssociationCalculatorOptions.ext] {)pb" +
         options + "}}}";
}

std::vector<float> XCenters(const std::vector<NormalizedRect>& rects) {
  std::vector<float> xs;
  for (const auto& r : rects) xs.push_back(r.x_center());
  return xs;
}

TEST(AssociationNormRectCalculatorTest, LaterStreamReplacesOverlaps) {
  auto out = RunGraph(
      RectGraph("min_similarity_threshold: 0.5"), {"out"},
      {{"a", {MakePacket<std::vector<NormalizedRect>>(
                  std::vector<NormalizedRect>{kR1, kR2})
                  .At(Timestamp(1))}},
       {"b", {MakePacket<std::vector<NormalizedRect>>(
                  std::vector<NormalizedRect>{kR3})
                  .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto v = PacketValues<std::vector<NormalizedRect>>((*out)["out"]);
  ASSERT_EQ(v.size(), 1u);
  // r1 dropped, r3 appended after the kept r2.
  EXPECT_THAT(XCenters(v[0]), ElementsAre(0.7f, 0.32f));
}

TEST(AssociationNormRectCalculatorTest, OverlapsWithinOneStreamAndThreshold) {
  // Within a stream, a later element replaces an earlier one it overlaps.
  auto one = RunGraph(
      RectGraph("min_similarity_threshold: 0.5"), {"out"},
      {{"a", {MakePacket<std::vector<NormalizedRect>>(
                  std::vector<NormalizedRect>{kR1, kR2, kR3})
                  .At(Timestamp(1))}}});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(XCenters(PacketValues<std::vector<NormalizedRect>>(
                  (*one)["out"])[0]),
              ElementsAre(0.7f, 0.32f));
  // IoU 0.818 is not above 0.9: everything stays. The default threshold
  // (1.0) never merges.
  for (const std::string options : {"min_similarity_threshold: 0.9", ""}) {
    auto all = RunGraph(
        RectGraph(options), {"out"},
        {{"a", {MakePacket<std::vector<NormalizedRect>>(
                    std::vector<NormalizedRect>{kR1, kR2})
                    .At(Timestamp(1))}},
         {"b", {MakePacket<std::vector<NormalizedRect>>(
                    std::vector<NormalizedRect>{kR3})
                    .At(Timestamp(1))}}});
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_THAT(XCenters(PacketValues<std::vector<NormalizedRect>>(
                    (*all)["out"])[0]),
                ElementsAre(0.3f, 0.7f, 0.32f))
        << options;
  }
}

TEST(AssociationNormRectCalculatorTest, OutputAtEveryInputTimestamp) {
  // a at 1 (empty vector), b at 2: an output at each, the first empty.
  auto out = RunGraph(
      RectGraph("min_similarity_threshold: 0.5"), {"out"},
      {{"a", {MakePacket<std::vector<NormalizedRect>>().At(Timestamp(1))}},
       {"b", {MakePacket<std::vector<NormalizedRect>>(
                  std::vector<NormalizedRect>{kR2})
                  .At(Timestamp(2))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(1, 2));
  const auto v = PacketValues<std::vector<NormalizedRect>>((*out)["out"]);
  EXPECT_TRUE(v[0].empty());
  EXPECT_THAT(XCenters(v[1]), ElementsAre(0.7f));
}

TEST(AssociationNormRectCalculatorTest, RectWithoutDimensionsIsAnError) {
  NormalizedRect partial;
  partial.set_x_center(0.5f);
  auto out = RunGraph(
      RectGraph("min_similarity_threshold: 0.5"), {"out"},
      {{"a", {MakePacket<std::vector<NormalizedRect>>(
                  std::vector<NormalizedRect>{partial})
                  .At(Timestamp(1))}}});
  EXPECT_THAT(out.status().message(), HasSubstr("lacks"));
  EXPECT_THAT(CheckContract(R"pb(calculator: "AssociationNormRectCalculator"
                                 input_stream: "PREV:p" output_stream: "out")pb")
                  .message(),
              HasSubstr("besides PREV"));
}

Detection Det(float xmin, float ymin, float w, float h, int id = -1) {
  Detection d;
  auto* loc = d.mutable_location_data();
  loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
  auto* b = loc->mutable_relative_bounding_box();
  b->set_xmin(xmin);
  b->set_ymin(ymin);
  b->set_width(w);
  b->set_height(h);
  if (id >= 0) d.set_detection_id(id);
  return d;
}

TEST(AssociationDetectionCalculatorTest, ReplacedAndPreviousIdsCarryOver) {
  // Stream a: d1 (id 7) and d2 (id 8, elsewhere). Stream b: d3 (no id)
  // overlapping d1: it replaces d1 and takes id 7. PREV: p (id 42)
  // overlapping d2: d2 takes id 42. d4 (b, no id, alone) stays without id.
  const Detection d1 = Det(0.2f, 0.2f, 0.2f, 0.2f, 7);
  const Detection d2 = Det(0.6f, 0.6f, 0.2f, 0.2f, 8);
  const Detection d3 = Det(0.22f, 0.2f, 0.2f, 0.2f);
  const Detection d4 = Det(0.0f, 0.8f, 0.1f, 0.1f);
  const Detection p = Det(0.61f, 0.6f, 0.2f, 0.2f, 42);
  auto out = RunGraph(
      R"pb(input_stream: "prev" input_stream: "a" input_stream: "b"
           node { calculator: "AssociationDetectionCalculator"
                  input_stream: "PREV:prev" input_stream: "a" input_stream: "b"
                  output_stream: "out"
                  options { [mediapipe.AssociationCalculatorOptions.ext] {
                    min_similarity_threshold: 0.5 } } })pb",
      {"out"},
      {{"prev", {MakePacket<std::vector<Detection>>(std::vector<Detection>{p})
                     .At(Timestamp(1))}},
       {"a", {MakePacket<std::vector<Detection>>(std::vector<Detection>{d1, d2})
                  .At(Timestamp(1))}},
       {"b", {MakePacket<std::vector<Detection>>(std::vector<Detection>{d3, d4})
                  .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto v = PacketValues<std::vector<Detection>>((*out)["out"]);
  ASSERT_EQ(v.size(), 1u);
  ASSERT_EQ(v[0].size(), 3u);
  EXPECT_FLOAT_EQ(v[0][0].location_data().relative_bounding_box().xmin(),
                  0.6f);
  EXPECT_EQ(v[0][0].detection_id(), 42);
  EXPECT_FLOAT_EQ(v[0][1].location_data().relative_bounding_box().xmin(),
                  0.22f);
  EXPECT_EQ(v[0][1].detection_id(), 7);
  EXPECT_FALSE(v[0][2].has_detection_id());
}

TEST(AssociationDetectionCalculatorTest, IdsChainThroughReplacements) {
  // MediaPipe's own association scenario (threshold 0.1), IoUs by hand:
  // d3 replaces d0 (0.02 / 0.11) and d1 (0.04 / 0.09) and takes id 1 (the
  // last one); d4 replaces d2 (0.02 / 0.06) and takes id 2; d5 replaces d3
  // (0.04 / 0.14) and inherits id 1. d0 and d1 only touch (IoU 0).
  const Detection d0 = Det(0.1f, 0.1f, 0.2f, 0.2f, 0);
  const Detection d1 = Det(0.3f, 0.1f, 0.2f, 0.2f, 1);
  const Detection d2 = Det(0.9f, 0.2f, 0.2f, 0.2f, 2);
  const Detection d3 = Det(0.2f, 0.0f, 0.3f, 0.3f, 3);
  const Detection d4 = Det(1.0f, 0.2f, 0.2f, 0.2f, 4);
  const Detection d5 = Det(0.3f, -0.1f, 0.3f, 0.3f, 5);
  using Dets = std::vector<Detection>;
  auto out = RunGraph(
      R"pb(input_stream: "a" input_stream: "b" input_stream: "c"
           node { calculator: "AssociationDetectionCalculator"
                  input_stream: "a" input_stream: "b" input_stream: "c"
                  output_stream: "out"
                  options { [mediapipe.AssociationCalculatorOptions.ext] {
                    min_similarity_threshold: 0.1 } } })pb",
      {"out"},
      {{"a", {MakePacket<Dets>(Dets{d0, d1, d2}).At(Timestamp(1))}},
       {"b", {MakePacket<Dets>(Dets{d3, d4}).At(Timestamp(1))}},
       {"c", {MakePacket<Dets>(Dets{d5}).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto v = PacketValues<Dets>((*out)["out"]);
  ASSERT_EQ(v.size(), 1u);
  ASSERT_EQ(v[0].size(), 2u);
  EXPECT_FLOAT_EQ(v[0][0].location_data().relative_bounding_box().xmin(),
                  1.0f);  // d4
  EXPECT_EQ(v[0][0].detection_id(), 2);
  EXPECT_FLOAT_EQ(v[0][1].location_data().relative_bounding_box().ymin(),
                  -0.1f);  // d5
  EXPECT_EQ(v[0][1].detection_id(), 1);
}

TEST(AssociationDetectionCalculatorTest, PrevAloneGivesAnEmptyVector) {
  // Only PREV has a packet: nothing to keep.
  auto out = RunGraph(
      R"pb(input_stream: "prev" input_stream: "a"
           node { calculator: "AssociationDetectionCalculator"
                  input_stream: "PREV:prev" input_stream: "a"
                  output_stream: "out"
                  options { [mediapipe.AssociationCalculatorOptions.ext] {
                    min_similarity_threshold: 0.5 } } })pb",
      {"out"},
      {{"prev", {MakePacket<std::vector<Detection>>(
                     std::vector<Detection>{Det(0.f, 0.f, 1.f, 1.f, 1)})
                     .At(Timestamp(5))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  EXPECT_TRUE((*out)["out"][0].Get<std::vector<Detection>>().empty());
}

}  // namespace
}  // namespace rill
