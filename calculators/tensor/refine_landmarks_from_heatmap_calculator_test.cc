#include <cmath>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/tensor.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

// A 10x10 heatmap for 2 landmarks: landmark 0 has a confident blob at
// cells (6, 3) and (7, 3) (col, row); landmark 1 is nowhere confident.
TEST(RefineLandmarksFromHeatmapCalculatorTest, MovesToTheConfidentCentre) {
  Tensor hm(Tensor::ElementType::kFloat32, Tensor::Shape{1, 10, 10, 2});
  float* d = hm.mutable_data<float>();
  for (int i = 0; i < 200; ++i) d[i] = -20.0f;  // sigmoid ~ 0
  d[(3 * 10 + 6) * 2 + 0] = 20.0f;
  d[(3 * 10 + 7) * 2 + 0] = 20.0f;
  NormalizedLandmarkList lms;
  for (int i = 0; i < 2; ++i) {
    auto* lm = lms.add_landmark();
    lm->set_x(0.55f);
    lm->set_y(0.45f);
    lm->set_visibility(0.1f);
  }
  std::vector<Tensor> tensors;
  tensors.push_back(std::move(hm));
  auto out = RunGraph(
      R"pb(
        input_stream: "lm"
        input_stream: "hm"
        output_stream: "out"
        node {
          calculator: "RefineLandmarksFromHeatmapCalculator"
          input_stream: "NORM_LANDMARKS:lm"
          input_stream: "TENSORS:hm"
          output_stream: "NORM_LANDMARKS:out"
          options {
            [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] {
              kernel_size: 7
              refine_visibility: true
            }
          }
        })pb",
      {"out"},
      {{"lm", {MakePacket<NormalizedLandmarkList>(lms).At(Timestamp(0))}},
       {"hm",
        {MakePacket<std::vector<Tensor>>(std::move(tensors))
             .At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& r = (*out)["out"].at(0).Get<NormalizedLandmarkList>();
  // Cell (5, 4) starts; the window holds both hot cells: x = 6.5 / 10.
  EXPECT_NEAR(r.landmark(0).x(), 0.65f, 1e-3);
  EXPECT_NEAR(r.landmark(0).y(), 0.3f, 1e-3);
  EXPECT_NEAR(r.landmark(0).visibility(), 1.0f, 1e-6);
  // Not confident: unchanged position.
  EXPECT_FLOAT_EQ(r.landmark(1).x(), 0.55f);
  EXPECT_FLOAT_EQ(r.landmark(1).y(), 0.45f);
}

}  // namespace
}  // namespace rill
