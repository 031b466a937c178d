// FindMissingNames on the error texts the framework really produces: an
// unknown calculator (also inside a subgraph), an unknown options type in
// either text syntax and in a binary config's Any. If one of those messages
// is reworded, the names stop being found and this test fails.
#include "framework/tool/missing_names.h"

#include <string>
#include <vector>

#include "framework/graph.h"
#include "framework/test_calculators.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using Names = std::vector<std::string>;

// The message CalculatorGraph::Initialize gives for `text` (which must
// parse).
std::string InitializeError(const std::string& text) {
  absl::StatusOr<CalculatorGraphConfig> config = ParseGraphConfigText(text);
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return "";
  CalculatorGraph graph;
  absl::Status status = graph.Initialize(*config);
  EXPECT_FALSE(status.ok());
  return std::string(status.message());
}

// The message the text-format loader gives for `text` (which must not
// parse).
std::string ParseError(const std::string& text) {
  absl::StatusOr<CalculatorGraphConfig> config =
      ParseGraphConfigText(text, "g.pbtxt");
  EXPECT_FALSE(config.ok());
  return config.ok() ? "" : std::string(config.status().message());
}

TEST(MissingNamesTest, UnknownCalculatorsOncePerNameInOrder) {
  const std::string error = InitializeError(R"pb(
    input_stream: "in"
    node { calculator: "NoSuchBCalculator" input_stream: "in" output_stream: "a" }
    node { calculator: "TestPassThroughCalculator" input_stream: "a" output_stream: "b" }
    node { calculator: "NoSuchACalculator" input_stream: "b" output_stream: "c" }
    node { calculator: "NoSuchBCalculator" input_stream: "c" output_stream: "d" }
  )pb");
  const MissingNames names = FindMissingNames(error);
  EXPECT_EQ(names.calculators, Names({"NoSuchBCalculator", "NoSuchACalculator"}))
      << error;
  EXPECT_TRUE(names.options_types.empty()) << error;
  EXPECT_FALSE(names.empty());
}

TEST(MissingNamesTest, UnknownCalculatorInsideASubgraph) {
  ASSERT_TRUE(RegisterSubgraphConfig(*ParseGraphConfigText(R"pb(
                type: "MissingNamesTestSubgraph"
                input_stream: "IN:x"
                output_stream: "OUT:y"
                node { calculator: "NoSuchInnerCalculator" input_stream: "x" output_stream: "y" }
              )pb"))
                  .ok());
  const std::string error = InitializeError(R"pb(
    input_stream: "in"
    node { calculator: "MissingNamesTestSubgraph" input_stream: "IN:in" output_stream: "OUT:out" }
  )pb");
  EXPECT_EQ(FindMissingNames(error).calculators, Names({"NoSuchInnerCalculator"}))
      << error;
}

TEST(MissingNamesTest, UnknownExtensionOptions) {
  const std::string error = ParseError(R"pb(
    input_stream: "in"
    node {
      calculator: "TestPassThroughCalculator"
      input_stream: "in"
      output_stream: "out"
      options { [mediapipe.NoSuchCalculatorOptions.ext] { a: 1 } }
    }
  )pb");
  const MissingNames names = FindMissingNames(error);
  EXPECT_EQ(names.options_types, Names({"mediapipe.NoSuchCalculatorOptions"}))
      << error;
  EXPECT_TRUE(names.calculators.empty()) << error;
}

TEST(MissingNamesTest, UnknownAnyOptionsInText) {
  const std::string error = ParseError(R"pb(
    input_stream: "in"
    node {
      calculator: "TestPassThroughCalculator"
      input_stream: "in"
      output_stream: "out"
      node_options { [type.googleapis.com/mediapipe.NoSuchAnyOptions] {} }
    }
  )pb");
  EXPECT_EQ(FindMissingNames(error).options_types,
            Names({"mediapipe.NoSuchAnyOptions"}))
      << error;
}

// A binary config carries the Any as is; validation names its type URL.
TEST(MissingNamesTest, UnknownAnyOptionsInABinaryConfig) {
  CalculatorGraphConfig config;
  config.add_input_stream("in");
  CalculatorGraphConfig::Node* node = config.add_node();
  node->set_calculator("TestPassThroughCalculator");
  node->add_input_stream("in");
  node->add_output_stream("out");
  node->add_node_options()->set_type_url(
      "type.googleapis.com/mediapipe.NoSuchBinaryOptions");
  CalculatorGraph graph;
  absl::Status status = graph.Initialize(config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(FindMissingNames(status.message()).options_types,
            Names({"mediapipe.NoSuchBinaryOptions"}))
      << status;
}

TEST(MissingNamesTest, MixedTextKeepsOrderOfMention) {
  const MissingNames names = FindMissingNames(
      "node \"a\" (X): options type \"type.googleapis.com/mediapipe.B\" is not "
      "a known message\n"
      "f:1:2: Extension \"mediapipe.A.ext\" is not defined or is not an "
      "extension of \"rill.CalculatorOptions\".\n"
      "no calculator named \"Y\" is registered; did you mean \"Z\"?\n"
      "options type \"type.googleapis.com/mediapipe.B\" is not a known message");
  EXPECT_EQ(names.calculators, Names({"Y"}));
  EXPECT_EQ(names.options_types, Names({"mediapipe.B", "mediapipe.A"}));
}

TEST(MissingNamesTest, OtherErrorsNameNothing) {
  EXPECT_TRUE(FindMissingNames("").empty());
  // Another registry's unknown name is not a calculator.
  EXPECT_TRUE(
      FindMissingNames("no input stream handler named \"X\" is registered").empty());
  // A quote that never closes.
  EXPECT_TRUE(FindMissingNames("no calculator named \"X").empty());
  const std::string error = InitializeError(R"pb(
    node { calculator: "TestPassThroughCalculator" input_stream: "nowhere" output_stream: "out" }
  )pb");
  EXPECT_TRUE(FindMissingNames(error).empty()) << error;
}

}  // namespace
}  // namespace rill
