#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;

TEST(PacketPresenceCalculatorTest, TrueForPacketsFalseForBoundsAlone) {
  // The gate (offset 0) moves its output's bound where it is closed.
  auto out = RunGraph(R"pb(
                        input_stream: "in"
                        input_stream: "allow"
                        node {
                          calculator: "GateCalculator"
                          input_stream: "in"
                          input_stream: "ALLOW:allow"
                          output_stream: "gated"
                        }
                        node {
                          calculator: "PacketPresenceCalculator"
                          input_stream: "PACKET:gated"
                          output_stream: "PRESENCE:present"
                        }
                      )pb",
                      {"present"},
                      {{"in", MakePackets<int>({1, 2, 3, 4}, {1, 2, 3, 4})},
                       {"allow", MakePackets<bool>({true, false, false, true},
                                                   {1, 2, 3, 4})}},
                      {}, /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<bool>((*out)["present"]),
              ElementsAre(true, false, false, true));
  EXPECT_THAT(PacketTimestamps((*out)["present"]), ElementsAre(1, 2, 3, 4));
}

}  // namespace
}  // namespace rill
