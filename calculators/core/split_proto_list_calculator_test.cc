#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Landmarks whose x is their index.
NormalizedLandmarkList Indexed(int n) {
  NormalizedLandmarkList list;
  for (int i = 0; i < n; ++i) list.add_landmark()->set_x(static_cast<float>(i));
  return list;
}

template <typename ListT>
std::vector<float> Xs(const ListT& list) {
  std::vector<float> xs;
  for (const auto& l : list.landmark()) xs.push_back(l.x());
  return xs;
}

std::string SplitGraph(const std::string& calculator, const std::string& outs,
                       const std::string& options) {
  return R"pb(
    input_stream: "in"
    node {
      calculator: ")pb" +
         calculator + R"pb("
      input_stream: "in" )pb" +
         outs + R"pb(
      options { [mediapipe.SplitVectorCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

TEST(SplitProtoListCalculatorTest, RangesGiveOneListEach) {
  auto out = RunGraph(
      SplitGraph("SplitNormalizedLandmarkListCalculator",
                 R"(output_stream: "a" output_stream: "b")",
                 "ranges { begin: 0 end: 2 } ranges { begin: 3 end: 6 }"),
      {"a", "b"},
      {{"in", {MakePacket<NormalizedLandmarkList>(Indexed(6)).At(
                  Timestamp(7))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["a"].size(), 1u);
  EXPECT_THAT(Xs((*out)["a"][0].Get<NormalizedLandmarkList>()),
              ElementsAre(0, 1));
  EXPECT_THAT(Xs((*out)["b"][0].Get<NormalizedLandmarkList>()),
              ElementsAre(3, 4, 5));
  EXPECT_THAT(PacketTimestamps((*out)["b"]), ElementsAre(7));
}

TEST(SplitProtoListCalculatorTest, ElementOnlyGivesTheLandmark) {
  LandmarkList list;
  for (int i = 0; i < 4; ++i) list.add_landmark()->set_x(10.f * i);
  auto out = RunGraph(
      SplitGraph("SplitLandmarkListCalculator",
                 R"(output_stream: "a" output_stream: "b")",
                 "ranges { begin: 3 end: 4 } ranges { begin: 1 end: 2 } "
                 "element_only: true"),
      {"a", "b"}, {{"in", {MakePacket<LandmarkList>(list).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["a"][0].Get<Landmark>().x(), 30.f);
  EXPECT_EQ((*out)["b"][0].Get<Landmark>().x(), 10.f);
}

TEST(SplitProtoListCalculatorTest, CombineOutputsJoinsRangesInOrder) {
  auto out = RunGraph(
      SplitGraph("SplitNormalizedLandmarkListCalculator",
                 R"(output_stream: "joined")",
                 "ranges { begin: 4 end: 6 } ranges { begin: 0 end: 1 } "
                 "combine_outputs: true"),
      {"joined"},
      {{"in", {MakePacket<NormalizedLandmarkList>(Indexed(6)).At(
                  Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Xs((*out)["joined"][0].Get<NormalizedLandmarkList>()),
              ElementsAre(4, 5, 0));
}

TEST(SplitProtoListCalculatorTest, ShortInputIsAnError) {
  auto out = RunGraph(
      SplitGraph("SplitNormalizedLandmarkListCalculator",
                 R"(output_stream: "a")", "ranges { begin: 0 end: 5 }"),
      {"a"},
      {{"in", {MakePacket<NormalizedLandmarkList>(Indexed(3)).At(
                  Timestamp(1))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("has 3 elements"));
}

TEST(SplitProtoListCalculatorTest, ElementOnlyRangesMustHoldOne) {
  absl::Status s = CheckContract(R"pb(
    calculator: "SplitLandmarkListCalculator"
    input_stream: "in" output_stream: "a"
    options { [mediapipe.SplitVectorCalculatorOptions.ext] {
      ranges { begin: 0 end: 2 } element_only: true } }
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("one element"));
}

TEST(SplitProtoListCalculatorTest, VectorOfNormalizedLandmarkLists) {
  // Two hands' landmark lists; the second by itself.
  std::vector<NormalizedLandmarkList> hands = {Indexed(2), Indexed(3)};
  auto out = RunGraph(
      SplitGraph("SplitNormalizedLandmarkListVectorCalculator",
                 R"(output_stream: "second")",
                 "ranges { begin: 1 end: 2 } element_only: true"),
      {"second"},
      {{"in", {MakePacket<std::vector<NormalizedLandmarkList>>(hands).At(
                  Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Xs((*out)["second"][0].Get<NormalizedLandmarkList>()),
              ElementsAre(0, 1, 2));
}

}  // namespace
}  // namespace rill
