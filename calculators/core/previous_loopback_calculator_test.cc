#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// MAIN is "in"; the loop carries "in" through a gate (closed where "allow"
// is false, so LOOP then only moves its bound) back to LOOP. PRESENCE says
// at each MAIN timestamp whether PREV_LOOP had a packet.
constexpr char kLoopGraph[] = R"pb(
  input_stream: "in"
  input_stream: "allow"
  node {
    calculator: "PreviousLoopbackCalculator"
    input_stream: "MAIN:in"
    input_stream: "LOOP:gated"
    input_stream_info { tag_index: "LOOP" back_edge: true }
    output_stream: "PREV_LOOP:prev"
  }
  node {
    calculator: "PacketPresenceCalculator"
    input_stream: "PACKET:prev"
    output_stream: "PRESENCE:has_prev"
  }
  node {
    calculator: "GateCalculator"
    input_stream: "in"
    input_stream: "ALLOW:allow"
    output_stream: "gated"
  }
)pb";

StreamPackets LoopInputs() {
  return {{"in", MakePackets<int>({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50})},
          {"allow", MakePackets<bool>({true, true, false, true, true},
                                      {10, 20, 30, 40, 50})}};
}

TEST(PreviousLoopbackCalculatorTest, PairsEachFrameWithThePreviousLoopValue) {
  auto out = RunGraph(kLoopGraph, {"prev", "has_prev"}, LoopInputs(), {},
                      /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  // 10: no previous frame; 40: the loop produced nothing at 30.
  EXPECT_THAT(PacketValues<int>((*out)["prev"]), ElementsAre(1, 2, 4));
  EXPECT_THAT(PacketTimestamps((*out)["prev"]), ElementsAre(20, 30, 50));
  // The empty PREV_LOOP at 10 and 40 is a timestamp bound just past the
  // MAIN timestamp, which PacketPresence reports as false there.
  EXPECT_THAT(PacketValues<bool>((*out)["has_prev"]),
              ElementsAre(false, true, true, false, true));
  EXPECT_THAT(PacketTimestamps((*out)["has_prev"]),
              ElementsAre(10, 20, 30, 40, 50));
}

TEST(PreviousLoopbackCalculatorTest, AllFramesAtOnceStillPairByTimestamp) {
  // MAIN runs ahead of the loop and ends before the loop has answered: the
  // node stays open until LOOP ends, so every frame still gets its value.
  auto out = RunGraph(kLoopGraph, {"prev"}, LoopInputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["prev"]), ElementsAre(1, 2, 4));
  EXPECT_THAT(PacketTimestamps((*out)["prev"]), ElementsAre(20, 30, 50));
}

TEST(PreviousLoopbackCalculatorTest, LoopThatWaitsForPrevLoopEnds) {
  // As in a tracking graph, the loop's value at t needs PREV_LOOP at t: a
  // MergeCalculator (default handler) waits for both "in" and "prev" to
  // settle t, then passes "in" on. The run must end once "in" ends.
  constexpr char kGraph[] = R"pb(
    input_stream: "in"
    node {
      calculator: "PreviousLoopbackCalculator"
      input_stream: "MAIN:in"
      input_stream: "LOOP:loop"
      input_stream_info { tag_index: "LOOP" back_edge: true }
      output_stream: "PREV_LOOP:prev"
    }
    node {
      calculator: "MergeCalculator"
      input_stream: "in"
      input_stream: "prev"
      output_stream: "loop"
    }
  )pb";
  for (bool settle : {true, false}) {
    auto out = RunGraph(
        kGraph, {"prev"},
        {{"in", MakePackets<int>({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50})}}, {},
        settle);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(PacketValues<int>((*out)["prev"]), ElementsAre(1, 2, 3, 4));
    EXPECT_THAT(PacketTimestamps((*out)["prev"]), ElementsAre(20, 30, 40, 50));
  }
}

TEST(PreviousLoopbackCalculatorTest, LoopBoundAloneAnswersAWaitingFrame) {
  // Frame 40 arrives before the loop has settled 30; the loop then only
  // moves its bound (the gate is closed at 30). That alone must answer 40
  // (with an empty PREV_LOOP), without waiting for another MAIN packet.
  auto config = ParseGraphConfig(kLoopGraph);
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  std::vector<std::pair<int64_t, bool>> seen;
  ASSERT_TRUE(graph
                  .ObserveOutputStream("has_prev",
                                       [&](const Packet& p) {
                                         seen.emplace_back(
                                             p.Timestamp().Value(),
                                             p.Get<bool>());
                                         return absl::OkStatus();
                                       })
                  .ok());
  ASSERT_TRUE(graph.StartRun().ok());
  auto add = [&](const std::string& stream, Packet p) {
    ASSERT_TRUE(graph.AddPacketToInputStream(stream, std::move(p)).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
  };
  add("in", MakePacket<int>(1).At(Timestamp(10)));
  add("allow", MakePacket<bool>(true).At(Timestamp(10)));
  add("in", MakePacket<int>(2).At(Timestamp(20)));
  add("allow", MakePacket<bool>(true).At(Timestamp(20)));
  add("in", MakePacket<int>(3).At(Timestamp(30)));  // gets 20's value
  add("in", MakePacket<int>(4).At(Timestamp(40)));  // wants 30's value
  EXPECT_THAT(seen, ElementsAre(std::make_pair(int64_t{10}, false),
                                std::make_pair(int64_t{20}, true),
                                std::make_pair(int64_t{30}, true)));
  // The node's last call was MAIN's at 40; now only LOOP's bound moves.
  add("allow", MakePacket<bool>(false).At(Timestamp(30)));
  EXPECT_THAT(seen, ElementsAre(std::make_pair(int64_t{10}, false),
                                std::make_pair(int64_t{20}, true),
                                std::make_pair(int64_t{30}, true),
                                std::make_pair(int64_t{40}, false)));
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
}

TEST(PreviousLoopbackCalculatorTest, ContractNeedsAllThreeStreams) {
  absl::Status s = CheckContract(R"pb(
    calculator: "PreviousLoopbackCalculator"
    input_stream: "MAIN:in"
    output_stream: "PREV_LOOP:prev"
  )pb");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("LOOP"));
}

}  // namespace
}  // namespace rill
