#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;

NormalizedLandmarkList Xs(std::vector<float> xs) {
  NormalizedLandmarkList list;
  for (float x : xs) list.add_landmark()->set_x(x);
  return list;
}

std::vector<float> XsOf(const NormalizedLandmarkList& list) {
  std::vector<float> xs;
  for (const auto& l : list.landmark()) xs.push_back(l.x());
  return xs;
}

std::string Graph(const std::string& options) {
  return R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      calculator: "ConcatenateNormalizedLandmarkListCalculator"
      input_stream: "a"
      input_stream: "b"
      output_stream: "joined"
      options { [mediapipe.ConcatenateVectorCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

StreamPackets Inputs() {
  return {{"a",
           {MakePacket<NormalizedLandmarkList>(Xs({1, 2})).At(Timestamp(1)),
            MakePacket<NormalizedLandmarkList>(Xs({5})).At(Timestamp(2))}},
          {"b", {MakePacket<NormalizedLandmarkList>(Xs({3})).At(Timestamp(1))}}};
}

TEST(ConcatenateProtoListCalculatorTest, JoinsInStreamOrderSkippingMissing) {
  auto out = RunGraph(Graph(""), {"joined"}, Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["joined"].size(), 2u);
  EXPECT_THAT(XsOf((*out)["joined"][0].Get<NormalizedLandmarkList>()),
              ElementsAre(1, 2, 3));
  EXPECT_THAT(XsOf((*out)["joined"][1].Get<NormalizedLandmarkList>()),
              ElementsAre(5));
}

TEST(ConcatenateProtoListCalculatorTest, OnlyEmitIfAllPresent) {
  auto out = RunGraph(Graph("only_emit_if_all_present: true"), {"joined"},
                      Inputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["joined"]), ElementsAre(1));
}

TEST(ConcatenateProtoListCalculatorTest, ClassificationListVector) {
  ClassificationList left, right;
  left.add_classification()->set_label("Left");
  right.add_classification()->set_label("Right");
  auto out = RunGraph(
      R"pb(
        input_stream: "a"
        input_stream: "b"
        node {
          calculator: "ConcatenateClassificationListVectorCalculator"
          input_stream: "a"
          input_stream: "b"
          output_stream: "joined"
        }
      )pb",
      {"joined"},
      {{"a", {MakePacket<ClassificationList>(left).At(Timestamp(1))}},
       {"b", {MakePacket<std::vector<ClassificationList>>(
                  std::vector<ClassificationList>{right, left})
                  .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& v = (*out)["joined"][0].Get<std::vector<ClassificationList>>();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].classification(0).label(), "Left");
  EXPECT_EQ(v[1].classification(0).label(), "Right");
  EXPECT_EQ(v[2].classification(0).label(), "Left");
}

}  // namespace
}  // namespace rill
