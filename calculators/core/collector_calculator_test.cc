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
using ::testing::IsEmpty;

TEST(CollectorCalculatorTest, CollectsEachStreamIntoItsVector) {
  auto config = ParseGraphConfig(R"pb(
    input_stream: "a"
    input_stream: "b"
    input_side_packet: "a_sink"
    input_side_packet: "b_sink"
    node {
      calculator: "CollectorCalculator"
      input_stream: "a"
      input_stream: "b"
      input_side_packet: "a_sink"
      input_side_packet: "b_sink"
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  std::vector<Packet> a_sink, b_sink;
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  ASSERT_TRUE(graph
                  .StartRun({{"a_sink", MakePacket<std::vector<Packet>*>(&a_sink)},
                             {"b_sink", MakePacket<std::vector<Packet>*>(&b_sink)}})
                  .ok());
  ASSERT_TRUE(
      graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(5)))
          .ok());
  ASSERT_TRUE(
      graph.AddPacketToInputStream("a", MakePacket<int>(2).At(Timestamp(6)))
          .ok());
  ASSERT_TRUE(graph
                  .AddPacketToInputStream(
                      "b", MakePacket<std::string>("z").At(Timestamp(6)))
                  .ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  absl::Status s = graph.WaitUntilDone();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(PacketValues<int>(a_sink), ElementsAre(1, 2));
  EXPECT_THAT(PacketTimestamps(a_sink), ElementsAre(5, 6));
  EXPECT_THAT(PacketValues<std::string>(b_sink), ElementsAre("z"));
}

TEST(CollectorCalculatorTest, TaggedPorts) {
  std::vector<Packet> sink;
  auto out = RunGraph(R"pb(
    input_stream: "a"
    input_side_packet: "sink"
    node {
      calculator: "CollectorCalculator"
      input_stream: "PACKETS:a"
      input_side_packet: "PACKETS:sink"
    }
  )pb",
                      {}, {{"a", MakePackets<int>({3}, {1})}},
                      {{"sink", MakePacket<std::vector<Packet>*>(&sink)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>(sink), ElementsAre(3));
}

TEST(CollectorCalculatorTest, NullSinkFailsTheRun) {
  auto out = RunGraph(R"pb(
    input_stream: "a"
    input_side_packet: "sink"
    node {
      name: "collect"
      calculator: "CollectorCalculator"
      input_stream: "a"
      input_side_packet: "sink"
    }
  )pb",
                      {}, {{"a", MakePackets<int>({3}, {1})}},
                      {{"sink", MakePacket<std::vector<Packet>*>(nullptr)}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("collect"));
  EXPECT_THAT(out.status().message(), HasSubstr("null"));
}

TEST(CollectorCalculatorTest, MissingSinkIsAContractError) {
  absl::Status s = CheckContract(R"pb(
    name: "collect"
    calculator: "CollectorCalculator"
    input_stream: "a"
    input_stream: "b"
    input_side_packet: "sink"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"collect\" has 2 input streams and 1"));
}

TEST(TestUtilTest, ParseErrorsSayWhere) {
  auto config = ParseGraphConfig("node { calculator: }");
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("<test config>:1:"));
  auto out = RunGraph("node {", {});
  EXPECT_FALSE(out.ok());
}

TEST(TestUtilTest, RunGraphReportsUnobservedStreamsAsEmpty) {
  auto out = RunGraph(R"pb(
    input_stream: "a"
    node {
      calculator: "PassThroughCalculator"
      input_stream: "a"
      output_stream: "b"
    }
  )pb",
                      {"b"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)["b"], IsEmpty());
}

}  // namespace
}  // namespace rill
