#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PassThroughCalculatorTest, ForwardsStreamsByIndex) {
  auto out = RunGraph(R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      calculator: "PassThroughCalculator"
      input_stream: "a"
      input_stream: "b"
      output_stream: "x"
      output_stream: "y"
    }
  )pb",
                      {"x", "y"},
                      {{"a", MakePackets<int>({1, 2}, {10, 20})},
                       {"b", MakePackets<std::string>({"s"}, {20})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["x"]), ElementsAre(1, 2));
  EXPECT_THAT(PacketTimestamps((*out)["x"]), ElementsAre(10, 20));
  EXPECT_THAT(PacketValues<std::string>((*out)["y"]), ElementsAre("s"));
  EXPECT_THAT(PacketTimestamps((*out)["y"]), ElementsAre(20));
}

TEST(PassThroughCalculatorTest, MatchesTaggedStreamsByTag) {
  // Outputs are listed in another order than the inputs: tags decide.
  auto out = RunGraph(R"pb(
    input_stream: "a"
    input_stream: "b"
    node {
      calculator: "PassThroughCalculator"
      input_stream: "IMAGE:a"
      input_stream: "COUNT:b"
      output_stream: "COUNT:count_out"
      output_stream: "IMAGE:image_out"
    }
  )pb",
                      {"image_out", "count_out"},
                      {{"a", MakePackets<std::string>({"img"}, {5})},
                       {"b", MakePackets<int>({7}, {5})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<std::string>((*out)["image_out"]),
              ElementsAre("img"));
  EXPECT_THAT(PacketValues<int>((*out)["count_out"]), ElementsAre(7));
  EXPECT_THAT(PacketTimestamps((*out)["count_out"]), ElementsAre(5));
}

TEST(PassThroughCalculatorTest, KeepsPayloadIdentity) {
  std::vector<Packet> in = {MakePacket<std::vector<int>>(1000, 3).At(
      Timestamp(1))};
  auto out = RunGraph(R"pb(
    input_stream: "a"
    node {
      calculator: "PassThroughCalculator"
      input_stream: "a"
      output_stream: "x"
    }
  )pb",
                      {"x"}, {{"a", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["x"].size(), 1u);
  EXPECT_EQ((*out)["x"][0].PayloadId(), in[0].PayloadId());
}

TEST(PassThroughCalculatorTest, ForwardsSidePackets) {
  auto config = ParseGraphConfig(R"pb(
    input_side_packet: "threshold"
    node {
      calculator: "PassThroughCalculator"
      input_side_packet: "threshold"
      output_side_packet: "threshold_copy"
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  absl::Status run = graph.Run({{"threshold", MakePacket<float>(0.25f)}});
  ASSERT_TRUE(run.ok()) << run;
  auto copy = graph.GetOutputSidePacket("threshold_copy");
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(copy->Get<float>(), 0.25f);
}

TEST(PassThroughCalculatorTest, MismatchedPortCountsAreAnError) {
  absl::Status s = CheckContract(R"pb(
    name: "relay"
    calculator: "PassThroughCalculator"
    input_stream: "a"
    input_stream: "b"
    output_stream: "x"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"relay\""));
  EXPECT_THAT(s.message(), HasSubstr("2 input streams but 1 output"));

  s = CheckContract(R"pb(
    name: "relay"
    calculator: "PassThroughCalculator"
    input_side_packet: "a"
    output_side_packet: "x"
    output_side_packet: "y"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("side packet"));
}

TEST(PassThroughCalculatorTest, ContractDeclaresSameTypes) {
  EXPECT_TRUE(CheckContract(R"pb(
                calculator: "PassThroughCalculator"
                input_stream: "A:a"
                input_stream: "B:b"
                output_stream: "A:x"
                output_stream: "B:y"
              )pb")
                  .ok());
}

}  // namespace
}  // namespace rill
