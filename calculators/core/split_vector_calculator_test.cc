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

TEST(SplitVectorCalculatorTest, SplitsIntoRanges) {
  auto out = RunGraph(R"pb(
    input_stream: "v"
    node {
      calculator: "SplitFloatVectorCalculator"
      input_stream: "v"
      output_stream: "head"
      output_stream: "tail"
      options {
        [rill.SplitVectorCalculatorOptions.ext] {
          ranges { begin: 0 end: 2 }
          ranges { begin: 2 end: 5 }
        }
      }
    }
  )pb",
                      {"head", "tail"},
                      {{"v", {MakePacket<FloatVec>(FloatVec{1, 2, 3, 4, 5})
                                  .At(Timestamp(7))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<FloatVec>((*out)["head"]),
              ElementsAre(FloatVec{1, 2}));
  EXPECT_THAT(PacketValues<FloatVec>((*out)["tail"]),
              ElementsAre(FloatVec{3, 4, 5}));
  EXPECT_THAT(PacketTimestamps((*out)["tail"]), ElementsAre(7));
}

TEST(SplitVectorCalculatorTest, ElementOnly) {
  auto out = RunGraph(R"pb(
    input_stream: "v"
    node {
      calculator: "SplitIntVectorCalculator"
      input_stream: "v"
      output_stream: "first"
      output_stream: "third"
      options {
        [mediapipe.SplitVectorCalculatorOptions.ext] {
          ranges { begin: 0 end: 1 }
          ranges { begin: 2 end: 3 }
          element_only: true
        }
      }
    }
  )pb",
                      {"first", "third"},
                      {{"v",
                        {MakePacket<std::vector<int>>(std::vector<int>{9, 8, 7})
                             .At(Timestamp(1)),
                         MakePacket<std::vector<int>>(std::vector<int>{1, 2, 3})
                             .At(Timestamp(2))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["first"]), ElementsAre(9, 1));
  EXPECT_THAT(PacketValues<int>((*out)["third"]), ElementsAre(7, 3));
  EXPECT_THAT(PacketTimestamps((*out)["third"]), ElementsAre(1, 2));
}

TEST(SplitVectorCalculatorTest, CombineOutputs) {
  auto out = RunGraph(R"pb(
    input_stream: "v"
    node {
      calculator: "SplitFloatVectorCalculator"
      input_stream: "v"
      output_stream: "picked"
      options {
        [rill.SplitVectorCalculatorOptions.ext] {
          ranges { begin: 3 end: 5 }
          ranges { begin: 0 end: 1 }
          combine_outputs: true
        }
      }
    }
  )pb",
                      {"picked"},
                      {{"v", {MakePacket<FloatVec>(FloatVec{1, 2, 3, 4, 5})
                                  .At(Timestamp(3))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<FloatVec>((*out)["picked"]),
              ElementsAre(FloatVec{4, 5, 1}));
}

TEST(SplitVectorCalculatorTest, ShortInputFailsTheRunNamingTheNode) {
  auto out = RunGraph(R"pb(
    input_stream: "v"
    node {
      name: "splitter"
      calculator: "SplitFloatVectorCalculator"
      input_stream: "v"
      output_stream: "a"
      options {
        [rill.SplitVectorCalculatorOptions.ext] { ranges { begin: 0 end: 4 } }
      }
    }
  )pb",
                      {"a"},
                      {{"v", {MakePacket<FloatVec>(FloatVec{1, 2})
                                  .At(Timestamp(3))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("splitter"));
  EXPECT_THAT(out.status().message(),
              HasSubstr("has 2 elements but the ranges reach index 3"));
}

absl::Status SplitContract(const std::string& outputs,
                           const std::string& options) {
  return CheckContract(R"pb(
    name: "splitter"
    calculator: "SplitFloatVectorCalculator"
    input_stream: "v"
    )pb" + outputs + R"pb(
    options { [rill.SplitVectorCalculatorOptions.ext] { )pb" +
                       options + "}}");
}

TEST(SplitVectorCalculatorTest, BadOptionsAreContractErrors) {
  struct Case {
    const char* outputs;
    const char* options;
    const char* error;
  } cases[] = {
      {"output_stream: 'a'", "", "ranges is empty"},
      {"output_stream: 'a'", "ranges { begin: 2 end: 2 }",
       "need 0 <= begin < end"},
      {"output_stream: 'a'", "ranges { begin: -1 end: 2 }",
       "need 0 <= begin < end"},
      {"output_stream: 'a'", "ranges { begin: 0 end: 2 } element_only: true",
       "every range must hold one element"},
      {"output_stream: 'a' output_stream: 'b'", "ranges { begin: 0 end: 2 }",
       "2 output streams but 1 ranges"},
      {"output_stream: 'a'",
       "ranges { begin: 0 end: 2 } ranges { begin: 1 end: 3 } "
       "combine_outputs: true",
       "must not overlap"},
      {"output_stream: 'a' output_stream: 'b'",
       "ranges { begin: 0 end: 1 } ranges { begin: 1 end: 2 } "
       "combine_outputs: true",
       "exactly one output stream"},
      {"output_stream: 'a'",
       "ranges { begin: 0 end: 1 } element_only: true combine_outputs: true",
       "cannot both be set"},
  };
  for (const Case& c : cases) {
    absl::Status s = SplitContract(c.outputs, c.options);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.options;
    EXPECT_THAT(s.message(), HasSubstr("\"splitter\"")) << c.options;
    EXPECT_THAT(s.message(), HasSubstr(c.error)) << c.options;
  }
  EXPECT_TRUE(SplitContract("output_stream: 'a'", "ranges { begin: 0 end: 1 }")
                  .ok());
}

}  // namespace
}  // namespace rill
