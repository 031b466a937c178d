#include <cstdint>
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

TEST(ConstantSidePacketCalculatorTest, EmitsEveryValueType) {
  auto config = ParseGraphConfig(R"pb(
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:0:i"
      output_side_packet: "PACKET:1:f"
      output_side_packet: "PACKET:2:b"
      output_side_packet: "PACKET:3:s"
      output_side_packet: "PACKET:4:u"
      output_side_packet: "PACKET:5:l"
      output_side_packet: "PACKET:6:d"
      options {
        [mediapipe.ConstantSidePacketCalculatorOptions.ext] {
          packet { int_value: -3 }
          packet { float_value: 0.5 }
          packet { bool_value: true }
          packet { string_value: "face" }
          packet { uint64_value: 18446744073709551615 }
          packet { int64_value: -9000000000 }
          packet { double_value: 2.25 }
        }
      }
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  absl::Status run = graph.Run();
  ASSERT_TRUE(run.ok()) << run;
  auto get = [&](const char* name) {
    auto p = graph.GetOutputSidePacket(name);
    EXPECT_TRUE(p.ok()) << name << ": " << p.status();
    return p.ok() ? *p : Packet();
  };
  EXPECT_EQ(get("i").Get<int>(), -3);
  EXPECT_EQ(get("f").Get<float>(), 0.5f);
  EXPECT_EQ(get("b").Get<bool>(), true);
  EXPECT_EQ(get("s").Get<std::string>(), "face");
  EXPECT_EQ(get("u").Get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(get("l").Get<int64_t>(), -9000000000LL);
  EXPECT_EQ(get("d").Get<double>(), 2.25);
}

TEST(ConstantSidePacketCalculatorTest, FeedsOtherNodes) {
  // The constant opens a gate for the whole run.
  auto out = RunGraph(R"pb(
    input_stream: "data"
    node {
      calculator: "ConstantSidePacketCalculator"
      output_side_packet: "PACKET:open"
      options {
        [rill.ConstantSidePacketCalculatorOptions.ext] {
          packet { int_value: 11 }
        }
      }
    }
    node {
      calculator: "PassThroughCalculator"
      input_stream: "data"
      input_side_packet: "open"
      output_stream: "data_out"
      output_side_packet: "open_copy"
    }
  )pb",
                      {"data_out"},
                      {{"data", MakePackets<int>({1, 2}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["data_out"]), ElementsAre(1, 2));
}

TEST(ConstantSidePacketCalculatorTest, CountMismatchIsAnError) {
  absl::Status s = CheckContract(R"pb(
    name: "constants"
    calculator: "ConstantSidePacketCalculator"
    output_side_packet: "PACKET:0:a"
    output_side_packet: "PACKET:1:b"
    options {
      [rill.ConstantSidePacketCalculatorOptions.ext] {
        packet { int_value: 1 }
      }
    }
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"constants\""));
  EXPECT_THAT(s.message(), HasSubstr("2 PACKET output side packets"));
}

TEST(ConstantSidePacketCalculatorTest, UnsetValueIsAnError) {
  absl::Status s = CheckContract(R"pb(
    name: "constants"
    calculator: "ConstantSidePacketCalculator"
    output_side_packet: "PACKET:a"
    options { [rill.ConstantSidePacketCalculatorOptions.ext] { packet {} } }
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("packet[0] has no value set"));
}

TEST(ConstantSidePacketCalculatorTest, UntaggedSidePacketIsAnError) {
  absl::Status s = CheckContract(R"pb(
    name: "constants"
    calculator: "ConstantSidePacketCalculator"
    output_side_packet: "a"
    options {
      [rill.ConstantSidePacketCalculatorOptions.ext] {
        packet { int_value: 1 }
      }
    }
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("must be tagged PACKET"));
}

}  // namespace
}  // namespace rill
