#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/calculator_base.h"
#include "framework/graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Drives a FlowLimiterCalculator whose FINISHED input is a graph input, so
// that each test decides exactly when a frame counts as finished.
class FlowLimiterHarness {
 public:
  explicit FlowLimiterHarness(const std::string& options) {
    auto config = ParseGraphConfig(R"pb(
      input_stream: "in"
      input_stream: "finished"
      node {
        name: "limiter"
        calculator: "FlowLimiterCalculator"
        input_stream: "in"
        input_stream: "FINISHED:finished"
        output_stream: "out"
        output_stream: "ALLOW:allow"
        options { [rill.FlowLimiterCalculatorOptions.ext] { )pb" +
                                   options + "}}}");
    EXPECT_TRUE(config.ok()) << config.status();
    EXPECT_TRUE(graph_.Initialize(*config).ok());
    for (const char* stream : {"out", "allow"}) {
      std::vector<Packet>* sink = stream[0] == 'o' ? &out_ : &allow_;
      EXPECT_TRUE(graph_
                      .ObserveOutputStream(stream,
                                           [this, sink](const Packet& p) {
                                             std::lock_guard<std::mutex> l(mu_);
                                             sink->push_back(p);
                                             return absl::OkStatus();
                                           })
                      .ok());
    }
    EXPECT_TRUE(graph_.StartRun({}).ok());
  }

  void Frame(int64_t ts) { Add("in", MakePacket<int>(ts).At(Timestamp(ts))); }
  void Finished(int64_t ts) {
    Add("finished", MakePacket<int>(ts).At(Timestamp(ts)));
  }
  void Finish() {
    EXPECT_TRUE(graph_.CloseAllInputStreams().ok());
    absl::Status s = graph_.WaitUntilDone();
    EXPECT_TRUE(s.ok()) << s;
  }
  std::vector<int64_t> OutTimestamps() {
    std::lock_guard<std::mutex> l(mu_);
    return PacketTimestamps(out_);
  }
  std::vector<bool> Allowed() {
    std::lock_guard<std::mutex> l(mu_);
    return PacketValues<bool>(allow_);
  }
  std::vector<int64_t> AllowTimestamps() {
    std::lock_guard<std::mutex> l(mu_);
    return PacketTimestamps(allow_);
  }

 private:
  void Add(const std::string& stream, Packet p) {
    absl::Status s = graph_.AddPacketToInputStream(stream, std::move(p));
    EXPECT_TRUE(s.ok()) << s;
    s = graph_.WaitUntilIdle();
    EXPECT_TRUE(s.ok()) << s;
  }

  CalculatorGraph graph_;
  std::mutex mu_;
  std::vector<Packet> out_, allow_;
};

TEST(FlowLimiterCalculatorTest, DropsFramesWhileOneIsInFlight) {
  FlowLimiterHarness h("");  // max_in_flight 1, max_in_queue 0
  h.Frame(1);
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1));
  h.Frame(2);  // 1 is still in flight: dropped
  h.Frame(3);  // dropped
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1));
  h.Finished(1);
  h.Frame(4);
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1, 4));
  h.Finish();
  EXPECT_THAT(h.AllowTimestamps(), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(h.Allowed(), ElementsAre(true, false, false, true));
}

TEST(FlowLimiterCalculatorTest, MaxInFlightTwo) {
  FlowLimiterHarness h("max_in_flight: 2");
  h.Frame(1);
  h.Frame(2);
  h.Frame(3);  // 1 and 2 are in flight
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1, 2));
  h.Finished(1);
  h.Frame(4);  // released: 2 and 4 in flight
  h.Frame(5);  // dropped
  h.Finished(2);
  h.Finished(4);
  h.Frame(6);
  h.Finish();
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1, 2, 4, 6));
  EXPECT_THAT(h.Allowed(),
              ElementsAre(true, true, false, true, false, true));
}

TEST(FlowLimiterCalculatorTest, QueuesUpToMaxInQueueKeepingTheNewest) {
  FlowLimiterHarness h("max_in_queue: 1");
  h.Frame(1);  // released
  h.Frame(2);  // queued
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1));
  h.Frame(3);  // queue over its size: 2 (the oldest) is dropped, 3 waits
  h.Finished(1);  // 3 goes
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1, 3));
  h.Frame(4);  // queued
  h.Finish();  // the input ends: queued 4 is dropped
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(1, 3));
  EXPECT_THAT(h.AllowTimestamps(), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(h.Allowed(), ElementsAre(true, false, true, false));
}

TEST(FlowLimiterCalculatorTest, InFlightFramesTimeOut) {
  FlowLimiterHarness h("in_flight_timeout: 10");
  h.Frame(0);
  h.Frame(5);   // 0 in flight for 5us: dropped
  h.Frame(20);  // 0 presumed lost after 10us: 20 goes
  h.Frame(25);  // 20 in flight
  h.Finish();
  EXPECT_THAT(h.OutTimestamps(), ElementsAre(0, 20));
  EXPECT_THAT(h.Allowed(), ElementsAre(true, false, true, false));
}

// Sleeps on every packet, then emits it: a slow section of a graph. Counts
// how many packets it holds at once.
std::atomic<int> g_busy{0};
std::atomic<int> g_max_busy{0};
std::atomic<int> g_processed{0};

class SlowPassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(&cc->Inputs().Index(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    const int busy = ++g_busy;
    int seen = g_max_busy.load();
    while (busy > seen && !g_max_busy.compare_exchange_weak(seen, busy)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    ++g_processed;
    --g_busy;
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(SlowPassThroughCalculator);

void RunWithSlowDownstream(int max_in_flight, int slow_parallelism) {
  g_busy = 0;
  g_max_busy = 0;
  g_processed = 0;
  auto config = ParseGraphConfig(absl::StrCat(R"pb(
    input_stream: "in"
    num_threads: 4
    node {
      name: "limiter"
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:done"
      input_stream_info { tag_index: "FINISHED" back_edge: true }
      output_stream: "throttled"
      output_stream: "ALLOW:allow"
      options {
        [rill.FlowLimiterCalculatorOptions.ext] { max_in_flight: )pb",
                                              max_in_flight, R"pb( }
      }
    }
    node {
      calculator: "SlowPassThroughCalculator"
      input_stream: "throttled"
      output_stream: "done"
      max_in_flight: )pb",
                                              slow_parallelism, "}"));
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  std::mutex mu;
  std::vector<Packet> done, allow;
  ASSERT_TRUE(graph
                  .ObserveOutputStream("done",
                                       [&](const Packet& p) {
                                         std::lock_guard<std::mutex> l(mu);
                                         done.push_back(p);
                                         return absl::OkStatus();
                                       })
                  .ok());
  ASSERT_TRUE(graph
                  .ObserveOutputStream("allow",
                                       [&](const Packet& p) {
                                         std::lock_guard<std::mutex> l(mu);
                                         allow.push_back(p);
                                         return absl::OkStatus();
                                       })
                  .ok());
  ASSERT_TRUE(graph.StartRun({}).ok());
  constexpr int kFrames = 40;
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_TRUE(
        graph.AddPacketToInputStream("in", MakePacket<int>(i).At(Timestamp(i)))
            .ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  absl::Status s = graph.WaitUntilDone();
  ASSERT_TRUE(s.ok()) << s;

  // Frames arrive about 7x faster than the slow node runs: most are dropped.
  EXPECT_LT(done.size(), kFrames / 2u);
  EXPECT_GE(done.size(), 2u);
  // Every frame got a decision, and the allowed ones are those that came out.
  ASSERT_EQ(allow.size(), static_cast<size_t>(kFrames));
  std::vector<int64_t> allowed_ts;
  for (const Packet& p : allow) {
    if (p.Get<bool>()) allowed_ts.push_back(p.Timestamp().Value());
  }
  EXPECT_EQ(allowed_ts, PacketTimestamps(done));
  EXPECT_EQ(g_processed.load(), static_cast<int>(done.size()));
  // Frames are in flight from release to FINISHED, which covers the slow
  // node's Process: it never held more than max_in_flight at once.
  EXPECT_LE(g_max_busy.load(), max_in_flight);
  EXPECT_GE(g_max_busy.load(), 1);
}

TEST(FlowLimiterCalculatorTest, SlowDownstreamOneInFlight) {
  RunWithSlowDownstream(/*max_in_flight=*/1, /*slow_parallelism=*/1);
}

TEST(FlowLimiterCalculatorTest, SlowParallelDownstreamTwoInFlight) {
  // The slow node could run 4 frames at once; the limiter allows 2.
  RunWithSlowDownstream(/*max_in_flight=*/2, /*slow_parallelism=*/4);
}

TEST(FlowLimiterCalculatorTest, LegacyFormWithMaxInFlightSidePacket) {
  auto out = RunGraph(R"pb(
    input_stream: "in"
    input_stream: "finished"
    input_side_packet: "limit"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:finished"
      input_side_packet: "MAX_IN_FLIGHT:limit"
      output_stream: "out"
    }
  )pb",
                      {"out"}, {{"in", MakePackets<int>({1, 2, 3}, {1, 2, 3})}},
                      {{"limit", MakePacket<int>(2)}},
                      /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(1, 2));
}

TEST(FlowLimiterCalculatorTest, ThrottlesSeveralStreamsTogether) {
  auto out = RunGraph(R"pb(
    input_stream: "a"
    input_stream: "b"
    input_stream: "finished"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "a"
      input_stream: "b"
      input_stream: "FINISHED:finished"
      output_stream: "a_out"
      output_stream: "b_out"
    }
  )pb",
                      {"a_out", "b_out"},
                      {{"a", MakePackets<int>({1, 2}, {1, 2})},
                       {"b", MakePackets<std::string>({"x", "y"}, {1, 2})}},
                      {}, /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketValues<int>((*out)["a_out"]), ElementsAre(1));
  EXPECT_THAT(PacketValues<std::string>((*out)["b_out"]), ElementsAre("x"));
}

TEST(FlowLimiterCalculatorTest, ContractSetsImmediateHandler) {
  auto config = ParseGraphConfig(R"pb(
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:done"
      output_stream: "out"
    }
  )pb");
  ASSERT_TRUE(config.ok());
  const CalculatorGraphConfig::Node& node = config->node(0);
  CalculatorContract contract;
  ASSERT_TRUE(contract.Initialize(node, "limiter").ok());
  auto entry = CalculatorRegistry().Lookup("FlowLimiterCalculator");
  ASSERT_TRUE(entry.ok());
  ASSERT_TRUE(entry->get_contract(&contract).ok());
  EXPECT_EQ(contract.GetInputStreamHandler(), "ImmediateInputStreamHandler");
  EXPECT_TRUE(contract.GetProcessTimestampBounds());
}

TEST(FlowLimiterCalculatorTest, BadOptionsNameTheNode) {
  absl::Status s = CheckContract(R"pb(
    name: "limiter"
    calculator: "FlowLimiterCalculator"
    input_stream: "in"
    input_stream: "FINISHED:done"
    output_stream: "out"
    options { [rill.FlowLimiterCalculatorOptions.ext] { max_in_flight: 0 } }
  )pb");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"limiter\""));
  EXPECT_THAT(s.message(), HasSubstr("max_in_flight must be at least 1"));

  s = CheckContract(R"pb(
    name: "limiter"
    calculator: "FlowLimiterCalculator"
    input_stream: "in"
    input_stream: "FINISHED:done"
    output_stream: "out"
    options {
      [rill.FlowLimiterCalculatorOptions.ext] { in_flight_timeout: -5 }
    }
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("in_flight_timeout"));
}

TEST(FlowLimiterCalculatorTest, MediaPipeOptionSyntaxIsRead) {
  // The options reach the calculator under MediaPipe's names, in both the
  // extension and the Any syntax: the bad value proves they were read.
  absl::Status s = CheckContract(R"pb(
    name: "limiter"
    calculator: "FlowLimiterCalculator"
    input_stream: "in"
    input_stream: "FINISHED:done"
    output_stream: "out"
    options { [mediapipe.FlowLimiterCalculatorOptions.ext] { max_in_flight: -1 } }
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("max_in_flight must be at least 1"));
  s = CheckContract(R"pb(
    name: "limiter"
    calculator: "FlowLimiterCalculator"
    input_stream: "in"
    input_stream: "FINISHED:done"
    output_stream: "out"
    node_options {
      [type.googleapis.com/mediapipe.FlowLimiterCalculatorOptions] {
        max_in_flight: -1
      }
    }
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("max_in_flight must be at least 1"));
}

TEST(FlowLimiterCalculatorTest, MissingPortsAreErrors) {
  absl::Status s = CheckContract(R"pb(
    name: "limiter"
    calculator: "FlowLimiterCalculator"
    input_stream: "in"
    output_stream: "out"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("FINISHED"));
  EXPECT_THAT(s.message(), HasSubstr("\"limiter\""));
  s = CheckContract(R"pb(
    name: "limiter"
    calculator: "FlowLimiterCalculator"
    input_stream: "in"
    input_stream: "FINISHED:done"
  )pb");
  EXPECT_THAT(s.message(), HasSubstr("1 untagged input streams but 0"));
}

}  // namespace
}  // namespace rill
