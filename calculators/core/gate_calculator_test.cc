#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string StreamGate(const std::string& control_tag,
                       const std::string& options) {
  return R"pb(
    input_stream: "data"
    input_stream: "control"
    node {
      name: "gate"
      calculator: "GateCalculator"
      input_stream: "data"
      input_stream: ")pb" +
         control_tag + R"pb(:control"
      output_stream: "gated"
      output_stream: "STATE_CHANGE:changed"
      options { [rill.GateCalculatorOptions.ext] { )pb" +
         options + "}}}";
}

StreamPackets Data(std::vector<bool> control, std::vector<int64_t> control_ts) {
  return {{"data", MakePackets<int>({1, 2, 3, 4}, {1, 2, 3, 4})},
          {"control", MakePackets<bool>(control, control_ts)}};
}

TEST(GateCalculatorTest, AllowStream) {
  // No control packet at 3: closed.
  auto out = RunGraph(StreamGate("ALLOW", ""), {"gated", "changed"},
                      Data({true, false, true}, {1, 2, 4}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["gated"]), ElementsAre(1, 4));
  EXPECT_THAT(PacketTimestamps((*out)["gated"]), ElementsAre(1, 4));
  // The first decision is no change (initial state uninitialized).
  EXPECT_THAT(PacketValues<bool>((*out)["changed"]), ElementsAre(false, true));
  EXPECT_THAT(PacketTimestamps((*out)["changed"]), ElementsAre(2, 4));
}

TEST(GateCalculatorTest, EmptyPacketsAsAllow) {
  auto out = RunGraph(StreamGate("ALLOW", "empty_packets_as_allow: true"),
                      {"gated", "changed"},
                      Data({true, false, true}, {1, 2, 4}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["gated"]), ElementsAre(1, 3, 4));
  EXPECT_THAT(PacketTimestamps((*out)["changed"]), ElementsAre(2, 3));
}

TEST(GateCalculatorTest, DisallowStream) {
  auto out = RunGraph(StreamGate("DISALLOW", ""), {"gated"},
                      Data({true, false, false, true}, {1, 2, 3, 4}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["gated"]), ElementsAre(2, 3));
}

TEST(GateCalculatorTest, InitialGateStateReportsTheFirstChange) {
  auto out = RunGraph(StreamGate("ALLOW", "initial_gate_state: GATE_DISALLOW"),
                      {"changed"}, Data({true, true, true, true}, {1, 2, 3, 4}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<bool>((*out)["changed"]), ElementsAre(true));
  EXPECT_THAT(PacketTimestamps((*out)["changed"]), ElementsAre(1));
}

std::string SideGate(const std::string& side) {
  return R"pb(
    input_stream: "data"
    input_side_packet: "flag"
    node {
      calculator: "GateCalculator"
      input_stream: "data"
      input_side_packet: ")pb" +
         side + R"pb(:flag"
      output_stream: "gated"
    }
  )pb";
}

TEST(GateCalculatorTest, SidePackets) {
  const StreamPackets in = {{"data", MakePackets<int>({1, 2}, {1, 2})}};
  auto out = RunGraph(SideGate("ALLOW"), {"gated"}, in,
                      {{"flag", MakePacket<bool>(true)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["gated"]), ElementsAre(1, 2));
  out = RunGraph(SideGate("ALLOW"), {"gated"}, in,
                 {{"flag", MakePacket<bool>(false)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)["gated"], IsEmpty());
  out = RunGraph(SideGate("DISALLOW"), {"gated"}, in,
                 {{"flag", MakePacket<bool>(false)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["gated"]), ElementsAre(1, 2));
}

TEST(GateCalculatorTest, OptionAllowWithoutControl) {
  const char* graph = R"pb(
    input_stream: "data"
    node {
      calculator: "GateCalculator"
      input_stream: "data"
      output_stream: "gated"
      options { [mediapipe.GateCalculatorOptions.ext] { allow: true } }
    }
  )pb";
  auto out = RunGraph(graph, {"gated"},
                      {{"data", MakePackets<int>({7, 8}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["gated"]), ElementsAre(7, 8));
}

TEST(GateCalculatorTest, ClosedGateDoesNotStallDownstream) {
  // A node with two inputs, one of them gated shut, keeps running on the
  // bounds the gate passes on.
  auto out = RunGraph(R"pb(
    input_stream: "data"
    input_stream: "other"
    node {
      calculator: "GateCalculator"
      input_stream: "data"
      output_stream: "gated"
    }
    node {
      calculator: "PassThroughCalculator"
      input_stream: "gated"
      input_stream: "other"
      output_stream: "gated_out"
      output_stream: "other_out"
    }
  )pb",
                      {"other_out"},
                      {{"data", MakePackets<int>({1, 2}, {1, 2})},
                       {"other", MakePackets<int>({5, 6}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["other_out"]), ElementsAre(1, 2));
}

TEST(GateCalculatorTest, TwoControlsAreAnError) {
  absl::Status s = CheckContract(R"pb(
    name: "gate"
    calculator: "GateCalculator"
    input_stream: "data"
    input_stream: "ALLOW:a"
    input_side_packet: "DISALLOW:d"
    output_stream: "gated"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"gate\""));
  EXPECT_THAT(s.message(), HasSubstr("only one of the ALLOW or DISALLOW"));
}

TEST(GateCalculatorTest, MismatchedOutputsAreAnError) {
  absl::Status s = CheckContract(R"pb(
    name: "gate"
    calculator: "GateCalculator"
    input_stream: "a"
    input_stream: "b"
    input_stream: "ALLOW:allow"
    output_stream: "a_out"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("2 untagged input streams but 1"));
}

}  // namespace
}  // namespace rill
