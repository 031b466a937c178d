#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ClonerGraph(const std::string& options) {
  return R"pb(
    input_stream: "a"
    input_stream: "b"
    input_stream: "tick"
    node {
      calculator: "PacketClonerCalculator"
      input_stream: "a"
      input_stream: "b"
      input_stream: "TICK:tick"
      output_stream: "a_out"
      output_stream: "b_out"
      options { [rill.PacketClonerCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

StreamPackets ClonerInputs() {
  return {{"a", MakePackets<int>({1, 2}, {10, 30})},
          {"b", MakePackets<std::string>({"x"}, {20})},
          {"tick", MakePackets<int>({0, 0, 0}, {15, 25, 35})}};
}

TEST(PacketClonerCalculatorTest, ClonesLatestValuesAtEachTick) {
  auto out = RunGraph(ClonerGraph(""), {"a_out", "b_out"}, ClonerInputs(),
                      {}, /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["a_out"]), ElementsAre(1, 1, 2));
  EXPECT_THAT(PacketTimestamps((*out)["a_out"]), ElementsAre(15, 25, 35));
  // b has no value before tick 25.
  EXPECT_THAT(PacketValues<std::string>((*out)["b_out"]),
              ElementsAre("x", "x"));
  EXPECT_THAT(PacketTimestamps((*out)["b_out"]), ElementsAre(25, 35));
}

TEST(PacketClonerCalculatorTest, OutputOnlyWhenAllInputsReceived) {
  for (const char* option : {"output_only_when_all_inputs_received: true",
                             "output_packets_only_when_all_inputs_received: "
                             "true"}) {
    auto out = RunGraph(ClonerGraph(option), {"a_out", "b_out"},
                        ClonerInputs(), {}, /*settle_each_packet=*/true);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(PacketTimestamps((*out)["a_out"]), ElementsAre(25, 35))
        << option;
    EXPECT_THAT(PacketValues<int>((*out)["a_out"]), ElementsAre(1, 2));
    EXPECT_THAT(PacketTimestamps((*out)["b_out"]), ElementsAre(25, 35));
  }
}

TEST(PacketClonerCalculatorTest, ValueAndTickAtTheSameTimestamp) {
  auto out = RunGraph(ClonerGraph(""), {"a_out"},
                      {{"a", MakePackets<int>({5}, {10})},
                       {"b", MakePackets<std::string>({"y"}, {10})},
                       {"tick", MakePackets<int>({0}, {10})}},
                      {}, /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["a_out"]), ElementsAre(5));
  EXPECT_THAT(PacketTimestamps((*out)["a_out"]), ElementsAre(10));
}

TEST(PacketClonerCalculatorTest, LegacyFormUsesLastInputAsTick) {
  auto out = RunGraph(R"pb(
    input_stream: "a"
    input_stream: "tick"
    node {
      calculator: "PacketClonerCalculator"
      input_stream: "a"
      input_stream: "tick"
      output_stream: "a_out"
    }
  )pb",
                      {"a_out"},
                      {{"a", MakePackets<float>({0.5f}, {1})},
                       {"tick", MakePackets<int>({0, 0}, {2, 3})}},
                      {}, /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<float>((*out)["a_out"]), ElementsAre(0.5f, 0.5f));
  EXPECT_THAT(PacketTimestamps((*out)["a_out"]), ElementsAre(2, 3));
}

TEST(PacketClonerCalculatorTest, ContractErrorsNameTheNode) {
  absl::Status s = CheckContract(R"pb(
    name: "cloner"
    calculator: "PacketClonerCalculator"
    input_stream: "a"
    input_stream: "TICK:tick"
    output_stream: "a_out"
    output_stream: "extra"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"cloner\""));
  EXPECT_THAT(s.message(), HasSubstr("clones 1 input streams but has 2"));
  s = CheckContract(R"pb(
    name: "cloner"
    calculator: "PacketClonerCalculator"
    input_stream: "TICK:tick"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("needs a TICK input stream and at least"));
}

TEST(PacketClonerCalculatorTest, ContractUsesImmediateHandler) {
  EXPECT_TRUE(CheckContract(R"pb(
                calculator: "PacketClonerCalculator"
                input_stream: "a"
                input_stream: "TICK:tick"
                output_stream: "a_out"
              )pb")
                  .ok());
}

}  // namespace
}  // namespace rill
