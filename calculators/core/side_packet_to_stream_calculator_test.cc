#include <string>

#include "calculators/core/test_util.h"
#include "framework/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SidePacketToStreamCalculatorTest, EmitsOnceAtTheTaggedTimestamp) {
  for (const auto& [tag, ts] : std::vector<std::pair<std::string, Timestamp>>{
           {"AT_PRESTREAM", Timestamp::PreStream()},
           {"AT_ZERO", Timestamp(0)},
           {"AT_POSTSTREAM", Timestamp::PostStream()}}) {
    auto out = RunGraph(R"pb(
      input_side_packet: "a" input_side_packet: "b"
      node { calculator: "SidePacketToStreamCalculator"
             input_side_packet: "a" input_side_packet: "b"
             output_stream: ")pb" + tag + R"pb(:0:x"
             output_stream: ")pb" + tag + R"pb(:1:y" }
    )pb",
                        {"x", "y"}, {},
                        {{"a", MakePacket<int>(3)}, {"b", MakePacket<std::string>("s")}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(PacketValues<int>((*out)["x"]), ElementsAre(3)) << tag;
    EXPECT_THAT(PacketValues<std::string>((*out)["y"]), ElementsAre("s")) << tag;
    EXPECT_THAT(PacketTimestamps((*out)["x"]), ElementsAre(ts.Value())) << tag;
  }
}

TEST(SidePacketToStreamCalculatorTest, AtTimestamp) {
  auto out = RunGraph(R"pb(
    input_side_packet: "a" input_side_packet: "t"
    node { calculator: "SidePacketToStreamCalculator" input_side_packet: "a"
           input_side_packet: "TIMESTAMP:t" output_stream: "AT_TIMESTAMP:x" }
  )pb",
                      {"x"}, {},
                      {{"a", MakePacket<int>(5)}, {"t", MakePacket<int64_t>(1234)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["x"]), ElementsAre(1234));
}

TEST(SidePacketToStreamCalculatorTest, AtEveryAndFirstTick) {
  const std::string graph = R"pb(
    input_stream: "tick" input_side_packet: "a"
    node { calculator: "SidePacketToStreamCalculator" input_stream: "TICK:tick"
           input_side_packet: "a" output_stream: "AT_TICK:every" }
    node { calculator: "SidePacketToStreamCalculator" input_stream: "TICK:tick"
           input_side_packet: "a" output_stream: "AT_FIRST_TICK:first" }
  )pb";
  auto out = RunGraph(graph, {"every", "first"},
                      {{"tick", MakePackets<int>({0, 0, 0}, {10, 20, 30})}},
                      {{"a", MakePacket<int>(9)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["every"]), ElementsAre(10, 20, 30));
  EXPECT_THAT(PacketValues<int>((*out)["every"]), ElementsAre(9, 9, 9));
  EXPECT_THAT(PacketTimestamps((*out)["first"]), ElementsAre(10));
}

// AT_TICK follows TICK's bound: a timestamp the tick stream settles without
// a packet (here every tick is gated off) settles the output too, as in
// MediaPipe, so PacketPresence says false there instead of waiting.
TEST(SidePacketToStreamCalculatorTest, AtTickFollowsTheTicksBound) {
  const char graph[] = R"pb(
    input_stream: "frames"
    input_side_packet: "a"
    input_side_packet: "allow"
    node { calculator: "GateCalculator" input_stream: "frames"
           input_side_packet: "ALLOW:allow" output_stream: "tick" }
    node { calculator: "SidePacketToStreamCalculator" input_stream: "TICK:tick"
           input_side_packet: "a" output_stream: "AT_TICK:every" }
    node { calculator: "PacketPresenceCalculator" input_stream: "PACKET:every"
           output_stream: "PRESENCE:present" }
  )pb";
  auto out = RunGraph(graph, {"present"},
                      {{"frames", MakePackets<int>({0, 0}, {10, 20})}},
                      {{"a", MakePacket<int>(9)}, {"allow", MakePacket<bool>(false)}},
                      /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["present"]), ElementsAre(10, 20));
  EXPECT_THAT(PacketValues<bool>((*out)["present"]), ElementsAre(false, false));
}

TEST(SidePacketToStreamCalculatorTest, ContractErrors) {
  EXPECT_THAT(std::string(CheckContract(R"pb(
    calculator: "SidePacketToStreamCalculator" input_side_packet: "a"
    output_stream: "AT_TICK:x")pb").message()), HasSubstr("TICK input"));
  EXPECT_THAT(std::string(CheckContract(R"pb(
    calculator: "SidePacketToStreamCalculator" input_side_packet: "a"
    input_side_packet: "b" output_stream: "AT_ZERO:x")pb").message()),
              HasSubstr("must match"));
  EXPECT_THAT(std::string(CheckContract(R"pb(
    calculator: "SidePacketToStreamCalculator" input_side_packet: "a"
    output_stream: "x")pb").message()), HasSubstr("exactly one"));
}

}  // namespace
}  // namespace rill
