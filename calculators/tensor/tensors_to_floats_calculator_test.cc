#include <cmath>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

Packet Tensors(std::vector<float> v) {
  Tensor t(Tensor::ElementType::kFloat32,
           Tensor::Shape{1, static_cast<int>(v.size())});
  std::copy(v.begin(), v.end(), t.mutable_data<float>());
  std::vector<Tensor> ts;
  ts.push_back(std::move(t));
  return MakePacket<std::vector<Tensor>>(std::move(ts)).At(Timestamp(0));
}

TEST(TensorsToFloatsCalculatorTest, FloatsWithSigmoid) {
  auto out = RunGraph(R"pb(
                        input_stream: "t"
                        output_stream: "f"
                        node {
                          calculator: "TensorsToFloatsCalculator"
                          input_stream: "TENSORS:t"
                          output_stream: "FLOATS:f"
                          options {
                            [mediapipe.TensorsToFloatsCalculatorOptions.ext] {
                              activation: SIGMOID
                            }
                          }
                        })pb",
                      {"f"}, {{"t", {Tensors({0, 100})}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)["f"].at(0).Get<std::vector<float>>(),
              ::testing::ElementsAre(::testing::FloatEq(0.5f),
                                     ::testing::FloatNear(1.0f, 1e-6)));
}

TEST(TensorsToFloatsCalculatorTest, OneFloatNeedsOneValue) {
  const std::string graph = R"pb(
    input_stream: "t"
    output_stream: "f"
    node {
      calculator: "TensorsToFloatsCalculator"
      input_stream: "TENSORS:t"
      output_stream: "FLOAT:f"
    })pb";
  auto out = RunGraph(graph, {"f"}, {{"t", {Tensors({0.25f})}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FLOAT_EQ((*out)["f"].at(0).Get<float>(), 0.25f);
  out = RunGraph(graph, {"f"}, {{"t", {Tensors({1, 2})}}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("one value"), absl::string_view::npos);
}

}  // namespace
}  // namespace rill
