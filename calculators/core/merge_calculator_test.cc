#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;

TEST(MergeCalculatorTest, FirstStreamWithAPacketWins) {
  auto out = RunGraph(R"pb(
                        input_stream: "a"
                        input_stream: "b"
                        node {
                          calculator: "MergeCalculator"
                          input_stream: "a"
                          input_stream: "b"
                          output_stream: "merged"
                        }
                      )pb",
                      {"merged"},
                      {{"a", MakePackets<int>({1, 3}, {1, 3})},
                       {"b", MakePackets<int>({20, 30, 40}, {2, 3, 4})}});
  ASSERT_TRUE(out.ok()) << out.status();
  // At 3 both have one: a (index 0) wins.
  EXPECT_THAT(PacketValues<int>((*out)["merged"]), ElementsAre(1, 20, 3, 40));
  EXPECT_THAT(PacketTimestamps((*out)["merged"]), ElementsAre(1, 2, 3, 4));
}

TEST(MergeCalculatorTest, NeedsAnInput) {
  EXPECT_FALSE(CheckContract(R"pb(
                 calculator: "MergeCalculator" output_stream: "out"
               )pb")
                   .ok());
}

}  // namespace
}  // namespace rill
