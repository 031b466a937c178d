#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/graph.h"
#include "framework/test_calculators.h"
#include "framework/testdata/test_options.pb.h"
#include "framework/tool/config_loader.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using testing::RunGraph;
using testing::Timestamps;
using testing::Values;

CalculatorGraphConfig Parse(const std::string& text) {
  auto c = ParseGraphConfigText(text);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : CalculatorGraphConfig();
}

TEST(GraphTest, SourceThroughChainToOutput) {
  auto r = RunGraph(R"pb(
    output_stream: "out"
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [rill.TestOptions.ext] { value: 5 } } }
    node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "b" }
    node { calculator: "TestPassThroughCalculator" input_stream: "b" output_stream: "out" }
  )pb");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(Timestamps(r.outputs["out"]), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(GraphTest, GraphInputStreamsAndJoin) {
  auto r = RunGraph(R"pb(
    input_stream: "a" input_stream: "b" output_stream: "sum"
    node { calculator: "TestAdderCalculator" input_stream: "a" input_stream: "b"
           output_stream: "sum" }
  )pb",
                    {{"a", {{1, 10}, {2, 20}, {4, 40}}},
                     {"b", {{1, 1}, {3, 3}, {4, 4}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Timestamps(r.outputs["sum"]), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Values(r.outputs["sum"]), (std::vector<int>{11, 20, 3, 44}));
}

TEST(GraphTest, FanOutFanIn) {
  auto r = RunGraph(R"pb(
    input_stream: "in" output_stream: "sum" num_threads: 2
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x" }
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "y" }
    node { calculator: "TestPassThroughCalculator" input_stream: "in" output_stream: "z" }
    node { calculator: "TestAdderCalculator" input_stream: "x" input_stream: "y"
           input_stream: "z" output_stream: "sum" }
  )pb",
                    {{"in", {{0, 0}, {1, 1}, {2, 2}, {3, 3}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["sum"]), (std::vector<int>{2, 5, 8, 11}));
}

TEST(GraphTest, TypedApi2NodeWithOptionalSidePacket) {
  auto with = RunGraph(R"pb(
    input_stream: "in" output_stream: "out" input_side_packet: "factor"
    node { calculator: "TestScaleNode" input_stream: "IN:in" output_stream: "OUT:out"
           input_side_packet: "FACTOR:factor" }
  )pb",
                       {{"in", {{0, 2}, {1, 5}}}}, {{"factor", MakePacket<int>(3)}});
  ASSERT_TRUE(with.status.ok()) << with.status;
  EXPECT_EQ(Values(with.outputs["out"]), (std::vector<int>{6, 15}));
  auto without = RunGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { calculator: "TestScaleNode" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb",
                          {{"in", {{0, 2}}}});
  ASSERT_TRUE(without.status.ok()) << without.status;
  EXPECT_EQ(Values(without.outputs["out"]), (std::vector<int>{2}));
}

TEST(GraphTest, FailingCalculatorEndsRunWithItsStatus) {
  std::atomic<int> callbacks{0};
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    output_stream: "out"
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [rill.TestOptions.ext] { value: 100 } } }
    node { name: "breaker" calculator: "TestFailingCalculator" input_stream: "a"
           output_stream: "out" options { [rill.TestOptions.ext] { value: 7 } } }
  )pb")).ok());
  graph.SetErrorCallback([&](const absl::Status& s) { ++callbacks; });
  ASSERT_TRUE(graph.StartRun().ok());
  absl::Status s = graph.WaitUntilDone();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("node \"breaker\" (TestFailingCalculator)"),
            std::string::npos) << s;
  EXPECT_NE(s.message().find("boom at 7"), std::string::npos) << s;
  EXPECT_NE(s.message().find("at timestamp 7"), std::string::npos) << s;
  EXPECT_EQ(callbacks.load(), 1);
  EXPECT_TRUE(graph.HasError());
}

TEST(GraphTest, WrongOutputTypeAtRunTimeIsAnError) {
  auto r = RunGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { name: "liar" calculator: "TestWrongTypeCalculator" input_stream: "in"
           output_stream: "out" }
  )pb",
                    {{"in", {{0, 1}}}});
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("liar"), std::string::npos) << r.status;
  EXPECT_NE(r.status.message().find("std::string"), std::string::npos);
}

TEST(GraphTest, AddPacketErrors) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  EXPECT_FALSE(graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(5))).ok());
  absl::Status s = graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(5)));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not above"), std::string::npos) << s;
  s = graph.AddPacketToInputStream("in", MakePacket<std::string>("x").At(Timestamp(6)));
  EXPECT_NE(s.message().find("std::string"), std::string::npos) << s;
  s = graph.AddPacketToInputStream("nope", MakePacket<int>(1).At(Timestamp(7)));
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  s = graph.AddPacketToInputStream("in", MakePacket<int>(1));
  EXPECT_NE(s.message().find("not allowed"), std::string::npos) << s;
  ASSERT_TRUE(graph.CloseInputStream("in").ok());
  s = graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(8)));
  EXPECT_NE(s.message().find("closed"), std::string::npos) << s;
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(GraphTest, PollerReturnsPacketsAndEnds) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  auto poller = graph.AddOutputStreamPoller("out");
  ASSERT_TRUE(poller.ok());
  ASSERT_TRUE(graph.StartRun().ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i).At(Timestamp(i))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  Packet p;
  std::vector<int> got;
  while (poller->Next(&p)) got.push_back(p.Get<int>());
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(GraphTest, PollerObservingBoundsReportsMissingTimestamps) {
  // The filter drops odd values; the poller learns that odd timestamps have
  // no packet instead of blocking.
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestEvenFilterCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  auto poller = graph.AddOutputStreamPoller("out", /*observe_timestamp_bounds=*/true);
  ASSERT_TRUE(poller.ok());
  ASSERT_TRUE(graph.StartRun().ok());
  Packet p;
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(10))).ok());
  ASSERT_TRUE(poller->NextWithTimeout(&p, 5000000));
  EXPECT_TRUE(p.IsEmpty());
  EXPECT_EQ(p.Timestamp(), Timestamp(10));
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(2).At(Timestamp(11))).ok());
  ASSERT_TRUE(poller->NextWithTimeout(&p, 5000000));
  EXPECT_FALSE(p.IsEmpty());
  EXPECT_EQ(p.Get<int>(), 2);
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(GraphTest, ObserverWithBoundsSeesEmptyPackets) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestEvenFilterCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  std::vector<std::pair<int64_t, bool>> seen;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
    seen.emplace_back(p.Timestamp().Value(), p.IsEmpty());
    return absl::OkStatus();
  }, true).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i).At(Timestamp(i))).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, bool>>{
                      {0, false}, {1, true}, {2, false}, {3, true}}));
}

TEST(GraphTest, OffsetsCarryBoundsThroughNodesThatDidNotRun) {
  // "in" is odd at t=1: the filter drops it, so the +1 node never runs at
  // t=1. Its offset still tells the adder that "x" has nothing at t=1, and
  // the adder runs at once with "in" alone (no later packet needed).
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestEvenFilterCalculator" input_stream: "in" output_stream: "even" }
    node { calculator: "TestAddOneCalculator" input_stream: "even" output_stream: "x" }
    node { calculator: "TestAdderCalculator" input_stream: "in" input_stream: "x"
           output_stream: "sum" }
  )pb")).ok());
  auto poller = graph.AddOutputStreamPoller("sum");
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(1))).ok());
  Packet p;
  ASSERT_TRUE(poller->NextWithTimeout(&p, 5000000));
  EXPECT_EQ(p.Timestamp(), Timestamp(1));
  EXPECT_EQ(p.Get<int>(), 1);
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(2).At(Timestamp(2))).ok());
  ASSERT_TRUE(poller->NextWithTimeout(&p, 5000000));
  EXPECT_EQ(p.Get<int>(), 2 + 3);
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(GraphTest, SetInputStreamTimestampBoundAdvancesDownstream) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "a" input_stream: "b"
    node { calculator: "TestAdderCalculator" input_stream: "a" input_stream: "b"
           output_stream: "sum" }
  )pb")).ok());
  auto poller = graph.AddOutputStreamPoller("sum");
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(5).At(Timestamp(1))).ok());
  Packet p;
  EXPECT_FALSE(poller->NextWithTimeout(&p, 20000));  // waits for "b"
  ASSERT_TRUE(graph.SetInputStreamTimestampBound("b", Timestamp(2)).ok());
  ASSERT_TRUE(poller->NextWithTimeout(&p, 5000000));
  EXPECT_EQ(p.Get<int>(), 5);
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(GraphTest, SidePacketsFromGraphAndFromNodes) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    output_stream: "out"
    node { calculator: "TestSidePacketProducerCalculator" output_side_packet: "OUT:made"
           options { [rill.TestOptions.ext] { value: 41 } } }
    node { calculator: "TestSideToStreamCalculator" input_side_packet: "IN:made"
           output_stream: "x" }
    node { calculator: "TestAddOneCalculator" input_stream: "x" output_stream: "out" }
  )pb")).ok());
  std::vector<int> got;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
    got.push_back(p.Get<int>());
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.Run().ok());
  EXPECT_EQ(got, (std::vector<int>{42}));
  auto side = graph.GetOutputSidePacket("made");
  ASSERT_TRUE(side.ok());
  EXPECT_EQ(side->Get<int>(), 41);
  EXPECT_FALSE(graph.GetOutputSidePacket("nope").ok());
}

TEST(GraphTest, MissingOrMistypedSidePacketFailsStartRun) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    node { name: "src" calculator: "TestIntSourceCalculator" output_stream: "a"
           input_side_packet: "COUNT:n" }
  )pb")).ok());
  absl::Status s = graph.StartRun();
  EXPECT_NE(s.message().find("node \"src\""), std::string::npos) << s;
  EXPECT_NE(s.message().find("\"n\""), std::string::npos) << s;
  s = graph.StartRun({{"n", MakePacket<std::string>("3")}});
  EXPECT_NE(s.message().find("side packet \"n\""), std::string::npos) << s;
  ASSERT_TRUE(graph.StartRun({{"n", MakePacket<int>(3)}}).ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(GraphTest, RunsTwice) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           input_side_packet: "COUNT:n" }
    node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "out" }
  )pb")).ok());
  std::vector<int> got;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
    got.push_back(p.Get<int>());
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.Run({{"n", MakePacket<int>(2)}}).ok());
  ASSERT_TRUE(graph.Run({{"n", MakePacket<int>(3)}}).ok());
  EXPECT_EQ(got, (std::vector<int>{1, 2, 1, 2, 3}));
}

TEST(GraphTest, WaitUntilDoneWithOpenInputsFailsInsteadOfHanging) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb")).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  absl::Status s = graph.WaitUntilDone();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("still open"), std::string::npos) << s;
}

TEST(GraphTest, CancelStopsAnEndlessSource) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    node { calculator: "TestEndlessSourceCalculator" output_stream: "a" }
    node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "out" }
  )pb")).ok());
  std::atomic<int> count{0};
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet&) {
    ++count;
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  while (count.load() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  graph.Cancel();
  EXPECT_EQ(graph.WaitUntilDone().code(), absl::StatusCode::kCancelled);
}

// Reports how it runs (CalculatorContext::SetReport) when opened.
class TestReportingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    cc->SetReport("first");
    cc->SetReport("runs on the test backend");
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(TestReportingCalculator);

TEST(GraphTest, NodeReportsSayHowNodesRun) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { name: "quiet" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "a" }
    node { name: "talker" calculator: "TestReportingCalculator" input_stream: "a" }
  )pb")).ok());
  EXPECT_TRUE(graph.NodeReports().empty());
  ASSERT_TRUE(graph.Run().ok());
  using Reports = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(graph.NodeReports(), (Reports{{"talker", "runs on the test backend"}}));
}

TEST(GraphTest, BackEdgeLoop) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    input_stream: "in"
    node { calculator: "TestLoopCalculator" input_stream: "IN:in"
           input_stream: "LOOP:loop" output_stream: "OUT:out"
           input_stream_info { tag_index: "LOOP" back_edge: true } }
    node { calculator: "TestAddOneCalculator" input_stream: "out" output_stream: "loop" }
  )pb")).ok());
  std::vector<int> got;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
    got.push_back(p.Get<int>());
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(i).At(Timestamp(i))).ok());
    ASSERT_TRUE(graph.WaitUntilIdle().ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  EXPECT_EQ(got, (std::vector<int>{1, 4, 8}));
}

TEST(GraphTest, BinaryConfigLoads) {
  CalculatorGraphConfig config = Parse(R"pb(
    output_stream: "out"
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [mediapipe.TestOptions.ext] { value: 3 } } }
    node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "out" }
  )pb");
  const std::string path = ::testing::TempDir() + "/graph.binarypb";
  {
    std::ofstream f(path, std::ios::binary);
    f << config.SerializeAsString();
  }
  CalculatorGraph graph;
  ASSERT_TRUE(graph.InitializeFromFile(path).ok());
  std::vector<int> got;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet& p) {
    got.push_back(p.Get<int>());
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.Run().ok());
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
}

TEST(GraphTest, MissingAndCorruptFilesAreClearErrors) {
  CalculatorGraph g1;
  absl::Status s = g1.InitializeFromFile("/nonexistent/graph.pbtxt");
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/graph.pbtxt"), std::string::npos);
  const std::string bin = ::testing::TempDir() + "/corrupt.binarypb";
  {
    std::ofstream f(bin, std::ios::binary);
    f << "\xff\xff\xff garbage";
  }
  CalculatorGraph g2;
  s = g2.InitializeFromFile(bin);
  EXPECT_NE(s.message().find("corrupt.binarypb"), std::string::npos) << s;
  const std::string txt = ::testing::TempDir() + "/bad.pbtxt";
  {
    std::ofstream f(txt);
    f << "node {\n  calculator: \"X\"\n  input_strem: \"a\"\n}\n";
  }
  CalculatorGraph g3;
  s = g3.InitializeFromFile(txt);
  EXPECT_NE(s.message().find("bad.pbtxt:3:"), std::string::npos) << s;
  EXPECT_NE(s.message().find("input_strem"), std::string::npos) << s;
}

TEST(GraphTest, NonRegularAndEmptyGraphFilesAreRefused) {
  const std::string dir = ::testing::TempDir() + "/graph_file_kinds";
  mkdir(dir.c_str(), 0755);
  const std::string empty = dir + "/empty.pbtxt";
  std::ofstream(empty).close();
  const std::string fifo = dir + "/fifo.pbtxt";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::pair<std::string, std::string> cases[] = {
      {dir, "is a directory"},
      {empty, "is empty"},
      {fifo, "is not a regular file (a FIFO)"},  // refused without blocking
      {"/dev/null", "is not a regular file (a character device)"},
  };
  for (const auto& [path, why] : cases) {
    auto config = LoadGraphConfigFile(path);
    ASSERT_FALSE(config.ok()) << path;
    EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(config.status().message().find(path), std::string::npos)
        << config.status();
    EXPECT_NE(config.status().message().find(why), std::string::npos)
        << config.status();
    CalculatorGraph graph;
    EXPECT_FALSE(graph.InitializeFromFile(path).ok()) << path;
  }
  unlink(fifo.c_str());
  // A file of comments only loads (to a graph without nodes): whether that
  // is an error is the caller's call (`rill validate` says so).
  const std::string comments = dir + "/comments.pbtxt";
  std::ofstream(comments) << "# nothing here\n";
  auto config = LoadGraphConfigFile(comments);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->node_size(), 0);
}

}  // namespace
}  // namespace rill
