// Executors, priorities, in-order output with max_in_flight, throttling,
// deadlock handling and the profiler.
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "framework/graph.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/test_calculators.h"
#include "framework/tool/config_loader.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using testing::Timestamps;
using testing::Values;

CalculatorGraphConfig Parse(const std::string& text) {
  auto c = ParseGraphConfigText(text);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : CalculatorGraphConfig();
}

std::string ThisThreadName() {
  char name[32] = {0};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

TEST(SchedulerTest, ApplicationThreadExecutorRunsOnTheCaller) {
  testing::ClearSeenThreadNames();
  auto r = testing::RunGraph(R"pb(
    executor { type: "ApplicationThreadExecutor" }
    input_stream: "in" output_stream: "out"
    node { calculator: "TestThreadNameCalculator" input_stream: "in" output_stream: "out" }
  )pb",
                             {{"in", {{0, 1}, {1, 2}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{1, 2}));
  for (const std::string& n : testing::SeenThreadNames()) {
    EXPECT_EQ(n, ThisThreadName());
  }
  EXPECT_EQ(testing::SeenThreadNames().size(), 2u);
}

TEST(SchedulerTest, NamedExecutorRunsItsNodes) {
  testing::ClearSeenThreadNames();
  auto r = testing::RunGraph(R"pb(
    executor {
      name: "special" type: "ThreadPoolExecutor"
      options { [mediapipe.ThreadPoolExecutorOptions.ext] {
        num_threads: 1 thread_name_prefix: "special" } }
    }
    input_stream: "in" output_stream: "out"
    node { calculator: "TestThreadNameCalculator" input_stream: "in" output_stream: "out"
           executor: "special" }
  )pb",
                             {{"in", {{0, 1}, {1, 2}, {2, 3}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(testing::SeenThreadNames().size(), 3u);
  for (const std::string& n : testing::SeenThreadNames()) {
    EXPECT_EQ(n.rfind("special/", 0), 0u) << n;
  }
}

TEST(SchedulerTest, CustomExecutorWithoutTypeMustBeSupplied) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    executor { name: "mine" }
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out"
           executor: "mine" }
  )pb")).ok());
  absl::Status s = graph.StartRun();
  EXPECT_NE(s.message().find("executor \"mine\""), std::string::npos) << s;
  ASSERT_TRUE(graph.SetExecutor("mine", std::make_shared<ThreadPoolExecutor>(1)).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(SchedulerTest, MaxInFlightKeepsOutputInOrder) {
  // Later timestamps sleep less, so invocations finish out of order; the
  // output must still be in timestamp order and complete.
  std::vector<std::pair<int64_t, int>> in;
  for (int i = 0; i < 40; ++i) in.emplace_back(i, i);
  auto r = testing::RunGraph(R"pb(
    num_threads: 4
    input_stream: "in" output_stream: "out"
    node { calculator: "TestSleepCalculator" input_stream: "in" output_stream: "out"
           max_in_flight: 4
           options { [rill.TestOptions.ext] { value: 300 scale: 2.0 } } }
  )pb",
                             {{"in", in}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  std::vector<int> expected;
  for (int i = 0; i < 40; ++i) expected.push_back(i);
  EXPECT_EQ(Values(r.outputs["out"]), expected);
}

TEST(SchedulerTest, MaxQueueSizeThrottlesSources) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    max_queue_size: 5
    num_threads: 2
    profiler_config { enable_profiler: true }
    output_stream: "out"
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [rill.TestOptions.ext] { value: 200 } } }
    node { name: "slow" calculator: "TestSleepCalculator" input_stream: "a" output_stream: "out"
           options { [rill.TestOptions.ext] { value: 50 } } }
  )pb")).ok());
  int count = 0;
  ASSERT_TRUE(graph.ObserveOutputStream("out", [&](const Packet&) {
    ++count;
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.Run().ok());
  EXPECT_EQ(count, 200);
  for (const CalculatorStats& s : graph.Profiler()->Stats()) {
    if (s.node_name != "slow") continue;
    EXPECT_EQ(s.process_count, 200);
    ASSERT_EQ(s.max_queue_size.size(), 1u);
    EXPECT_LE(s.max_queue_size[0], 5);
    EXPECT_GE(s.max_queue_size[0], 1);
  }
}

constexpr char kJoin[] = R"pb(
  max_queue_size: 2
  input_stream: "a" input_stream: "b" output_stream: "sum"
  node { calculator: "TestAdderCalculator" input_stream: "a" input_stream: "b"
         output_stream: "sum" }
)pb";

TEST(SchedulerTest, DeadlockIsResolvedByGrowingQueues) {
  // "a" fills up while the adder waits for "b": without report_deadlock
  // the queue grows instead of hanging.
  std::map<std::string, std::vector<std::pair<int64_t, int>>> in;
  for (int i = 0; i < 6; ++i) in["a"].emplace_back(i, 1);
  for (int i = 0; i < 6; ++i) in["b"].emplace_back(i, 2);
  auto r = testing::RunGraph(kJoin, in);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["sum"]), (std::vector<int>(6, 3)));
}

TEST(SchedulerTest, DeadlockIsReportedWhenAsked) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(std::string(kJoin) + "report_deadlock: true")).ok());
  ASSERT_TRUE(graph.StartRun().ok());
  absl::Status s;
  for (int i = 0; i < 6 && s.ok(); ++i) {
    s = graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(i)));
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find("deadlock"), std::string::npos) << s;
  EXPECT_NE(s.message().find("stream \"b\" (graph input)"), std::string::npos) << s;
  EXPECT_FALSE(graph.WaitUntilDone().ok());
}

TEST(SchedulerTest, AddIfNotFullRefusesInsteadOfWaiting) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(kJoin)).ok());
  graph.SetGraphInputStreamAddMode(
      CalculatorGraph::GraphInputStreamAddMode::kAddIfNotFull);
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(1))).ok());
  absl::Status s = graph.AddPacketToInputStream("a", MakePacket<int>(1).At(Timestamp(2)));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_NE(s.message().find("\"a\" is full"), std::string::npos) << s;
  const std::string report = graph.DebugWaitReport();
  EXPECT_NE(report.find("TestAdderCalculator"), std::string::npos) << report;
  EXPECT_NE(report.find("stream \"b\""), std::string::npos) << report;
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

TEST(SchedulerTest, ProfilerCountsAndTraces) {
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    profiler_config { enable_profiler: true trace_enabled: true }
    output_stream: "out"
    node { name: "src" calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [rill.TestOptions.ext] { value: 25 } } }
    node { name: "inc" calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "out" }
  )pb")).ok());
  ASSERT_TRUE(graph.Run().ok());
  bool found = false;
  for (const CalculatorStats& s : graph.Profiler()->Stats()) {
    if (s.node_name == "inc") {
      found = true;
      EXPECT_EQ(s.process_count, 25);
      EXPECT_EQ(s.open_count, 1);
      EXPECT_EQ(s.close_count, 1);
      int64_t in_histogram = 0;
      for (int64_t c : s.histogram) in_histogram += c;
      EXPECT_EQ(in_histogram, 25);
    }
    if (s.node_name == "src") {
      EXPECT_EQ(s.process_count, 26);  // + the call that stops
    }
  }
  EXPECT_TRUE(found);
  const std::string json = graph.Profiler()->TraceJson();
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\"", 0), 0u);
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"TestAddOneCalculator\""), std::string::npos);
  EXPECT_NE(json.find("\"ph\":\"X\""), std::string::npos);
  size_t events = 0;
  for (size_t p = json.find("\"ph\""); p != std::string::npos; p = json.find("\"ph\"", p + 1)) {
    ++events;
  }
  EXPECT_EQ(events, 25u + 26u + 2u * 2u) << json;  // process + opens/closes
  const std::string path = ::testing::TempDir() + "/trace.json";
  ASSERT_TRUE(graph.Profiler()->WriteTrace(path).ok());
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), json);
  EXPECT_NE(graph.Profiler()->StatsTable().find("inc"), std::string::npos);
}

TEST(SchedulerTest, ManyRunsAndThreadCountsGiveTheSameResult) {
  for (int threads : {1, 2, 4}) {
    auto r = testing::RunGraph(absl::StrCat(R"pb(
      output_stream: "sum" num_threads: )pb", threads, R"pb(
      node { calculator: "TestIntSourceCalculator" output_stream: "a"
             options { [rill.TestOptions.ext] { value: 300 } } }
      node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "b" }
      node { calculator: "TestAddOneCalculator" input_stream: "b" output_stream: "c" }
      node { calculator: "TestAdderCalculator" input_stream: "a" input_stream: "c"
             output_stream: "sum" }
    )pb"));
    ASSERT_TRUE(r.status.ok()) << r.status;
    ASSERT_EQ(r.outputs["sum"].size(), 300u);
    for (int i = 0; i < 300; ++i) {
      EXPECT_EQ(r.outputs["sum"][i].Get<int>(), 2 * i + 2);
      EXPECT_EQ(r.outputs["sum"][i].Timestamp(), Timestamp(i));
    }
  }
}

TEST(SchedulerTest, SourceLayersRunInOrder) {
  // Layer 1's source starts only after layer 0's has closed. With one
  // worker (sinks run before sources), arrival order shows it.
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(Parse(R"pb(
    num_threads: 1
    node { calculator: "TestIntSourceCalculator" output_stream: "late" source_layer: 1
           options { [rill.TestOptions.ext] { value: 20 } } }
    node { calculator: "TestIntSourceCalculator" output_stream: "early" source_layer: 0
           options { [rill.TestOptions.ext] { value: 20 } } }
  )pb")).ok());
  std::mutex mu;
  std::vector<std::string> order;
  for (const char* s : {"early", "late"}) {
    const std::string name = s;
    ASSERT_TRUE(graph.ObserveOutputStream(name, [&, name](const Packet&) {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(name);
      return absl::OkStatus();
    }).ok());
  }
  ASSERT_TRUE(graph.Run().ok());
  ASSERT_EQ(order.size(), 40u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], "early") << i;
  for (int i = 20; i < 40; ++i) EXPECT_EQ(order[i], "late") << i;
}

}  // namespace
}  // namespace rill
