#include <array>
#include <cmath>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

Detection Box(float xmin, float ymin, float w, float h, float kx, float ky) {
  Detection d;
  d.add_score(1);
  auto* loc = d.mutable_location_data();
  loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
  auto* b = loc->mutable_relative_bounding_box();
  b->set_xmin(xmin);
  b->set_ymin(ymin);
  b->set_width(w);
  b->set_height(h);
  auto* k = loc->add_relative_keypoints();
  k->set_x(kx);
  k->set_y(ky);
  return d;
}

std::vector<Detection> Project(const std::vector<Detection>& in,
                               const std::array<float, 16>& m) {
  auto out = RunGraph(
      R"pb(
        input_stream: "in"
        input_stream: "m"
        output_stream: "out"
        node {
          calculator: "DetectionProjectionCalculator"
          input_stream: "DETECTIONS:in"
          input_stream: "PROJECTION_MATRIX:m"
          output_stream: "DETECTIONS:out"
        })pb",
      {"out"},
      {{"in", {MakePacket<std::vector<Detection>>(in).At(Timestamp(0))}},
       {"m", {MakePacket<std::array<float, 16>>(m).At(Timestamp(0))}}});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || (*out)["out"].empty()) return {};
  return (*out)["out"][0].Get<std::vector<Detection>>();
}

TEST(DetectionProjectionCalculatorTest, ScaleAndTranslate) {
  // x' = 0.5 x + 0.25, y' = 2 y - 0.5.
  const std::array<float, 16> m = {0.5f, 0, 0, 0.25f, 0, 2, 0, -0.5f,
                                   0,    0, 1, 0,     0, 0, 0, 1};
  auto out = Project({Box(0.2f, 0.3f, 0.4f, 0.1f, 0.5f, 0.5f)}, m);
  ASSERT_EQ(out.size(), 1u);
  const auto& b = out[0].location_data().relative_bounding_box();
  EXPECT_NEAR(b.xmin(), 0.35f, 1e-6);
  EXPECT_NEAR(b.ymin(), 0.1f, 1e-6);
  EXPECT_NEAR(b.width(), 0.2f, 1e-6);
  EXPECT_NEAR(b.height(), 0.2f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).x(), 0.5f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).y(), 0.5f, 1e-6);
}

TEST(DetectionProjectionCalculatorTest,
     RotationGivesTheBoxAroundTheTurnedCorners) {
  // 90 degrees about (0.5, 0.5): (x, y) -> (1 - y, x).
  const std::array<float, 16> m = {0, -1, 0, 1, 1, 0, 0, 0,
                                   0, 0,  1, 0, 0, 0, 0, 1};
  auto out = Project({Box(0.1f, 0.2f, 0.3f, 0.1f, 0.1f, 0.2f)}, m);
  ASSERT_EQ(out.size(), 1u);
  const auto& b = out[0].location_data().relative_bounding_box();
  EXPECT_NEAR(b.xmin(), 0.7f, 1e-6);
  EXPECT_NEAR(b.ymin(), 0.1f, 1e-6);
  EXPECT_NEAR(b.width(), 0.1f, 1e-6);
  EXPECT_NEAR(b.height(), 0.3f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).x(), 0.8f, 1e-6);
  EXPECT_NEAR(out[0].location_data().relative_keypoints(0).y(), 0.1f, 1e-6);
}

}  // namespace
}  // namespace rill
