// Tests of the vector helpers: Clip*VectorSize, *HasMinSize,
// SplitDetectionVector and DetectionUniqueId.
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NormalizedRect NormRect(float xc) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(0.5f);
  r.set_width(0.1f);
  r.set_height(0.1f);
  return r;
}

Detection Det(float score) {
  Detection d;
  d.add_score(score);
  return d;
}

TEST(ClipVectorSizeCalculatorTest, KeepsTheFirstElements) {
  using Rects = std::vector<NormalizedRect>;
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "ClipNormalizedRectVectorSizeCalculator"
                  input_stream: "in" output_stream: "out"
                  options { [mediapipe.ClipVectorSizeCalculatorOptions.ext] {
                    max_vec_size: 2 } } })pb",
      {"out"},
      {{"in", MakePackets<Rects>({{NormRect(0.1f), NormRect(0.2f),
                                   NormRect(0.3f)},
                                  {NormRect(0.4f)},
                                  {}},
                                 {1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(1, 2, 3));
  const auto v = PacketValues<Rects>((*out)["out"]);
  ASSERT_EQ(v[0].size(), 2u);
  EXPECT_FLOAT_EQ(v[0][1].x_center(), 0.2f);
  ASSERT_EQ(v[1].size(), 1u);
  EXPECT_TRUE(v[2].empty());  // an empty vector stays, as a packet
}

TEST(ClipVectorSizeCalculatorTest, DefaultAndSidePacket) {
  using Dets = std::vector<Detection>;
  const std::vector<Packet> in = {
      MakePacket<Dets>(Dets{Det(0.9f), Det(0.8f), Det(0.7f)}).At(Timestamp(1))};
  // Default max_vec_size 1.
  auto one = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "ClipDetectionVectorSizeCalculator"
                  input_stream: "in" output_stream: "out" })pb",
      {"out"}, {{"in", in}});
  ASSERT_TRUE(one.ok()) << one.status();
  const auto v1 = PacketValues<Dets>((*one)["out"]);
  ASSERT_EQ(v1[0].size(), 1u);
  EXPECT_FLOAT_EQ(v1[0][0].score(0), 0.9f);
  // The side packet wins over the option.
  auto two = RunGraph(
      R"pb(input_stream: "in" input_side_packet: "max"
           node { calculator: "ClipDetectionVectorSizeCalculator"
                  input_stream: "in" input_side_packet: "max"
                  output_stream: "out"
                  options { [mediapipe.ClipVectorSizeCalculatorOptions.ext] {
                    max_vec_size: 1 } } })pb",
      {"out"}, {{"in", in}}, {{"max", MakePacket<int>(2)}});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(PacketValues<Dets>((*two)["out"])[0].size(), 2u);
  EXPECT_THAT(
      CheckContract(R"pb(calculator: "ClipDetectionVectorSizeCalculator"
                         input_stream: "in" output_stream: "out"
                         options { [mediapipe.ClipVectorSizeCalculatorOptions.ext] {
                           max_vec_size: 0 } })pb")
          .message(),
      HasSubstr("at least 1"));
}

TEST(CollectionHasMinSizeCalculatorTest, ComparesTheSize) {
  using Rects = std::vector<NormalizedRect>;
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "NormalizedRectVectorHasMinSizeCalculator"
                  input_stream: "ITERABLE:in" output_stream: "out"
                  options { [mediapipe.CollectionHasMinSizeCalculatorOptions.ext] {
                    min_size: 2 } } })pb",
      {"out"},
      {{"in", MakePackets<Rects>({{NormRect(0.1f)},
                                  {NormRect(0.1f), NormRect(0.2f)},
                                  {},
                                  {NormRect(0.1f), NormRect(0.2f),
                                   NormRect(0.3f)}},
                                 {1, 2, 3, 4})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<bool>((*out)["out"]),
              ElementsAre(false, true, false, true));
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(1, 2, 3, 4));
}

TEST(CollectionHasMinSizeCalculatorTest, ClassificationListsAndSidePacket) {
  using Lists = std::vector<ClassificationList>;
  const std::string graph = R"pb(
    input_stream: "in" input_side_packet: "min"
    node { calculator: "ClassificationListVectorHasMinSizeCalculator"
           input_stream: "ITERABLE:in" input_side_packet: "min"
           output_stream: "out" })pb";
  // Default min_size 0: even an empty vector passes.
  auto zero = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "ClassificationListVectorHasMinSizeCalculator"
                  input_stream: "ITERABLE:in" output_stream: "out" })pb",
      {"out"}, {{"in", MakePackets<Lists>({{}}, {1})}});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_THAT(PacketValues<bool>((*zero)["out"]), ElementsAre(true));
  auto side = RunGraph(graph, {"out"},
                       {{"in", MakePackets<Lists>({Lists(1), Lists(3)}, {1, 2})}},
                       {{"min", MakePacket<int>(2)}});
  ASSERT_TRUE(side.ok()) << side.status();
  EXPECT_THAT(PacketValues<bool>((*side)["out"]), ElementsAre(false, true));
}

TEST(SplitDetectionVectorCalculatorTest, RangesAndElementOnly) {
  using Dets = std::vector<Detection>;
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "SplitDetectionVectorCalculator"
                  input_stream: "in" output_stream: "first"
                  output_stream: "rest"
                  options { [mediapipe.SplitVectorCalculatorOptions.ext] {
                    ranges { begin: 0 end: 1 } ranges { begin: 1 end: 3 } } } }
           node { calculator: "SplitDetectionVectorCalculator"
                  input_stream: "in" output_stream: "second"
                  options { [mediapipe.SplitVectorCalculatorOptions.ext] {
                    ranges { begin: 1 end: 2 } element_only: true } } })pb",
      {"first", "rest", "second"},
      {{"in", {MakePacket<Dets>(Dets{Det(0.9f), Det(0.8f), Det(0.7f)})
                   .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto first = PacketValues<Dets>((*out)["first"]);
  ASSERT_EQ(first[0].size(), 1u);
  EXPECT_FLOAT_EQ(first[0][0].score(0), 0.9f);
  const auto rest = PacketValues<Dets>((*out)["rest"]);
  ASSERT_EQ(rest[0].size(), 2u);
  EXPECT_FLOAT_EQ(rest[0][1].score(0), 0.7f);
  EXPECT_FLOAT_EQ(PacketValues<Detection>((*out)["second"])[0].score(0), 0.8f);
}

TEST(SplitVectorCalculatorsTest, RectsAndClassificationLists) {
  using Rects = std::vector<NormalizedRect>;
  using Lists = std::vector<ClassificationList>;
  Lists lists(2);
  lists[0].add_classification()->set_label("Left");
  lists[1].add_classification()->set_label("Right");
  auto out = RunGraph(
      R"pb(input_stream: "rects" input_stream: "lists"
           node { calculator: "SplitNormalizedRectVectorCalculator"
                  input_stream: "rects" output_stream: "picked"
                  options { [mediapipe.SplitVectorCalculatorOptions.ext] {
                    ranges { begin: 0 end: 1 } ranges { begin: 2 end: 3 }
                    combine_outputs: true } } }
           node { calculator: "SplitClassificationListVectorCalculator"
                  input_stream: "lists" output_stream: "first"
                  node_options: {
                    [type.googleapis.com/mediapipe.SplitVectorCalculatorOptions] {
                      ranges: { begin: 0 end: 1 } element_only: true } } })pb",
      {"picked", "first"},
      {{"rects", {MakePacket<Rects>(Rects{NormRect(0.1f), NormRect(0.2f),
                                          NormRect(0.3f)})
                      .At(Timestamp(1))}},
       {"lists", {MakePacket<Lists>(lists).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto picked = PacketValues<Rects>((*out)["picked"]);
  ASSERT_EQ(picked[0].size(), 2u);
  EXPECT_FLOAT_EQ(picked[0][0].x_center(), 0.1f);
  EXPECT_FLOAT_EQ(picked[0][1].x_center(), 0.3f);
  EXPECT_EQ(PacketValues<ClassificationList>((*out)["first"])[0]
                .classification(0)
                .label(),
            "Left");
}

TEST(DetectionUniqueIdCalculatorTest, NumbersEveryDetection) {
  using Dets = std::vector<Detection>;
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "DetectionUniqueIdCalculator"
                  input_stream: "DETECTIONS:in"
                  output_stream: "DETECTIONS:out" })pb",
      {"out"},
      {{"in", MakePackets<Dets>({{Det(0.9f), Det(0.8f)}, {}, {Det(0.7f)}},
                                {1, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto v = PacketValues<Dets>((*out)["out"]);
  ASSERT_EQ(v.size(), 3u);
  ASSERT_EQ(v[0].size(), 2u);
  ASSERT_EQ(v[2].size(), 1u);
  // Consecutive ids, counted across the process (so relative here).
  const int64_t first = v[0][0].detection_id();
  EXPECT_GE(first, 1);
  EXPECT_EQ(v[0][1].detection_id(), first + 1);
  EXPECT_EQ(v[2][0].detection_id(), first + 2);
  EXPECT_TRUE(v[1].empty());
}

}  // namespace
}  // namespace rill
