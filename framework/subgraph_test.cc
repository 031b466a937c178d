// Subgraphs from C++ and from .pbtxt, graph_options/option_value plumbing,
// both option syntaxes and MediaPipe's type names.
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "framework/graph.h"
#include "framework/test_calculators.h"
#include "framework/testdata/test_options.pb.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using testing::RunGraph;
using testing::Values;

// C++ subgraph: IN -> +1 -> +1 -> OUT.
class TestAddTwoSubgraph : public Subgraph {
 public:
  absl::StatusOr<CalculatorGraphConfig> GetConfig(
      const SubgraphOptions& options) override {
    return ParseGraphConfigText(R"pb(
      input_stream: "IN:x"
      output_stream: "OUT:z"
      node { calculator: "TestAddOneCalculator" input_stream: "x" output_stream: "y" }
      node { calculator: "TestAddOneCalculator" input_stream: "y" output_stream: "z" }
    )pb");
  }
};
REGISTER_SUBGRAPH(TestAddTwoSubgraph);

// A MediaPipe-style module: graph_options with defaults, option_value
// bindings into a node's proto2 options.
constexpr char kReporterSubgraph[] = R"pb(
  type: "TestReporterSubgraph"
  output_stream: "VALUE:value"
  output_stream: "LABEL:label"
  output_stream: "SCALE:scale"
  output_stream: "VALUES:values"
  graph_options: {
    [type.googleapis.com/mediapipe.TestGraphOptions] { offset: 7 name: "default" }
  }
  node {
    calculator: "TestOptionsReporterCalculator"
    output_stream: "VALUE:value"
    output_stream: "LABEL:label"
    output_stream: "SCALE:scale"
    output_stream: "VALUES:values"
    options: { [mediapipe.TestOptions.ext] { value: 1 label: "unbound" scale: 0.5 } }
    option_value: "value:options/offset"
    option_value: "label:name"
    option_value: "scale:options/factor"
    option_value: "values:list"
  }
)pb";

// Wraps the reporter; passes its own graph options down whole.
constexpr char kWrapperSubgraph[] = R"pb(
  type: "TestWrapperSubgraph"
  output_stream: "VALUE:v"
  graph_options: { [type.googleapis.com/rill.TestGraphOptions] { offset: 100 } }
  node {
    calculator: "TestReporterSubgraph"
    output_stream: "VALUE:v"
    node_options: { [type.googleapis.com/rill.TestGraphOptions] { name: "inner" } }
    option_value: "OPTIONS:options"
  }
)pb";

class SubgraphTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(kReporterSubgraph)).ok());
    ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(kWrapperSubgraph)).ok());
  }
};

TEST_F(SubgraphTest, CppSubgraphExpands) {
  auto r = RunGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { calculator: "TestAddTwoSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb",
                    {{"in", {{0, 1}, {1, 10}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{3, 12}));
}

TEST_F(SubgraphTest, ExpandedNamesArePrefixedAndUnique) {
  auto config = ParseGraphConfigText(R"pb(
    input_stream: "in"
    node { calculator: "TestAddTwoSubgraph" input_stream: "IN:in" output_stream: "OUT:a" }
    node { calculator: "TestAddTwoSubgraph" input_stream: "IN:a" output_stream: "OUT:b" }
  )pb");
  ASSERT_TRUE(config.ok());
  ASSERT_TRUE(ExpandSubgraphs(&*config).ok());
  ASSERT_EQ(config->node_size(), 4);
  EXPECT_EQ(config->node(0).name(), "test_add_two_subgraph__test_add_one_calculator");
  EXPECT_EQ(config->node(0).output_stream(0), "test_add_two_subgraph__y");
  EXPECT_EQ(config->node(1).output_stream(0), "a");
  EXPECT_EQ(config->node(2).name(), "test_add_two_subgraph_1__test_add_one_calculator");
  EXPECT_EQ(config->node(2).input_stream(0), "a");
}

TEST_F(SubgraphTest, GraphOptionsDefaultsFlowThroughOptionValue) {
  auto r = RunGraph(R"pb(
    output_stream: "v" output_stream: "l" output_stream: "s" output_stream: "vs"
    node { calculator: "TestReporterSubgraph" output_stream: "VALUE:v"
           output_stream: "LABEL:l" output_stream: "SCALE:s" output_stream: "VALUES:vs" }
  )pb");
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.outputs["v"][0].Get<int>(), 7);
  EXPECT_EQ(r.outputs["l"][0].Get<std::string>(), "default");
  // factor unset in the graph options: the node keeps its own scale.
  EXPECT_FLOAT_EQ(r.outputs["s"][0].Get<float>(), 0.5f);
  EXPECT_EQ(r.outputs["vs"][0].Get<int>(), 0);
}

TEST_F(SubgraphTest, NodeOptionsOverrideGraphOptionsInBothSyntaxes) {
  // proto3-style node_options (Any) with MediaPipe's type name.
  auto any_syntax = RunGraph(R"pb(
    output_stream: "v" output_stream: "l" output_stream: "s" output_stream: "vs"
    node {
      calculator: "TestReporterSubgraph"
      output_stream: "VALUE:v" output_stream: "LABEL:l" output_stream: "SCALE:s"
      output_stream: "VALUES:vs"
      node_options: {
        [type.googleapis.com/mediapipe.TestGraphOptions] {
          offset: 42 factor: 2.5 list: 1 list: 2 list: 3
        }
      }
    }
  )pb");
  ASSERT_TRUE(any_syntax.status.ok()) << any_syntax.status;
  EXPECT_EQ(any_syntax.outputs["v"][0].Get<int>(), 42);
  EXPECT_EQ(any_syntax.outputs["l"][0].Get<std::string>(), "default");
  EXPECT_FLOAT_EQ(any_syntax.outputs["s"][0].Get<float>(), 2.5f);
  EXPECT_EQ(any_syntax.outputs["vs"][0].Get<int>(), 6);
}

TEST_F(SubgraphTest, NestedSubgraphPassesWholeOptions) {
  auto r = RunGraph(R"pb(
    output_stream: "out"
    node { calculator: "TestWrapperSubgraph" output_stream: "VALUE:out" }
  )pb");
  ASSERT_TRUE(r.status.ok()) << r.status;
  // Wrapper default offset 100 reaches the reporter through OPTIONS:options.
  EXPECT_EQ(r.outputs["out"][0].Get<int>(), 100);
}

TEST_F(SubgraphTest, UnknownSubgraphPortIsAnError) {
  auto r = RunGraph(R"pb(
    input_stream: "in"
    node { name: "s" calculator: "TestAddTwoSubgraph" input_stream: "IN:in"
           input_stream: "EXTRA:in" output_stream: "OUT:out" }
  )pb");
  EXPECT_NE(r.status.message().find("node \"s\" (subgraph TestAddTwoSubgraph)"),
            std::string::npos) << r.status;
  EXPECT_NE(r.status.message().find("EXTRA:0:in"), std::string::npos);
}

TEST_F(SubgraphTest, BadOptionValueIsAnError) {
  ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(R"pb(
    type: "TestBadBindingSubgraph"
    output_stream: "VALUE:v"
    graph_options: { [type.googleapis.com/rill.TestGraphOptions] {} }
    node { calculator: "TestOptionsReporterCalculator" output_stream: "VALUE:v"
           options: { [rill.TestOptions.ext] {} }
           option_value: "value:options/no_such_field" }
  )pb")).ok());
  auto r = RunGraph(R"pb(
    output_stream: "v"
    node { calculator: "TestBadBindingSubgraph" output_stream: "VALUE:v"
           node_options: { [type.googleapis.com/rill.TestGraphOptions] { offset: 1 } } }
  )pb");
  EXPECT_NE(r.status.message().find("no_such_field"), std::string::npos) << r.status;
}

TEST_F(SubgraphTest, RecursionIsReported) {
  ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(R"pb(
    type: "TestForeverSubgraph"
    input_stream: "IN:x" output_stream: "OUT:y"
    node { calculator: "TestForeverSubgraph" input_stream: "IN:x" output_stream: "OUT:y" }
  )pb")).ok());
  auto r = RunGraph(R"pb(
    input_stream: "in"
    node { calculator: "TestForeverSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb");
  EXPECT_NE(r.status.message().find("contain itself"), std::string::npos) << r.status;
}

TEST_F(SubgraphTest, SubgraphFileBesideTheGraphIsFound) {
  const std::string dir = ::testing::TempDir() + "/subgraph_dir";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  {
    std::ofstream f(dir + "/plus_three.pbtxt");
    f << R"pb(
      # A MediaPipe-style subgraph file.
      type: "TestPlusThreeSubgraph"
      input_stream: "IN:a"
      output_stream: "OUT:d"
      node { calculator: "TestAddOneCalculator" input_stream: "a" output_stream: "b" }
      node { calculator: "TestAddTwoSubgraph" input_stream: "IN:b" output_stream: "OUT:d" }
    )pb";
  }
  {
    std::ofstream f(dir + "/main.pbtxt");
    f << R"pb(
      input_stream: "in"
      output_stream: "out"
      node { calculator: "TestPlusThreeSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
    )pb";
  }
  CalculatorGraph graph;
  ASSERT_TRUE(graph.InitializeFromFile(dir + "/main.pbtxt").ok());
  auto poller = graph.AddOutputStreamPoller("out");
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  Packet p;
  ASSERT_TRUE(poller->Next(&p));
  EXPECT_EQ(p.Get<int>(), 4);
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

// Two files of one folder declare the same type (MediaPipe's
// face_detection module has face_detection_short_range_cpu.pbtxt and
// face_detection_short_range_image.pbtxt both saying
// FaceDetectionShortRangeCpu): the file named after the type is the one
// used, whatever order the folder lists them in.
TEST_F(SubgraphTest, DuplicateTypeOnThePathPrefersTheFileNamedAfterIt) {
  const std::string dir = ::testing::TempDir() + "/subgraph_duplicates";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  // Added 1 (sorts first) and 2 (named after the type).
  for (const auto& [file, add] :
       std::vector<std::pair<std::string, std::string>>{
           {"aaa_variant.pbtxt", "TestAddOneCalculator"},
           {"test_dup_type_subgraph.pbtxt", "TestAddTwoSubgraph"}}) {
    std::ofstream f(dir + "/" + file);
    f << "type: \"TestDupTypeSubgraph\"\ninput_stream: \"IN:a\"\noutput_stream: \"OUT:b\"\n"
      << "node { calculator: \"" << add << "\" input_stream: \""
      << (add == "TestAddOneCalculator" ? "a" : "IN:a") << "\" output_stream: \""
      << (add == "TestAddOneCalculator" ? "b" : "OUT:b") << "\" }\n";
  }
  {
    std::ofstream f(dir + "/main.pbtxt");
    f << "input_stream: \"in\"\noutput_stream: \"out\"\n"
         "node { calculator: \"TestDupTypeSubgraph\" input_stream: \"IN:in\" "
         "output_stream: \"OUT:out\" }\n";
  }
  CalculatorGraph graph;
  ASSERT_TRUE(graph.InitializeFromFile(dir + "/main.pbtxt").ok());
  auto poller = graph.AddOutputStreamPoller("out");
  ASSERT_TRUE(graph.StartRun().ok());
  ASSERT_TRUE(graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(0))).ok());
  ASSERT_TRUE(graph.CloseAllInputStreams().ok());
  Packet p;
  ASSERT_TRUE(poller->Next(&p));
  EXPECT_EQ(p.Get<int>(), 3);
  EXPECT_TRUE(graph.WaitUntilDone().ok());
}

// A subgraph file on the path that declares the type but does not parse is
// reported with its own error (file, line, cause), not as an unknown
// calculator (MediaPipe's selfie_segmentation_cpu.pbtxt once showed up as
// "no calculator named SelfieSegmentationCpu").
TEST_F(SubgraphTest, BrokenSubgraphFileIsReportedWithItsOwnError) {
  const std::string dir = ::testing::TempDir() + "/subgraph_broken";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  {
    std::ofstream f(dir + "/test_broken_subgraph.pbtxt");
    f << "type: \"TestBrokenSubgraph\"\ninput_stream: \"IN:a\"\n"
         "node { calculator: \"TestAddOneCalculator\" input_stream: \"a\" oops }\n";
  }
  {
    std::ofstream f(dir + "/main.pbtxt");
    f << "input_stream: \"in\"\n"
         "node { calculator: \"TestBrokenSubgraph\" input_stream: \"IN:in\" }\n";
  }
  CalculatorGraph graph;
  const absl::Status s = graph.InitializeFromFile(dir + "/main.pbtxt");
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_NE(m.find("test_broken_subgraph.pbtxt"), std::string::npos) << m;
  EXPECT_NE(m.find("failed to load"), std::string::npos) << m;
  EXPECT_NE(m.find(":3"), std::string::npos) << m;  // the line of the error
  EXPECT_EQ(m.find("no calculator named"), std::string::npos) << m;
}

TEST_F(SubgraphTest, SubgraphPathDirectiveNamesAnotherFolder) {
  const std::string root = ::testing::TempDir() + "/subgraph_path_dirs";
  ASSERT_EQ(system(("mkdir -p " + root + "/lib " + root + "/app").c_str()), 0);
  {
    std::ofstream f(root + "/lib/plus_ten.pbtxt");
    f << R"pb(
      type: "TestPlusTenSubgraph"
      input_stream: "IN:a" output_stream: "OUT:b"
      node { calculator: "TestScaleNode" input_stream: "IN:a" output_stream: "OUT:b" }
    )pb";
  }
  {
    std::ofstream f(root + "/app/main.pbtxt");
    f << "# rill:subgraph_path ../lib\n"
         "input_stream: \"in\"\noutput_stream: \"out\"\n"
         "node { calculator: \"TestPlusTenSubgraph\" input_stream: \"IN:in\" "
         "output_stream: \"OUT:out\" }\n";
  }
  CalculatorGraph graph;
  absl::Status s = graph.InitializeFromFile(root + "/app/main.pbtxt");
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(SubgraphTest, UnconnectedSubgraphInputBecomesAnAbsentOptionalPort) {
  // The scale node's FACTOR side packet is optional: left unconnected by the
  // invoking node, the subgraph's FACTOR input disappears from it.
  ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(R"pb(
    type: "TestOptionalFactorSubgraph"
    input_stream: "IN:x" input_side_packet: "FACTOR:f"
    output_stream: "OUT:y"
    node { calculator: "TestScaleNode" input_stream: "IN:x"
           input_side_packet: "FACTOR:f" output_stream: "OUT:y" }
  )pb")).ok());
  auto without = RunGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { calculator: "TestOptionalFactorSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb",
                          {{"in", {{0, 5}}}});
  ASSERT_TRUE(without.status.ok()) << without.status;
  EXPECT_EQ(Values(without.outputs["out"]), (std::vector<int>{5}));
  auto with = RunGraph(R"pb(
    input_stream: "in" output_stream: "out" input_side_packet: "k"
    node { calculator: "TestOptionalFactorSubgraph" input_stream: "IN:in"
           input_side_packet: "FACTOR:k" output_stream: "OUT:out" }
  )pb",
                       {{"in", {{0, 5}}}}, {{"k", MakePacket<int>(3)}});
  ASSERT_TRUE(with.status.ok()) << with.status;
  EXPECT_EQ(Values(with.outputs["out"]), (std::vector<int>{15}));
  // A required input left unconnected is still an error, naming the node.
  auto required = RunGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { calculator: "TestOptionalFactorSubgraph" input_side_packet: "FACTOR:k"
           output_stream: "OUT:out" }
  )pb");
  EXPECT_NE(required.status.message().find("\"IN\""), std::string::npos) << required.status;
}

TEST_F(SubgraphTest, OptionalSubgraphInputMayStayUnconnected) {
  ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(R"pb(
    type: "TestOptionalInputSubgraph"
    input_stream: "IN:x" input_stream: "FACTOR_STREAM:unused"
    output_stream: "OUT:y"
    node { calculator: "TestAddOneCalculator" input_stream: "x" output_stream: "y" }
  )pb")).ok());
  auto r = RunGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { calculator: "TestOptionalInputSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb",
                    {{"in", {{0, 5}}}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(Values(r.outputs["out"]), (std::vector<int>{6}));
}

TEST(OptionValueTest, CopiesAndConvertsFields) {
  TestGraphOptions graph_options;
  graph_options.set_offset(3);
  graph_options.set_factor(1.25);
  CalculatorGraphConfig::Node node;
  node.mutable_options()->MutableExtension(TestOptions::ext)->set_value(9);
  ASSERT_TRUE(ApplyOptionValue("value:options/offset", {&graph_options}, &node).ok());
  ASSERT_TRUE(ApplyOptionValue("scale:factor", {&graph_options}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 3);
  EXPECT_FLOAT_EQ(node.options().GetExtension(TestOptions::ext).scale(), 1.25f);
  // A type mismatch names both fields.
  absl::Status s = ApplyOptionValue("label:offset", {&graph_options}, &node);
  EXPECT_NE(s.message().find("rill.TestOptions.label"), std::string::npos) << s;
  EXPECT_FALSE(ApplyOptionValue("no_colon", {&graph_options}, &node).ok());
}


// MediaPipe's option_value path syntax beyond plain field names: element
// indexes, nested messages, Ext:: type steps, and "OPTIONS" prefixes on
// either side.
TEST(OptionValueTest, IndexesPickOneElementOnEitherSide) {
  TestGraphOptions g;
  g.add_list(10);
  g.add_list(20);
  g.add_list(30);
  CalculatorGraphConfig::Node node;
  auto* o = node.mutable_options()->MutableExtension(TestOptions::ext);
  o->add_values(1);
  o->add_values(2);
  o->add_values(3);
  ASSERT_TRUE(ApplyOptionValue("value:options/list/2", {&g}, &node).ok());
  ASSERT_TRUE(ApplyOptionValue("values/1:list/0", {&g}, &node).ok());
  // One past the end appends.
  ASSERT_TRUE(ApplyOptionValue("values/3:list/1", {&g}, &node).ok());
  const TestOptions& got = node.options().GetExtension(TestOptions::ext);
  EXPECT_EQ(got.value(), 30);
  EXPECT_EQ(std::vector<int>(got.values().begin(), got.values().end()),
            (std::vector<int>{1, 10, 3, 20}));
  // An element the graph options do not have leaves the node's value.
  ASSERT_TRUE(ApplyOptionValue("value:list/7", {&g}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 30);
  // Past the end by more than one, a list into one value, an index on a
  // singular field: errors that name the field.
  g.set_offset(4);
  absl::Status past = ApplyOptionValue("values/9:offset", {&g}, &node);
  EXPECT_NE(past.message().find("past its end"), std::string::npos) << past;
  absl::Status list = ApplyOptionValue("value:list", {&g}, &node);
  EXPECT_NE(list.message().find("one is a list"), std::string::npos) << list;
  absl::Status singular = ApplyOptionValue("value/0:offset", {&g}, &node);
  EXPECT_NE(singular.message().find("is not repeated"), std::string::npos)
      << singular;
}

TEST(OptionValueTest, NestedMessagesAndUnsetParents) {
  TestGraphOptions g;
  CalculatorGraphConfig::Node node;
  node.mutable_options()->MutableExtension(TestOptions::ext)->set_value(5);
  // inner is unset: nothing to copy, the node keeps 5.
  ASSERT_TRUE(ApplyOptionValue("value:options/inner/value", {&g}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 5);
  g.mutable_inner()->set_value(8);
  g.add_inners()->set_label("first");
  g.add_inners()->set_label("second");
  ASSERT_TRUE(ApplyOptionValue("OPTIONS/value:options/inner/value", {&g}, &node).ok());
  ASSERT_TRUE(ApplyOptionValue("label:inners/1/label", {&g}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 8);
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).label(), "second");
  // A repeated message field needs an element to walk through.
  absl::Status s = ApplyOptionValue("label:inners/label", {&g}, &node);
  EXPECT_NE(s.message().find("name an element"), std::string::npos) << s;
}

TEST(OptionValueTest, ExtStepsPickTheOptionsMessageOfAType) {
  // Two graph options messages that both have a field the path could name.
  TestGraphOptions g;
  g.set_offset(1);
  TestOptions t;
  t.set_value(2);
  t.set_label("from TestOptions");
  CalculatorGraphConfig::Node node;
  node.mutable_options()->MutableExtension(TestOptions::ext);
  ASSERT_TRUE(ApplyOptionValue("Ext::rill.TestOptions/value:options/Ext::rill.TestOptions/value",
                               {&g, &t}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 2);
  // MediaPipe's package name resolves to Rill's message.
  ASSERT_TRUE(ApplyOptionValue("value:Ext::mediapipe.TestGraphOptions/offset", {&g, &t}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 1);
  // The whole graph options message of one type, into a node that has
  // options of that type.
  ASSERT_TRUE(ApplyOptionValue("OPTIONS:options/Ext::rill.TestOptions", {&g, &t}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).label(), "from TestOptions");
  // A type the graph options do not hold, and one nobody defines.
  absl::Status s = ApplyOptionValue("value:Ext::rill.TestNoSuch/value", {&g}, &node);
  EXPECT_NE(s.message().find("hold no rill.TestNoSuch"), std::string::npos) << s;
  s = ApplyOptionValue("Ext::rill.TestNoSuch/value:offset", {&g}, &node);
  EXPECT_NE(s.message().find("rill.TestNoSuch is not a known message"), std::string::npos) << s;
}

// A node with both `options` (a proto2 extension) and `node_options` (an
// Any) of different types: each binding lands in the message that has its
// field, or in the one its Ext:: step names, and each keeps its syntax.
TEST(OptionValueTest, OptionsAndNodeOptionsOnOneNode) {
  TestGraphOptions g;
  g.set_offset(5);
  g.set_name("both");
  CalculatorGraphConfig::Node node;
  node.mutable_options()->MutableExtension(TestOptions::ext)->set_value(1);
  TestGraphOptions any;
  any.set_offset(2);
  node.add_node_options()->PackFrom(any);
  ASSERT_TRUE(ApplyOptionValue("label:name", {&g}, &node).ok());
  ASSERT_TRUE(ApplyOptionValue("Ext::rill.TestGraphOptions/offset:offset", {&g}, &node).ok());
  ASSERT_TRUE(ApplyOptionValue("Ext::rill.TestOptions/value:offset", {&g}, &node).ok());
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).label(), "both");
  EXPECT_EQ(node.options().GetExtension(TestOptions::ext).value(), 5);
  ASSERT_EQ(node.node_options_size(), 1);
  TestGraphOptions got;
  ASSERT_TRUE(node.node_options(0).UnpackTo(&got));
  EXPECT_EQ(got.offset(), 5);
}

TEST(OptionValueTest, ExtStepOnTheNodeSideMakesOptionsOfThatType) {
  TestGraphOptions g;
  g.set_name("made");
  CalculatorGraphConfig::Node node;  // no options at all
  ASSERT_TRUE(ApplyOptionValue("Ext::rill.TestOptions/label:name", {&g}, &node).ok());
  ASSERT_EQ(node.node_options_size(), 1);
  TestOptions made;
  ASSERT_TRUE(node.node_options(0).UnpackTo(&made));
  EXPECT_EQ(made.label(), "made");
}

}  // namespace
}  // namespace rill
