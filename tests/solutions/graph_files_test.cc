// The top-level graph files load the way `rill run` and the desktop demo load
// them: CalculatorGraph::InitializeFromFile, which puts the file's folder on
// the subgraph search path (no AddSubgraphSearchPath here), expands the
// subgraphs, applies option_value and validates every contract.
#include <string>

#include "framework/graph.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

class GraphFilesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GraphFilesTest, InitializesFromFile) {
  CalculatorGraph graph;
  absl::Status s = graph.InitializeFromFile(GetParam());
  ASSERT_TRUE(s.ok()) << s;
  // Subgraphs are gone: only registered calculators remain.
  for (const auto& node : graph.Config().node()) {
    EXPECT_NE(node.calculator().find("Calculator"), std::string::npos)
        << node.calculator();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, GraphFilesTest,
    ::testing::Values(
        "graphs/face_detection/face_detection_desktop_live.pbtxt",
        "graphs/selfie_segmentation/selfie_segmentation_desktop.pbtxt"));

}  // namespace
}  // namespace rill
