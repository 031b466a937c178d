// SwitchContainer: selection by side packet, by option, by stream (per
// timestamp); side packets and streams routed by tag; contained subgraphs;
// option_value into contained nodes; errors naming the node.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/graph.h"
#include "framework/proto/switch_container.pb.h"
#include "framework/test_calculators.h"
#include "framework/testdata/test_options.pb.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using testing::RunGraph;
using testing::Timestamps;
using testing::Values;

// Channel 1 of the stream tests, a subgraph: OUT = IN * FACTOR + 2.
constexpr char kScalePlusTwo[] = R"pb(
  type: "TestSwitchScalePlusTwoSubgraph"
  input_stream: "IN:x"
  input_side_packet: "FACTOR:f"
  output_stream: "OUT:z"
  node { calculator: "TestScaleNode" input_stream: "IN:x"
         input_side_packet: "FACTOR:f" output_stream: "OUT:y" }
  node { calculator: "TestAddOneCalculator" input_stream: "y" output_stream: "y1" }
  node { calculator: "TestAddOneCalculator" input_stream: "y1" output_stream: "z" }
)pb";

// A model-loader-like subgraph: picks a side packet by SELECT; the value of
// contained node 1 comes from the subgraph's graph options.
constexpr char kPicker[] = R"pb(
  type: "TestSwitchPickerSubgraph"
  input_side_packet: "SELECT:select"
  output_side_packet: "VALUE:value"
  graph_options: { [type.googleapis.com/rill.TestGraphOptions] { offset: 7 } }
  node {
    calculator: "SwitchContainer"
    input_side_packet: "SELECT:select"
    output_side_packet: "OUT:value"
    options: { [mediapipe.SwitchContainerOptions.ext] {
      contained_node { calculator: "TestSidePacketProducerCalculator"
        options: { [mediapipe.TestOptions.ext] { value: 1 } } }
      contained_node { calculator: "TestSidePacketProducerCalculator"
        options: { [mediapipe.TestOptions.ext] { value: 2 } }
        option_value: "value:options/offset" }
    } }
  }
)pb";

class SwitchContainerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(kScalePlusTwo)).ok());
    ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(kPicker)).ok());
  }
};

// Three side-packet-only contained nodes (10, 20, 30), their OUT side packet
// turned into a stream. `selection` goes into the container node.
std::string SidePacketGraph(const std::string& selection,
                            const std::string& options = "") {
  return absl::StrCat(R"pb(
    output_stream: "out"
    node {
      name: "picker"
      calculator: "SwitchContainer"
      )pb", selection, R"pb(
      output_side_packet: "OUT:picked"
      options: { [mediapipe.SwitchContainerOptions.ext] {
        )pb", options, R"pb(
        contained_node { calculator: "TestSidePacketProducerCalculator"
          options: { [mediapipe.TestOptions.ext] { value: 10 } } }
        contained_node { calculator: "TestSidePacketProducerCalculator"
          options: { [mediapipe.TestOptions.ext] { value: 20 } } }
        contained_node { calculator: "TestSidePacketProducerCalculator"
          options: { [mediapipe.TestOptions.ext] { value: 30 } } }
      } }
    }
    node { calculator: "TestSideToStreamCalculator"
           input_side_packet: "IN:picked" output_stream: "out" }
  )pb");
}

int RunSidePacketGraph(const std::string& selection, const std::string& options,
                       const std::map<std::string, Packet>& side_packets) {
  auto r = RunGraph(SidePacketGraph(selection, options), {}, side_packets);
  EXPECT_TRUE(r.status.ok()) << r.status;
  if (!r.status.ok() || r.outputs["out"].size() != 1) return -1;
  return r.outputs["out"][0].Get<int>();
}

TEST_F(SwitchContainerTest, SelectSidePacketPicksTheSideOutputOfThatNode) {
  const std::string select = R"(input_side_packet: "SELECT:sel")";
  EXPECT_EQ(RunSidePacketGraph(select, "", {{"sel", MakePacket<int>(0)}}), 10);
  EXPECT_EQ(RunSidePacketGraph(select, "", {{"sel", MakePacket<int>(2)}}), 30);
  // The side packet overrides the option's default.
  EXPECT_EQ(RunSidePacketGraph(select, "select: 1",
                               {{"sel", MakePacket<int>(2)}}),
            30);
}

TEST_F(SwitchContainerTest, SelectSidePacketLeftOutOfStartRunFallsBackToOptions) {
  // The graph declares "sel" but the run does not give it: SELECT is
  // optional, so the options' select decides (as MediaPipe's model loaders
  // when MODEL_COMPLEXITY is not given).
  const std::string graph = absl::StrCat(R"pb(input_side_packet: "sel")pb",
                                         SidePacketGraph(R"(input_side_packet: "SELECT:sel")",
                                                         "select: 2"));
  auto r = RunGraph(graph);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{30}));
  // A side packet a node requires is still an error when left out.
  auto required = RunGraph(R"pb(
    input_side_packet: "v"
    output_stream: "out"
    node { name: "needs_v" calculator: "TestSideToStreamCalculator"
           input_side_packet: "IN:v" output_stream: "out" }
  )pb");
  EXPECT_NE(required.status.message().find("needs input side packet \"v\""),
            std::string::npos)
      << required.status;
}

TEST_F(SwitchContainerTest, OptionsSelectAndEnableAreTheDefaults) {
  EXPECT_EQ(RunSidePacketGraph("", "select: 1", {}), 20);
  EXPECT_EQ(RunSidePacketGraph("", "select: 2", {}), 30);
  EXPECT_EQ(RunSidePacketGraph("", "enable: true", {}), 20);
  EXPECT_EQ(RunSidePacketGraph("", "enable: false", {}), 10);
  EXPECT_EQ(RunSidePacketGraph("", "", {}), 10);  // channel 0
}

TEST_F(SwitchContainerTest, EnableSidePacketPicksChannelOneOrZero) {
  const std::string enable = R"(input_side_packet: "ENABLE:on")";
  EXPECT_EQ(RunSidePacketGraph(enable, "", {{"on", MakePacket<bool>(true)}}), 20);
  EXPECT_EQ(RunSidePacketGraph(enable, "select: 2",
                               {{"on", MakePacket<bool>(false)}}),
            10);
}

TEST_F(SwitchContainerTest, OutOfRangeSelectSidePacketNamesTheNode) {
  auto r = RunGraph(SidePacketGraph(R"(input_side_packet: "SELECT:sel")"), {},
                    {{"sel", MakePacket<int>(5)}});
  ASSERT_FALSE(r.status.ok());
  const std::string m(r.status.message());
  EXPECT_NE(m.find("picker__switch_mux_side"), std::string::npos) << m;
  EXPECT_NE(m.find("SELECT side packet selects channel 5"), std::string::npos)
      << m;
  EXPECT_NE(m.find("3 contained nodes (channels 0..2)"), std::string::npos) << m;
}

TEST_F(SwitchContainerTest, OutOfRangeSelectOptionNamesTheNode) {
  auto r = RunGraph(SidePacketGraph("", "select: 3"));
  ASSERT_FALSE(r.status.ok());
  const std::string m(r.status.message());
  EXPECT_NE(m.find("SwitchContainer node \"picker\": option select 3 is out of "
                   "range: it has 3 contained nodes"),
            std::string::npos)
      << m;
}

TEST_F(SwitchContainerTest, SelectAndEnableTogetherAreAnError) {
  auto r = RunGraph(SidePacketGraph(R"(input_side_packet: "SELECT:sel"
                                       input_side_packet: "ENABLE:on")"),
                    {}, {{"sel", MakePacket<int>(0)}, {"on", MakePacket<bool>(true)}});
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("SELECT and ENABLE, not both"),
            std::string::npos)
      << r.status;
  auto both = RunGraph(SidePacketGraph("", "select: 1 enable: true"));
  EXPECT_NE(both.status.message().find("'select' and 'enable', not both"),
            std::string::npos)
      << both.status;
}

// Channel 0: OUT = IN * FACTOR; channel 1 (a subgraph): IN * FACTOR + 2.
constexpr char kStreamGraph[] = R"pb(
  input_stream: "in"
  input_stream: "sel"
  output_stream: "out"
  node {
    name: "switch"
    calculator: "SwitchContainer"
    input_stream: "SELECT:sel"
    input_stream: "IN:in"
    input_side_packet: "FACTOR:factor"
    output_stream: "OUT:out"
    options: { [mediapipe.SwitchContainerOptions.ext] {
      contained_node { calculator: "TestScaleNode" }
      contained_node { calculator: "TestSwitchScalePlusTwoSubgraph" }
    } }
  }
)pb";

TEST_F(SwitchContainerTest, SelectStreamRoutesEachTimestampToItsChannel) {
  auto r = RunGraph(kStreamGraph,
                    {{"in", {{0, 10}, {1, 20}, {2, 30}, {3, 40}, {4, 50}}},
                     {"sel", {{0, 0}, {2, 1}, {4, 0}}}},
                    {{"factor", MakePacket<int>(3)}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  // 0,1: channel 0 (x3); 2,3: channel 1 (x3 + 2); 4: channel 0 again. One
  // packet per input: the channel not selected sends nothing.
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{30, 60, 92, 122, 150}));
  EXPECT_EQ(Timestamps(r.outputs["out"]), (std::vector<int64_t>{0, 1, 2, 3, 4}));

  // What each contained node received: only its own timestamps.
  std::string observed = kStreamGraph;
  observed.insert(observed.find("node {"),
                  R"(output_stream: "switch__c0__in_in_0"
                     output_stream: "switch__c1__in_in_0" )");
  auto channels = RunGraph(observed,
                           {{"in", {{0, 10}, {1, 20}, {2, 30}, {3, 40}, {4, 50}}},
                            {"sel", {{0, 0}, {2, 1}, {4, 0}}}},
                           {{"factor", MakePacket<int>(3)}});
  ASSERT_TRUE(channels.status.ok()) << channels.status;
  EXPECT_EQ(Values(channels.outputs["switch__c0__in_in_0"]),
            (std::vector<int>{10, 20, 50}));
  EXPECT_EQ(Timestamps(channels.outputs["switch__c0__in_in_0"]),
            (std::vector<int64_t>{0, 1, 4}));
  EXPECT_EQ(Values(channels.outputs["switch__c1__in_in_0"]),
            (std::vector<int>{30, 40}));
}

TEST_F(SwitchContainerTest, SelectSidePacketRoutesEveryStreamPacket) {
  std::string graph = kStreamGraph;
  graph.replace(graph.find(R"(input_stream: "SELECT:sel")"),
                std::string(R"(input_stream: "SELECT:sel")").size(),
                R"(input_side_packet: "SELECT:which")");
  for (int which : {0, 1}) {
    auto r = RunGraph(graph, {{"in", {{0, 1}, {3, 2}, {7, 3}}}},
                      {{"factor", MakePacket<int>(10)}, {"which", MakePacket<int>(which)}});
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(Values(r.outputs["out"]),
              which == 0 ? (std::vector<int>{10, 20, 30})
                         : (std::vector<int>{12, 22, 32}));
    EXPECT_EQ(Timestamps(r.outputs["out"]), (std::vector<int64_t>{0, 3, 7}));
  }
}

// Untagged ports by index (MediaPipe's face landmark graph splits its model
// outputs this way): with a side-packet selection each port gets a demux or
// mux of its own, which carries it at index 0.
TEST_F(SwitchContainerTest, SeveralUntaggedPortsWithSidePacketSelection) {
  const std::string graph = R"pb(
    input_stream: "a"
    input_stream: "b"
    output_stream: "x"
    output_stream: "y"
    input_side_packet: "which"
    node {
      calculator: "SwitchContainer"
      input_side_packet: "ENABLE:which"
      input_stream: "a"
      input_stream: "b"
      output_stream: "x"
      output_stream: "y"
      options: { [mediapipe.SwitchContainerOptions.ext] {
        contained_node { calculator: "TestPassThroughCalculator" }
        contained_node { calculator: "TestPassThroughCalculator" }
      } }
    }
  )pb";
  for (bool which : {false, true}) {
    auto r = RunGraph(graph, {{"a", {{0, 1}, {5, 2}}}, {"b", {{0, 7}, {5, 8}}}},
                      {{"which", MakePacket<bool>(which)}});
    ASSERT_TRUE(r.status.ok()) << r.status;
    EXPECT_EQ(Values(r.outputs["x"]), (std::vector<int>{1, 2}));
    EXPECT_EQ(Values(r.outputs["y"]), (std::vector<int>{7, 8}));
  }
}

TEST_F(SwitchContainerTest, SelectPacketWithoutDataChangesLaterTimestamps) {
  auto r = RunGraph(kStreamGraph, {{"in", {{0, 1}, {5, 2}, {6, 3}}},
                                   {"sel", {{0, 1}, {3, 0}}}},
                    {{"factor", MakePacket<int>(1)}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{3, 2, 3}));
  EXPECT_EQ(Timestamps(r.outputs["out"]), (std::vector<int64_t>{0, 5, 6}));
}

TEST_F(SwitchContainerTest, SlowChannelKeepsTimestampOrderOnUntaggedPorts) {
  // Channel 1 sleeps, so channel 0's packets of later timestamps reach the
  // mux first; the output still follows the timestamps.
  auto r = RunGraph(R"pb(
    input_stream: "in"
    input_stream: "sel"
    output_stream: "out"
    node {
      calculator: "SwitchContainer"
      input_stream: "SELECT:sel"
      input_stream: "in"
      output_stream: "out"
      options: { [mediapipe.SwitchContainerOptions.ext] {
        contained_node { calculator: "TestAddOneCalculator" }
        contained_node { calculator: "TestSleepCalculator"
                         options: { [mediapipe.TestOptions.ext] { value: 3000 } } }
      } }
    }
  )pb",
                    {{"in", {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5},
                             {6, 6}, {7, 7}, {8, 8}, {9, 9}}},
                     {"sel", {{0, 1}, {2, 0}, {4, 1}, {6, 0}, {8, 1}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]),
            (std::vector<int>{0, 1, 3, 4, 4, 5, 7, 8, 8, 9}));
  EXPECT_EQ(Timestamps(r.outputs["out"]),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(SwitchContainerTest, OutOfRangeSelectPacketNamesTheNode) {
  auto r = RunGraph(kStreamGraph, {{"in", {{0, 1}, {1, 2}}}, {"sel", {{1, 4}}}},
                    {{"factor", MakePacket<int>(1)}});
  ASSERT_FALSE(r.status.ok());
  const std::string m(r.status.message());
  EXPECT_NE(m.find("switch__switch_"), std::string::npos) << m;
  EXPECT_NE(m.find("SELECT packet at 1 selects channel 4"), std::string::npos)
      << m;
}

TEST_F(SwitchContainerTest, EnableStreamSwitchesBetweenChannelZeroAndOne) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "in"
    input_stream: "on"
    output_stream: "out"
    node {
      calculator: "SwitchContainer"
      input_stream: "ENABLE:on"
      input_stream: "IN:in"
      input_side_packet: "FACTOR:factor"
      output_stream: "OUT:out"
      options: { [mediapipe.SwitchContainerOptions.ext] {
        contained_node { calculator: "TestScaleNode" }
        contained_node { calculator: "TestSwitchScalePlusTwoSubgraph" }
      } }
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  std::vector<Packet> out;
  ASSERT_TRUE(graph
                  .ObserveOutputStream("out",
                                       [&](const Packet& p) {
                                         out.push_back(p);
                                         return absl::OkStatus();
                                       })
                  .ok());
  ASSERT_TRUE(graph.StartRun({{"factor", MakePacket<int>(2)}}).ok());
  for (int t = 0; t < 4; ++t) {
    ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(t).At(Timestamp(t))).ok());
    ASSERT_TRUE(graph.AddPacketToInputStream("on", MakePacket<bool>(t % 2 == 1).At(Timestamp(t))).ok());
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
  // Even timestamps: x2; odd: x2 + 2.
  EXPECT_EQ(Values(out), (std::vector<int>{0, 4, 4, 8}));
}

TEST_F(SwitchContainerTest, ContainedNodesTakeOptionValueFromTheEnclosingGraph) {
  const std::string graph = R"pb(
    output_stream: "out"
    node { calculator: "TestSwitchPickerSubgraph"
           input_side_packet: "SELECT:sel" output_side_packet: "VALUE:v"
           NODE_OPTIONS }
    node { calculator: "TestSideToStreamCalculator"
           input_side_packet: "IN:v" output_stream: "out" }
  )pb";
  auto with = [&](const std::string& node_options, int select) {
    std::string text = graph;
    text.replace(text.find("NODE_OPTIONS"), 12, node_options);
    auto r = RunGraph(text, {}, {{"sel", MakePacket<int>(select)}});
    EXPECT_TRUE(r.status.ok()) << r.status;
    return r.outputs["out"].empty() ? -1 : r.outputs["out"][0].Get<int>();
  };
  EXPECT_EQ(with("", 0), 1);
  // The subgraph's default graph option (offset 7) replaces value 2.
  EXPECT_EQ(with("", 1), 7);
  // The invoking node's graph options override that default.
  EXPECT_EQ(with(R"(node_options: { [type.googleapis.com/rill.TestGraphOptions] { offset: 99 } })", 1),
            99);
}

TEST_F(SwitchContainerTest, ExpansionRoutesChannelTagsAndKeepsOptions) {
  auto config = ParseGraphConfigText(SidePacketGraph(
      R"(input_side_packet: "SELECT:sel")", "select: 1"));
  ASSERT_TRUE(config.ok());
  ASSERT_TRUE(ExpandSubgraphs(&*config).ok());
  // Three contained nodes, the mux, the consumer; no demux (no inputs).
  ASSERT_EQ(config->node_size(), 5);
  const auto& first = config->node(0);
  EXPECT_EQ(first.calculator(), "TestSidePacketProducerCalculator");
  ASSERT_EQ(first.output_side_packet_size(), 1);
  EXPECT_EQ(first.output_side_packet(0), "OUT:0:picker__c0__side_out_out_0");
  EXPECT_EQ(first.options().GetExtension(TestOptions::ext).value(), 10);
  const auto& mux = config->node(3);
  EXPECT_EQ(mux.calculator(), "SwitchMuxCalculator");
  EXPECT_EQ(mux.name(), "picker__switch_mux_side");
  ASSERT_EQ(mux.input_side_packet_size(), 4);
  EXPECT_EQ(mux.input_side_packet(0), "SELECT:sel");
  EXPECT_EQ(mux.input_side_packet(2), "C1__OUT:0:picker__c1__side_out_out_0");
  EXPECT_EQ(mux.output_side_packet(0), "OUT:0:picked");
  // The mux keeps select but not the contained nodes.
  const auto& o = mux.options().GetExtension(SwitchContainerOptions::ext);
  EXPECT_EQ(o.select(), 1);
  EXPECT_EQ(o.contained_node_size(), 0);
}

TEST_F(SwitchContainerTest, WithoutASelectStreamEachStreamHasItsOwnDemuxAndMux) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "a" input_stream: "b"
    node {
      name: "s"
      calculator: "SwitchContainer"
      input_stream: "A:a" input_stream: "B:b"
      output_stream: "OUT:0:x" output_stream: "OUT:1:y"
      options: { [mediapipe.SwitchContainerOptions.ext] {
        contained_node { calculator: "TestPassThroughCalculator" }
        contained_node { calculator: "TestPassThroughCalculator" }
      } }
    }
  )pb");
  ASSERT_TRUE(config.ok());
  ASSERT_TRUE(ExpandSubgraphs(&*config).ok());
  std::map<std::string, std::vector<std::string>> ports;  // name -> inputs
  for (const auto& n : config->node()) {
    std::vector<std::string> in(n.input_stream().begin(), n.input_stream().end());
    ports[n.name()] = in;
  }
  EXPECT_EQ(ports["s__switch_demux_in_a_0"], (std::vector<std::string>{"A:0:a"}));
  EXPECT_EQ(ports["s__switch_demux_in_b_0"], (std::vector<std::string>{"B:0:b"}));
  EXPECT_EQ(ports["s__switch_mux_out_out_0"],
            (std::vector<std::string>{"C0__OUT:0:s__c0__out_out_0",
                                      "C1__OUT:0:s__c1__out_out_0"}));
  // A mux of its own carries its one port at index 0 (index 1 alone would
  // leave a gap in the mux's OUT indexes).
  EXPECT_EQ(ports["s__switch_mux_out_out_1"],
            (std::vector<std::string>{"C0__OUT:0:s__c0__out_out_1",
                                      "C1__OUT:0:s__c1__out_out_1"}));
  EXPECT_EQ(ports["s__test_pass_through_calculator_1"],
            (std::vector<std::string>{"A:0:s__c1__in_a_0", "B:0:s__c1__in_b_0"}));
}

TEST_F(SwitchContainerTest, BoundsPassThroughTheSelectedChannelAtOnce) {
  // Channel 1 drops odd values but moves its bound; the adder after the
  // container runs as soon as that bound passes, with no packet from it and
  // without the graph's inputs closing.
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "in"
    output_stream: "sum"
    node {
      calculator: "SwitchContainer"
      input_stream: "in"
      output_stream: "filtered"
      options: { [mediapipe.SwitchContainerOptions.ext] {
        select: 1
        contained_node { calculator: "TestAddOneCalculator" }
        contained_node { calculator: "TestEvenFilterCalculator" }
      } }
    }
    node { calculator: "TestAdderCalculator" input_stream: "in"
           input_stream: "filtered" output_stream: "sum" }
  )pb");
  ASSERT_TRUE(config.ok());
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  std::vector<Packet> sums;
  std::mutex mu;
  ASSERT_TRUE(graph.ObserveOutputStream("sum", [&](const Packet& p) {
    std::lock_guard<std::mutex> lock(mu);
    sums.push_back(p);
    return absl::OkStatus();
  }).ok());
  ASSERT_TRUE(graph.StartRun({}).ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(3).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.WaitUntilIdle().ok());
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(Values(sums), (std::vector<int>{3}));  // 3 alone: filtered out
  }
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(4).At(Timestamp(1))).ok());
  ASSERT_TRUE(graph.WaitUntilIdle().ok());
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(Values(sums), (std::vector<int>{3, 8}));  // 4 + 4
  }
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  ASSERT_TRUE(graph.WaitUntilDone().ok());
}

}  // namespace
}  // namespace rill
