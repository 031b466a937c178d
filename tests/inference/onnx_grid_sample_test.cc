// GridSample (opset 16) on the engine against ONNX Runtime: every mode
// (bilinear, nearest, bicubic) with every padding mode (zeros, border,
// reflection), with and without align_corners, on a grid reaching well
// outside the image (onnx_op_test_util.h).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

TEST(OnnxGridSampleTest, EveryModeAndPadding) {
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      for (int64_t align : {0, 1}) {
        SCOPED_TRACE(std::string(mode) + " " + padding + " align_corners=" + std::to_string(align));
        OnnxGraph g;
        g.Input("x", {2, 3, 5, 7});
        g.Input("grid", {2, 4, 6, 2});
        onnx::NodeProto* n = g.Node("GridSample", {"x", "grid"}, {"y"});
        OnnxGraph::Attr(n, "mode", std::string(mode));
        OnnxGraph::Attr(n, "padding_mode", std::string(padding));
        OnnxGraph::Attr(n, "align_corners", align);
        g.Output("y");
        ExpectMatchesOrt(g, {{"x", {2, 3, 5, 7}, RandomValues(210)},
                             {"grid", {2, 4, 6, 2}, RandomValues(96, -2.3f, 2.3f, 4)}});
      }
    }
  }
}

}  // namespace
}  // namespace rill::inference::testing
