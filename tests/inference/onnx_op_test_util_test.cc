// The one-op harness itself: a MatMul with a constant operand and a
// Softmax on the last axis (ops the importer already takes) match ONNX
// Runtime, and a difference beyond the tolerance is reported (a tolerance
// of zero on a Softmax over 1000 values, whose rounding differs).
#include <string>

#include "gtest/gtest.h"
#include "gtest/gtest-spi.h"
#include "tests/inference/onnx_op_test_util.h"

namespace rill::inference::testing {
namespace {

TEST(OnnxOpTestUtilTest, MatMulWithConstantAndSoftmaxMatch) {
  OnnxGraph g;
  g.Input("x", {3, 5});
  g.Initializer("w", {5, 4}, RandomValues(20, -1, 1, 2));
  g.Node("MatMul", {"x", "w"}, {"m"});
  OnnxGraph::Attr(g.Node("Softmax", {"m"}, {"y"}), "axis", int64_t{-1});
  g.Output("y");
  ExpectMatchesOrt(g, {{"x", {3, 5}, RandomValues(15)}});
}

TEST(OnnxOpTestUtilTest, AMismatchFails) {
  OnnxGraph g;
  g.Input("x", {1, 1000});
  g.Node("Softmax", {"x"}, {"y"});
  g.Output("y");
  std::vector<float> x = RandomValues(1000, -30, 30, 3);
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    ExpectMatchesOrt(g, {{"x", {1, 1000}, x}}, 0.0);
  }
  ASSERT_GE(failures.size(), 1);
  EXPECT_NE(std::string(failures.GetTestPartResult(0).message()).find("max abs error"), std::string::npos);
}

}  // namespace
}  // namespace rill::inference::testing
