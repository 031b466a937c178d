#include <cmath>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/tensor.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

TEST(TensorsToLandmarksCalculatorTest, NormalizesFlipsAndActivates) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 10});
  const float v[10] = {10, 20,  40,  0, 100,  //
                       50, 100, -20, 2, -100};
  std::copy(v, v + 10, t.mutable_data<float>());
  std::vector<Tensor> in;
  in.push_back(std::move(t));
  auto out = RunGraph(
      R"pb(
        input_stream: "t"
        output_stream: "norm"
        output_stream: "px"
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:t"
          output_stream: "NORM_LANDMARKS:norm"
          output_stream: "LANDMARKS:px"
          options {
            [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
              num_landmarks: 2
              input_image_width: 100
              input_image_height: 200
              normalize_z: 0.5
              flip_horizontally: true
              visibility_activation: SIGMOID
              presence_activation: SIGMOID
            }
          }
        })pb",
      {"norm", "px"},
      {{"t",
        {MakePacket<std::vector<Tensor>>(std::move(in)).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& px = (*out)["px"].at(0).Get<LandmarkList>();
  const auto& norm = (*out)["norm"].at(0).Get<NormalizedLandmarkList>();
  ASSERT_EQ(norm.landmark_size(), 2);
  EXPECT_FLOAT_EQ(px.landmark(0).x(), 90);  // flipped: 100 - 10
  EXPECT_FLOAT_EQ(norm.landmark(0).x(), 0.9f);
  EXPECT_FLOAT_EQ(norm.landmark(0).y(), 0.1f);
  EXPECT_FLOAT_EQ(norm.landmark(0).z(), 40 / 100.0f / 0.5f);
  EXPECT_FLOAT_EQ(norm.landmark(0).visibility(), 0.5f);
  EXPECT_NEAR(norm.landmark(0).presence(), 1.0f, 1e-6);
  EXPECT_FLOAT_EQ(norm.landmark(1).y(), 0.5f);
  EXPECT_NEAR(norm.landmark(1).visibility(), 1 / (1 + std::exp(-2.0f)), 1e-6);
}

TEST(TensorsToLandmarksCalculatorTest, WrongTensorSizeIsAClearError) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 7});
  std::vector<Tensor> in;
  in.push_back(std::move(t));
  auto out = RunGraph(
      R"pb(
        input_stream: "t"
        output_stream: "norm"
        node {
          calculator: "TensorsToLandmarksCalculator"
          input_stream: "TENSORS:t"
          output_stream: "NORM_LANDMARKS:norm"
          options {
            [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
              num_landmarks: 21
              input_image_width: 224
              input_image_height: 224
            }
          }
        })pb",
      {"norm"},
      {{"t",
        {MakePacket<std::vector<Tensor>>(std::move(in)).At(Timestamp(0))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("does not hold 21 landmarks"),
            absl::string_view::npos)
      << out.status();
}

}  // namespace
}  // namespace rill
