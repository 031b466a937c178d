#include <functional>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/render_data.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// EndLoop fed directly: items at loop timestamps, BATCH_END naming the
// timestamp of the result.
TEST(EndLoopCalculatorTest, CollectsItemsUntilBatchEnd) {
  auto out = RunGraph(R"pb(
    input_stream: "item"
    input_stream: "end"
    node {
      calculator: "EndLoopBooleanCalculator"
      input_stream: "ITEM:item"
      input_stream: "BATCH_END:end"
      output_stream: "ITERABLE:flags"
    }
  )pb",
                      {"flags"},
                      {{"item", MakePackets<bool>({true, false, true},
                                                  {0, 1, 3})},
                       {"end", {MakePacket<Timestamp>(Timestamp(1000))
                                    .At(Timestamp(1)),
                                MakePacket<Timestamp>(Timestamp(2000))
                                    .At(Timestamp(2)),
                                MakePacket<Timestamp>(Timestamp(3000))
                                    .At(Timestamp(3))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  // Nothing collected for the batch ending at 2: no packet at 2000.
  EXPECT_THAT(PacketValues<std::vector<bool>>((*out)["flags"]),
              ElementsAre(std::vector<bool>{true, false},
                          std::vector<bool>{true}));
  EXPECT_THAT(PacketTimestamps((*out)["flags"]), ElementsAre(1000, 3000));
}

TEST(EndLoopCalculatorTest, ContractErrors) {
  absl::Status s = CheckContract(R"pb(
    name: "end"
    calculator: "EndLoopIntCalculator"
    input_stream: "ITEM:x"
    output_stream: "ITERABLE:v"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"end\""));
  EXPECT_THAT(s.message(), HasSubstr("BATCH_END"));
}

// The tracking graphs' loops: per-rect, per-detection and per-landmark-list
// BeginLoop/EndLoop pairs round-trip their vectors; an empty vector gives
// no packet, only a bound.
template <typename T>
void ExpectRoundTrip(const std::string& begin, const std::string& end,
                     const std::vector<T>& items,
                     const std::function<int(const T&)>& key) {
  auto out = RunGraph(
      R"pb(input_stream: "v"
           node { calculator: ")pb" + begin + R"pb("
                  input_stream: "ITERABLE:v" output_stream: "ITEM:item"
                  output_stream: "BATCH_END:end" }
           node { calculator: ")pb" + end + R"pb("
                  input_stream: "ITEM:item" input_stream: "BATCH_END:end"
                  output_stream: "ITERABLE:out" })pb",
      {"out"},
      {{"v", MakePackets<std::vector<T>>({items, {}, items}, {10, 20, 30})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(10, 30)) << begin;
  for (const auto& v : PacketValues<std::vector<T>>((*out)["out"])) {
    ASSERT_EQ(v.size(), items.size()) << begin;
    for (size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(key(v[i]), key(items[i])) << begin;
    }
  }
}

TEST(LoopCalculatorTypesTest, TrackingTypesRoundTrip) {
  std::vector<NormalizedRect> rects(2);
  rects[0].set_x_center(0.25f);
  rects[1].set_x_center(0.75f);
  ExpectRoundTrip<NormalizedRect>(
      "BeginLoopNormalizedRectCalculator", "EndLoopNormalizedRectCalculator",
      rects, [](const NormalizedRect& r) { return int(r.x_center() * 100); });
  std::vector<Detection> dets(3);
  for (int i = 0; i < 3; ++i) dets[i].set_detection_id(i + 5);
  ExpectRoundTrip<Detection>(
      "BeginLoopDetectionCalculator", "EndLoopDetectionCalculator", dets,
      [](const Detection& d) { return int(d.detection_id()); });
  std::vector<NormalizedLandmarkList> lists(2);
  lists[0].add_landmark();
  lists[1].add_landmark();
  lists[1].add_landmark();
  ExpectRoundTrip<NormalizedLandmarkList>(
      "BeginLoopNormalizedLandmarkListVectorCalculator",
      "EndLoopNormalizedLandmarkListVectorCalculator", lists,
      [](const NormalizedLandmarkList& l) { return l.landmark_size(); });
}

// EndLoop fed directly, for the types only collected (items at loop
// timestamps 0 and 1, the batch ending at 1 for outer timestamp 100).
template <typename T>
std::vector<std::vector<T>> Collect(const std::string& calculator,
                                    const std::vector<T>& items) {
  auto out = RunGraph(
      R"pb(input_stream: "item" input_stream: "end"
           node { calculator: ")pb" + calculator + R"pb("
                  input_stream: "ITEM:item" input_stream: "BATCH_END:end"
                  output_stream: "ITERABLE:out" })pb",
      {"out"},
      {{"item", MakePackets<T>(items, {0, 1})},
       {"end", {MakePacket<Timestamp>(Timestamp(100)).At(Timestamp(1))}}});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(100));
  return PacketValues<std::vector<T>>((*out)["out"]);
}

TEST(LoopCalculatorTypesTest, EndLoopCollectsTrackingTypes) {
  std::vector<LandmarkList> landmarks(2);
  landmarks[1].add_landmark()->set_z(3.f);
  auto l = Collect<LandmarkList>("EndLoopLandmarkListVectorCalculator",
                                 landmarks);
  ASSERT_EQ(l.size(), 1u);
  ASSERT_EQ(l[0].size(), 2u);
  EXPECT_FLOAT_EQ(l[0][1].landmark(0).z(), 3.f);

  std::vector<ClassificationList> classes(2);
  classes[0].add_classification()->set_label("Left");
  auto c = Collect<ClassificationList>("EndLoopClassificationListCalculator",
                                       classes);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0][0].classification(0).label(), "Left");

  std::vector<RenderData> renders(2);
  renders[1].add_render_annotations()->set_thickness(4.0);
  auto r = Collect<RenderData>("EndLoopRenderDataCalculator", renders);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(r[0][1].render_annotations(0).thickness(), 4.0);
}

}  // namespace
}  // namespace rill
