#include "framework/calculator_base.h"
#include "framework/graph.h"
#include "framework/test_calculators.h"
#include "framework/tool/config_loader.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using testing::Timestamps;
using testing::Values;

// Forwards the INPUT chosen by SELECT (used with MuxInputStreamHandler).
class TestMuxCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("SELECT").Set<int>();
    for (int i = 0; i < cc->Inputs().NumEntries("INPUT"); ++i) {
      cc->Inputs().Get("INPUT", i).Set<int>();
    }
    cc->Outputs().Tag("OUTPUT").Set<int>();
    cc->SetInputStreamHandler("MuxInputStreamHandler");
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    const int sel = cc->Inputs().Tag("SELECT").Get<int>();
    const auto& in = cc->Inputs().Get("INPUT", sel);
    if (!in.IsEmpty()) cc->Outputs().Tag("OUTPUT").AddPacket(in.Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestMuxCalculator);

// Pass-through without a timestamp offset: each output's bound follows its
// own packets only (needed when sync sets run at unrelated timestamps).
class TestNoOffsetPassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      cc->Inputs().Get(i).SetAny();
      cc->Outputs().Get(i).SetSameAs(&cc->Inputs().Get(i));
    }
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      if (!cc->Inputs().Get(i).IsEmpty()) {
        cc->Outputs().Get(i).AddPacket(cc->Inputs().Get(i).Value());
      }
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestNoOffsetPassThroughCalculator);

// Runs a graph on the application thread so that packets queue up until
// WaitUntilIdle, which makes handler decisions deterministic.
class Harness {
 public:
  explicit Harness(const std::string& text) {
    auto config = ParseGraphConfigText(text);
    EXPECT_TRUE(config.ok()) << config.status();
    absl::Status s = graph_.Initialize(*config);
    EXPECT_TRUE(s.ok()) << s;
    for (const std::string& out : graph_.Config().output_stream()) {
      EXPECT_TRUE(graph_.ObserveOutputStream(out, [this, out](const Packet& p) {
        outputs_[out].push_back(p);
        return absl::OkStatus();
      }).ok());
    }
    s = graph_.StartRun();
    EXPECT_TRUE(s.ok()) << s;
  }
  void Add(const std::string& stream, int64_t ts, int value) {
    absl::Status s = graph_.AddPacketToInputStream(
        stream, MakePacket<int>(value).At(Timestamp(ts)));
    EXPECT_TRUE(s.ok()) << s;
  }
  void Idle() { EXPECT_TRUE(graph_.WaitUntilIdle().ok()); }
  void Finish() {
    EXPECT_TRUE(graph_.CloseAllInputStreams().ok());
    EXPECT_TRUE(graph_.WaitUntilDone().ok());
  }
  std::vector<Packet>& Out(const std::string& s) { return outputs_[s]; }
  CalculatorGraph& graph() { return graph_; }

 private:
  CalculatorGraph graph_;
  std::map<std::string, std::vector<Packet>> outputs_;
};

constexpr char kAppThread[] = R"pb(executor { type: "ApplicationThreadExecutor" })pb";

TEST(StreamHandlerTest, DefaultWaitsForEveryInputToSettle) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" input_stream: "b" output_stream: "oa" output_stream: "ob"
    node { calculator: "TestPassThroughCalculator" input_stream: "a" input_stream: "b"
           output_stream: "oa" output_stream: "ob" }
  )pb");
  h.Add("a", 1, 10);
  h.Idle();
  EXPECT_TRUE(h.Out("oa").empty());  // b might still bring a packet at 1
  h.Add("b", 2, 20);
  h.Idle();
  EXPECT_EQ(Timestamps(h.Out("oa")), (std::vector<int64_t>{1}));
  EXPECT_TRUE(h.Out("ob").empty());
  h.Finish();
  EXPECT_EQ(Timestamps(h.Out("ob")), (std::vector<int64_t>{2}));
}

TEST(StreamHandlerTest, ImmediateDoesNotWait) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" input_stream: "b" output_stream: "oa"
    node { calculator: "TestPassThroughCalculator" input_stream: "a" input_stream: "b"
           output_stream: "oa" output_stream: "ob"
           input_stream_handler { input_stream_handler: "ImmediateInputStreamHandler" } }
  )pb");
  h.Add("a", 1, 10);
  h.Idle();
  EXPECT_EQ(Values(h.Out("oa")), (std::vector<int>{10}));
  h.Finish();
}

TEST(StreamHandlerTest, SyncSetsAreIndependent) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" input_stream: "b" input_stream: "c"
    output_stream: "oa" output_stream: "ob" output_stream: "oc"
    node {
      calculator: "TestNoOffsetPassThroughCalculator"
      input_stream: "a" input_stream: "b" input_stream: "c"
      output_stream: "oa" output_stream: "ob" output_stream: "oc"
      input_stream_handler {
        input_stream_handler: "SyncSetInputStreamHandler"
        options {
          [mediapipe.SyncSetInputStreamHandlerOptions.ext] {
            sync_set { tag_index: ":0" }
            sync_set { tag_index: ":1" tag_index: ":2" }
          }
        }
      }
    }
  )pb");
  h.Add("a", 5, 1);
  h.Add("b", 1, 2);
  h.Idle();
  EXPECT_EQ(Values(h.Out("oa")), (std::vector<int>{1}));  // a alone is a set
  EXPECT_TRUE(h.Out("ob").empty());                        // waits for c
  h.Add("c", 1, 3);
  h.Idle();
  EXPECT_EQ(Values(h.Out("ob")), (std::vector<int>{2}));
  EXPECT_EQ(Values(h.Out("oc")), (std::vector<int>{3}));
  h.Finish();
}

TEST(StreamHandlerTest, FixedSizeDropsOldPackets) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" output_stream: "oa"
    node {
      calculator: "TestPassThroughCalculator" input_stream: "a" output_stream: "oa"
      input_stream_handler {
        input_stream_handler: "FixedSizeInputStreamHandler"
        options { [mediapipe.FixedSizeInputStreamHandlerOptions.ext] {
          trigger_queue_size: 3 target_queue_size: 2 } }
      }
    }
  )pb");
  for (int i = 0; i < 6; ++i) h.Add("a", i, i);
  h.Idle();
  EXPECT_EQ(Values(h.Out("oa")), (std::vector<int>{4, 5}));
  h.Finish();
}

TEST(StreamHandlerTest, FixedSizeRejectsBadOptions) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "a"
    node {
      name: "fs" calculator: "TestPassThroughCalculator" input_stream: "a" output_stream: "oa"
      input_stream_handler {
        input_stream_handler: "FixedSizeInputStreamHandler"
        options { [rill.FixedSizeInputStreamHandlerOptions.ext] {
          trigger_queue_size: 1 target_queue_size: 2 } }
      }
    }
  )pb");
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  absl::Status s = graph.StartRun();
  EXPECT_NE(s.message().find("node \"fs\""), std::string::npos) << s;
  EXPECT_NE(s.message().find("trigger_queue_size"), std::string::npos) << s;
}

TEST(StreamHandlerTest, BarrierPairsOldestPackets) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" input_stream: "b" output_stream: "sum"
    node { calculator: "TestAdderCalculator" input_stream: "a" input_stream: "b"
           output_stream: "sum"
           input_stream_handler { input_stream_handler: "BarrierInputStreamHandler" } }
  )pb");
  h.Add("a", 1, 1);
  h.Add("a", 2, 2);
  h.Add("b", 10, 100);
  h.Idle();
  EXPECT_EQ(Values(h.Out("sum")), (std::vector<int>{101}));
  EXPECT_EQ(Timestamps(h.Out("sum")), (std::vector<int64_t>{10}));
  h.Add("b", 11, 200);
  h.Idle();
  EXPECT_EQ(Values(h.Out("sum")), (std::vector<int>{101, 202}));
  h.Finish();
}

TEST(StreamHandlerTest, MuxSelectsOneInputPerTimestamp) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "sel" input_stream: "x" input_stream: "y" output_stream: "out"
    node { calculator: "TestMuxCalculator" input_stream: "SELECT:sel"
           input_stream: "INPUT:0:x" input_stream: "INPUT:1:y" output_stream: "OUTPUT:out" }
  )pb");
  h.Add("x", 1, 10);
  h.Add("y", 1, 11);
  h.Add("sel", 1, 1);
  h.Add("sel", 2, 0);
  h.Idle();
  EXPECT_EQ(Values(h.Out("out")), (std::vector<int>{11}));  // x@2 unknown yet
  h.Add("x", 2, 20);
  h.Idle();
  EXPECT_EQ(Values(h.Out("out")), (std::vector<int>{11, 20}));
  h.Finish();
}

TEST(StreamHandlerTest, ProcessTimestampBoundsCallsOnBoundChanges) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "in" output_stream: "count"
    node { calculator: "TestEvenFilterCalculator" input_stream: "in" output_stream: "even" }
    node { calculator: "TestBoundsCounterCalculator" input_stream: "even" output_stream: "count" }
  )pb");
  for (int i = 0; i < 4; ++i) {
    h.Add("in", i, i);
    h.Idle();
  }
  h.Finish();
  EXPECT_EQ(Timestamps(h.Out("count")), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Values(h.Out("count")), (std::vector<int>{0, 1, 1, 2}));
}

// Reports every invocation's timestamp and the bound of input 0, with
// bound-only calls under the ImmediateInputStreamHandler.
class TestImmediateBoundsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Inputs().Index(1).SetAny();
    cc->Outputs().Index(0).Set<int>();
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    const int empty = cc->Inputs().Index(0).IsEmpty() && cc->Inputs().Index(1).IsEmpty();
    cc->Outputs().Index(0).AddPacket(MakePacket<int>(
        empty * 1000 + static_cast<int>(cc->Inputs().Index(0).NextTimestampBound().Value()))
        .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestImmediateBoundsCalculator);

TEST(StreamHandlerTest, ImmediateReportsBoundChangesWhenAsked) {
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" input_stream: "b" output_stream: "out"
    node { calculator: "TestImmediateBoundsCalculator" input_stream: "a"
           input_stream: "b" output_stream: "out" }
  )pb");
  h.Add("a", 1, 0);
  h.Idle();
  ASSERT_TRUE(h.graph().SetInputStreamTimestampBound("a", Timestamp(5)).ok());
  ASSERT_TRUE(h.graph().SetInputStreamTimestampBound("b", Timestamp(7)).ok());
  h.Idle();
  h.Finish();
  // A packet at 1 (a's bound then 2), then a bound-only call at 4: both
  // inputs are settled below 5.
  ASSERT_GE(h.Out("out").size(), 2u);
  EXPECT_EQ(h.Out("out")[0].Timestamp(), Timestamp(1));
  EXPECT_EQ(h.Out("out")[0].Get<int>(), 2);
  EXPECT_EQ(h.Out("out")[1].Timestamp(), Timestamp(4));
  EXPECT_EQ(h.Out("out")[1].Get<int>(), 1005);
}

TEST(StreamHandlerTest, ImmediateReportsBackEdgeBoundChanges) {
  // Input 1 is a back edge: its bound moving alone wakes the node (at the
  // edge's last settled timestamp), though the forward input settled
  // nothing new.
  Harness h(std::string(kAppThread) + R"pb(
    input_stream: "a" input_stream: "b" output_stream: "out"
    node { calculator: "TestImmediateBoundsCalculator" input_stream: "a"
           input_stream: "b" output_stream: "out"
           input_stream_info { tag_index: ":1" back_edge: true } }
  )pb");
  h.Add("a", 10, 0);
  h.Idle();
  ASSERT_TRUE(h.graph().SetInputStreamTimestampBound("b", Timestamp(20)).ok());
  h.Idle();
  ASSERT_GE(h.Out("out").size(), 2u);
  EXPECT_EQ(h.Out("out")[0].Timestamp(), Timestamp(10));
  EXPECT_EQ(h.Out("out")[0].Get<int>(), 11);
  EXPECT_EQ(h.Out("out")[1].Timestamp(), Timestamp(19));
  EXPECT_EQ(h.Out("out")[1].Get<int>(), 1011);
  h.Finish();
}

}  // namespace
}  // namespace rill
