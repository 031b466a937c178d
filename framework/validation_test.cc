// Every graph-building error names the node and the stream or field at fault.
#include "framework/graph.h"
#include "framework/test_calculators.h"
#include "framework/tool/config_loader.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

absl::Status Build(const std::string& text) {
  auto config = ParseGraphConfigText(text, "test.pbtxt");
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  return graph.Initialize(*config);
}

void ExpectError(const std::string& text, std::vector<std::string> needles) {
  absl::Status s = Build(text);
  ASSERT_FALSE(s.ok()) << text;
  for (const std::string& n : needles) {
    EXPECT_NE(s.message().find(n), std::string::npos)
        << "missing \"" << n << "\" in: " << s.message();
  }
}

TEST(ValidationTest, ValidGraphBuilds) {
  EXPECT_TRUE(Build(R"pb(
    input_stream: "in"
    node { calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out" }
  )pb").ok());
}

TEST(ValidationTest, UnknownCalculatorSuggestsCloseNamesAndPlugins) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "n1" calculator: "TestAddOneCalculatr" input_stream: "in" output_stream: "out" }
  )pb",
              {"node \"n1\"", "TestAddOneCalculatr", "did you mean",
               "\"TestAddOneCalculator\"", "plugin"});
}

TEST(ValidationTest, UnconnectedInput) {
  ExpectError(R"pb(
    node { name: "n1" calculator: "TestAddOneCalculator" input_stream: "ghost" output_stream: "out" }
  )pb",
              {"node \"n1\"", "\"ghost\"", "not connected"});
}

TEST(ValidationTest, RequiredPortMissing) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "n1" calculator: "TestScaleNode" input_stream: "in" output_stream: "OUT:out" }
  )pb",
              {"node \"n1\"", "TestScaleNode", "\"IN\"", "does not connect"});
}

TEST(ValidationTest, PortTheCalculatorDoesNotUse) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "n1" calculator: "TestScaleNode" input_stream: "IN:in"
           input_stream: "EXTRA:in" output_stream: "OUT:out" }
  )pb",
              {"node \"n1\"", "EXTRA:0:in", "does not use it"});
}

TEST(ValidationTest, TwoProducersOfOneStream) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "p1" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x" }
    node { name: "p2" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x" }
  )pb",
              {"stream \"x\" has two producers", "node \"p1\"", "node \"p2\""});
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "p1" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "in" }
  )pb",
              {"stream \"in\" has two producers", "graph's input_stream"});
}

TEST(ValidationTest, TypeMismatchAcrossAStream) {
  ExpectError(R"pb(
    node { name: "words" calculator: "TestStringSourceCalculator" output_stream: "s" }
    node { name: "math" calculator: "TestAddOneCalculator" input_stream: "s" output_stream: "out" }
  )pb",
              {"type mismatch on stream \"s\"", "node \"words\"", "std::string",
               "node \"math\"", "expects int"});
}

TEST(ValidationTest, TypeMismatchThroughSameAsPorts) {
  // The pass-through forwards the string type to the adder's int input.
  ExpectError(R"pb(
    node { calculator: "TestStringSourceCalculator" output_stream: "s" }
    node { calculator: "TestPassThroughCalculator" input_stream: "s" output_stream: "t" }
    node { name: "math" calculator: "TestAddOneCalculator" input_stream: "t" output_stream: "out" }
  )pb",
              {"type mismatch on stream \"t\"", "node \"math\""});
}

TEST(ValidationTest, CycleWithoutBackEdge) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "a" calculator: "TestAdderCalculator" input_stream: "in" input_stream: "y" output_stream: "x" }
    node { name: "b" calculator: "TestAddOneCalculator" input_stream: "x" output_stream: "y" }
  )pb",
              {"cycle without a back edge", "\"a\"", "\"b\"", "back_edge: true"});
}

TEST(ValidationTest, BadInputStreamInfo) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x"
           input_stream_info { tag_index: "NOPE" back_edge: true } }
  )pb",
              {"node \"a\"", "tag_index \"NOPE\""});
}

TEST(ValidationTest, MalformedTagIndexName) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in:x:y:z" output_stream: "x" }
  )pb",
              {"node \"a\"", "input_stream", "in:x:y:z"});
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "Bad" }
  )pb",
              {"node \"a\"", "output_stream", "\"Bad\""});
  ExpectError(R"pb(input_stream: "X:1:in")pb", {"graph input_stream", "index 1"});
}

TEST(ValidationTest, UnknownExecutor) {
  ExpectError(R"pb(
    input_stream: "in"
    executor { name: "gpu_like" type: "ThreadPoolExecutor" }
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x"
           executor: "missing" }
  )pb",
              {"node \"a\"", "executor \"missing\"", "gpu_like"});
  ExpectError(R"pb(
    executor { name: "e" type: "ThreadPoolExecuter" }
  )pb",
              {"executor \"e\"", "ThreadPoolExecutor"});
}

TEST(ValidationTest, UnknownInputStreamHandler) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x"
           input_stream_handler { input_stream_handler: "ImmediateInputStreamHandlr" } }
  )pb",
              {"node \"a\"", "ImmediateInputStreamHandlr",
               "\"ImmediateInputStreamHandler\""});
}

TEST(ValidationTest, BadOptionsType) {
  // Unknown extension names fail while parsing, with file and line.
  absl::Status s = Build(R"pb(
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [rill.NoSuchOptions.ext] { value: 1 } } }
  )pb");
  EXPECT_NE(s.message().find("test.pbtxt:3:"), std::string::npos) << s;
  EXPECT_NE(s.message().find("NoSuchOptions"), std::string::npos) << s;
  // An Any whose type is unknown.
  CalculatorGraphConfig config;
  auto* node = config.add_node();
  node->set_name("src");
  node->set_calculator("TestIntSourceCalculator");
  node->add_output_stream("a");
  node->add_node_options()->set_type_url("type.googleapis.com/rill.NoSuchOptions");
  CalculatorGraph graph;
  s = graph.Initialize(config);
  EXPECT_NE(s.message().find("node \"src\""), std::string::npos) << s;
  EXPECT_NE(s.message().find("rill.NoSuchOptions"), std::string::npos) << s;
}

std::vector<std::string> Warnings(const std::string& text) {
  auto config = ParseGraphConfigText(text, "test.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  EXPECT_TRUE(s.ok()) << s;
  return graph.ValidationWarnings();
}

TEST(ValidationTest, WarnsAboutOptionsTheCalculatorDoesNotRead) {
  // TestIntSourceCalculator reads TestOptions: no warning.
  EXPECT_TRUE(Warnings(R"pb(
    node { calculator: "TestIntSourceCalculator" output_stream: "a"
           options { [rill.TestOptions.ext] { value: 3 } } }
  )pb").empty());
  // TestAddOneCalculator reads no options: the block has no effect.
  auto w = Warnings(R"pb(
    input_stream: "in"
    node { name: "add" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out"
           options { [rill.TestOptions.ext] { value: 3 } } }
  )pb");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "node \"add\" (TestAddOneCalculator): options rill.TestOptions are not "
            "read by this calculator; they have no effect");
  // The same through node_options (Any).
  w = Warnings(R"pb(
    input_stream: "in"
    node { name: "add" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out"
           node_options { [type.googleapis.com/rill.TestOptions] { value: 3 } } }
  )pb");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("rill.TestOptions"), std::string::npos) << w[0];
}

TEST(ValidationTest, ThreadAndInFlightCountsAreBounded) {
  ExpectError(R"pb(
    num_threads: 100000
    node { calculator: "TestIntSourceCalculator" output_stream: "a" }
  )pb", {"num_threads 100000 is more than the 1024 threads"});
  ExpectError(R"pb(
    executor { name: "big" type: "ThreadPoolExecutor"
               options { [rill.ThreadPoolExecutorOptions.ext] { num_threads: 5000 } } }
    node { calculator: "TestIntSourceCalculator" output_stream: "a" executor: "big" }
  )pb", {"executor \"big\": num_threads 5000 is more than the 1024"});
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "n" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "out"
           max_in_flight: 1000000 }
  )pb", {"node \"n\"", "max_in_flight 1000000 is more than 1024"});
}

TEST(ValidationTest, GraphOutputStreamNotProduced) {
  ExpectError(R"pb(output_stream: "nothing")pb",
              {"graph output_stream \"nothing\""});
}

TEST(ValidationTest, ReportsEveryErrorAtOnce) {
  absl::Status s = Build(R"pb(
    node { name: "a" calculator: "Nope1" }
    node { name: "b" calculator: "Nope2" }
  )pb");
  EXPECT_NE(s.message().find("Nope1"), std::string::npos);
  EXPECT_NE(s.message().find("Nope2"), std::string::npos);
}

TEST(ValidationTest, DuplicateNodeNames) {
  ExpectError(R"pb(
    input_stream: "in"
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "x" }
    node { name: "a" calculator: "TestAddOneCalculator" input_stream: "in" output_stream: "y" }
  )pb",
              {"two nodes are named \"a\""});
}

}  // namespace
}  // namespace rill
