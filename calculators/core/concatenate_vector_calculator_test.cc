#include <cstdint>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using FloatVec = std::vector<float>;

std::string ConcatGraph(const std::string& calculator,
                        const std::string& options) {
  return R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      name: "concat"
      calculator: ")pb" +
         calculator + R"pb("
      input_stream: "a"
      input_stream: "b"
      output_stream: "joined"
      options { [rill.ConcatenateVectorCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

StreamPackets FloatInputs() {
  return {{"a", {MakePacket<FloatVec>(FloatVec{1, 2}).At(Timestamp(1)),
                 MakePacket<FloatVec>(FloatVec{4}).At(Timestamp(2))}},
          {"b", {MakePacket<FloatVec>(FloatVec{3}).At(Timestamp(1)),
                 MakePacket<FloatVec>(FloatVec{}).At(Timestamp(3))}}};
}

TEST(ConcatenateVectorCalculatorTest, JoinsPresentInputsInOrder) {
  auto out = RunGraph(ConcatGraph("ConcatenateFloatVectorCalculator", ""),
                      {"joined"}, FloatInputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<FloatVec>((*out)["joined"]),
              ElementsAre(FloatVec{1, 2, 3}, FloatVec{4}, FloatVec{}));
  EXPECT_THAT(PacketTimestamps((*out)["joined"]), ElementsAre(1, 2, 3));
}

TEST(ConcatenateVectorCalculatorTest, OnlyEmitIfAllPresent) {
  auto out = RunGraph(ConcatGraph("ConcatenateFloatVectorCalculator",
                                  "only_emit_if_all_present: true"),
                      {"joined"}, FloatInputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<FloatVec>((*out)["joined"]),
              ElementsAre(FloatVec{1, 2, 3}));
  EXPECT_THAT(PacketTimestamps((*out)["joined"]), ElementsAre(1));
}

TEST(ConcatenateVectorCalculatorTest, SingleElementsAndVectorsMix) {
  auto out = RunGraph(
      ConcatGraph("ConcatenateInt32VectorCalculator", ""), {"joined"},
      {{"a", {MakePacket<int32_t>(5).At(Timestamp(1))}},
       {"b", {MakePacket<std::vector<int32_t>>(std::vector<int32_t>{6, 7})
                  .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<std::vector<int32_t>>((*out)["joined"]),
              ElementsAre(std::vector<int32_t>{5, 6, 7}));
}

TEST(ConcatenateVectorCalculatorTest, OtherTypes) {
  auto out = RunGraph(
      ConcatGraph("ConcatenateStringVectorCalculator", ""), {"joined"},
      {{"a", {MakePacket<std::string>("x").At(Timestamp(1))}},
       {"b", {MakePacket<std::string>("y").At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<std::vector<std::string>>((*out)["joined"]),
              ElementsAre(std::vector<std::string>{"x", "y"}));
  out = RunGraph(ConcatGraph("ConcatenateBoolVectorCalculator", ""),
                 {"joined"},
                 {{"a", {MakePacket<bool>(true).At(Timestamp(1))}},
                  {"b", {MakePacket<bool>(false).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<std::vector<bool>>((*out)["joined"]),
              ElementsAre(std::vector<bool>{true, false}));
}

TEST(ConcatenateVectorCalculatorTest, WrongElementTypeFailsNamingTheNode) {
  auto out = RunGraph(ConcatGraph("ConcatenateFloatVectorCalculator", ""),
                      {"joined"},
                      {{"a", {MakePacket<int>(1).At(Timestamp(1))}},
                       {"b", {MakePacket<float>(2).At(Timestamp(1))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("concat"));
  EXPECT_THAT(out.status().message(), HasSubstr("input stream 0 carries int"));
}

TEST(ConcatenateVectorCalculatorTest, ContractErrors) {
  absl::Status s = CheckContract(R"pb(
    name: "concat"
    calculator: "ConcatenateFloatVectorCalculator"
    output_stream: "joined"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"concat\""));
  s = CheckContract(R"pb(
    name: "concat"
    calculator: "ConcatenateFloatVectorCalculator"
    input_stream: "a"
    output_stream: "x"
    output_stream: "y"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("exactly one untagged output stream"));
}

}  // namespace
}  // namespace rill
