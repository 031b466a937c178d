#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// EndLoop fed directly: items at loop timestamps, BATCH_END naming the
// timestamp of the result.
TEST(EndLoopCalculatorTest, CollectsItemsUntilBatchEnd) {
  auto out = RunGraph(R"pb(
    input_stream: "item"
    input_stream: "end"
    node {
      calculator: "EndLoopBooleanCalculator"
      input_stream: "ITEM:item"
      input_stream: "BATCH_END:end"
      output_stream: "ITERABLE:flags"
    }
  )pb",
                      {"flags"},
                      {{"item", MakePackets<bool>({true, false, true},
                                                  {0, 1, 3})},
                       {"end", {MakePacket<Timestamp>(Timestamp(1000))
                                    .At(Timestamp(1)),
                                MakePacket<Timestamp>(Timestamp(2000))
                                    .At(Timestamp(2)),
                                MakePacket<Timestamp>(Timestamp(3000))
                                    .At(Timestamp(3))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  // Nothing collected for the batch ending at 2: no packet at 2000.
  EXPECT_THAT(PacketValues<std::vector<bool>>((*out)["flags"]),
              ElementsAre(std::vector<bool>{true, false},
                          std::vector<bool>{true}));
  EXPECT_THAT(PacketTimestamps((*out)["flags"]), ElementsAre(1000, 3000));
}

TEST(EndLoopCalculatorTest, ContractErrors) {
  absl::Status s = CheckContract(R"pb(
    name: "end"
    calculator: "EndLoopIntCalculator"
    input_stream: "ITEM:x"
    output_stream: "ITERABLE:v"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"end\""));
  EXPECT_THAT(s.message(), HasSubstr("BATCH_END"));
}

}  // namespace
}  // namespace rill
