#include <cstdint>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using IntVec = std::vector<int>;

constexpr char kLoopGraph[] = R"pb(
  input_stream: "ints"
  input_stream: "tag"
  node {
    calculator: "BeginLoopIntCalculator"
    input_stream: "ITERABLE:ints"
    input_stream: "CLONE:tag"
    output_stream: "ITEM:item"
    output_stream: "CLONE:item_tag"
    output_stream: "BATCH_END:end"
  }
  node {
    calculator: "PassThroughCalculator"
    input_stream: "item"
    output_stream: "item_out"
  }
  node {
    calculator: "EndLoopIntCalculator"
    input_stream: "ITEM:item_out"
    input_stream: "BATCH_END:end"
    output_stream: "ITERABLE:ints_out"
  }
)pb";

StreamPackets LoopInputs() {
  return {{"ints",
           {MakePacket<IntVec>(IntVec{1, 2, 3}).At(Timestamp(100)),
            MakePacket<IntVec>(IntVec{}).At(Timestamp(200)),
            MakePacket<IntVec>(IntVec{4}).At(Timestamp(300))}},
          {"tag", MakePackets<std::string>({"a", "b", "c"}, {100, 200, 300})}};
}

TEST(BeginLoopCalculatorTest, ItemsGetConsecutiveLoopTimestamps) {
  auto out = RunGraph(kLoopGraph, {"item", "end", "item_tag"}, LoopInputs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["item"]), ElementsAre(1, 2, 3, 4));
  // The empty batch takes loop timestamp 3 for its BATCH_END.
  EXPECT_THAT(PacketTimestamps((*out)["item"]), ElementsAre(0, 1, 2, 4));
  // BATCH_END carries the input timestamp, at the last item's timestamp.
  EXPECT_THAT(PacketValues<Timestamp>((*out)["end"]),
              ElementsAre(Timestamp(100), Timestamp(200), Timestamp(300)));
  EXPECT_THAT(PacketTimestamps((*out)["end"]), ElementsAre(2, 3, 4));
  // CLONE repeats the side input at every item.
  EXPECT_THAT(PacketValues<std::string>((*out)["item_tag"]),
              ElementsAre("a", "a", "a", "c"));
  EXPECT_THAT(PacketTimestamps((*out)["item_tag"]), ElementsAre(0, 1, 2, 4));
}

TEST(BeginLoopCalculatorTest, EndLoopRebuildsTheVectorsAtInputTimestamps) {
  auto out = RunGraph(kLoopGraph, {"ints_out"}, LoopInputs());
  ASSERT_TRUE(out.ok()) << out.status();
  // The empty vector produces no packet, only a bound.
  EXPECT_THAT(PacketValues<IntVec>((*out)["ints_out"]),
              ElementsAre(IntVec{1, 2, 3}, IntVec{4}));
  EXPECT_THAT(PacketTimestamps((*out)["ints_out"]), ElementsAre(100, 300));
}

// A timestamp where ITERABLE has no packet (its bound passed it, CLONE has
// one) still gets its BATCH_END, as in MediaPipe: the loop's EndLoop then
// moves its bound instead of leaving the frame waiting.
TEST(BeginLoopCalculatorTest, MissingIterableStillEndsTheBatch) {
  StreamPackets inputs = {
      {"ints",
       {MakePacket<IntVec>(IntVec{1}).At(Timestamp(100)),
        MakePacket<IntVec>(IntVec{2}).At(Timestamp(300))}},
      {"tag", MakePackets<std::string>({"a", "b", "c"}, {100, 200, 300})}};
  auto out = RunGraph(kLoopGraph, {"item", "end", "ints_out"}, inputs,
                      /*side_packets=*/{}, /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<Timestamp>((*out)["end"]),
              ElementsAre(Timestamp(100), Timestamp(200), Timestamp(300)));
  EXPECT_THAT(PacketValues<int>((*out)["item"]), ElementsAre(1, 2));
  EXPECT_THAT(PacketTimestamps((*out)["ints_out"]), ElementsAre(100, 300));
}

TEST(BeginLoopCalculatorTest, FloatLoop) {
  using FloatVec = std::vector<float>;
  auto out = RunGraph(R"pb(
    input_stream: "v"
    node {
      calculator: "BeginLoopFloatCalculator"
      input_stream: "ITERABLE:v"
      output_stream: "ITEM:x"
      output_stream: "BATCH_END:end"
    }
    node {
      calculator: "EndLoopFloatCalculator"
      input_stream: "ITEM:x"
      input_stream: "BATCH_END:end"
      output_stream: "ITERABLE:v_out"
    }
  )pb",
                      {"v_out"},
                      {{"v", {MakePacket<FloatVec>(FloatVec{0.5f, 1.5f})
                                  .At(Timestamp(10)),
                              MakePacket<FloatVec>(FloatVec{2.5f})
                                  .At(Timestamp(20))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<FloatVec>((*out)["v_out"]),
              ElementsAre(FloatVec{0.5f, 1.5f}, FloatVec{2.5f}));
  EXPECT_THAT(PacketTimestamps((*out)["v_out"]), ElementsAre(10, 20));
}

TEST(BeginLoopCalculatorTest, ContractErrors) {
  absl::Status s = CheckContract(R"pb(
    name: "loop"
    calculator: "BeginLoopIntCalculator"
    input_stream: "ITERABLE:v"
    input_stream: "CLONE:0:a"
    input_stream: "CLONE:1:b"
    output_stream: "ITEM:x"
    output_stream: "CLONE:a_out"
    output_stream: "BATCH_END:end"
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"loop\""));
  EXPECT_THAT(s.message(), HasSubstr("2 CLONE input streams but 1"));
  s = CheckContract(R"pb(
    name: "loop"
    calculator: "BeginLoopIntCalculator"
    input_stream: "v"
    output_stream: "ITEM:x"
    output_stream: "BATCH_END:end"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("needs an ITERABLE input stream"));
  s = CheckContract(R"pb(
    name: "loop"
    calculator: "BeginLoopIntCalculator"
    input_stream: "ITERABLE:v"
    output_stream: "ITEM:x"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("needs ITEM and BATCH_END"));
}

}  // namespace
}  // namespace rill
