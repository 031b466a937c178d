#include <array>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

TEST(DetectionLetterboxRemovalCalculatorTest, MapsPaddedToUnpadded) {
  Detection d;
  auto* b = d.mutable_location_data()->mutable_relative_bounding_box();
  b->set_xmin(0.5f);
  b->set_ymin(0.25f);
  b->set_width(0.2f);
  b->set_height(0.25f);
  auto* k = d.mutable_location_data()->add_relative_keypoints();
  k->set_x(0.5f);
  k->set_y(0.75f);
  // Padded above and below by a quarter each (a 2:1 image in a square).
  const std::array<float, 4> pad = {0.0f, 0.25f, 0.0f, 0.25f};
  auto out = RunGraph(
      R"pb(
        input_stream: "in"
        input_stream: "pad"
        output_stream: "out"
        node {
          calculator: "DetectionLetterboxRemovalCalculator"
          input_stream: "DETECTIONS:in"
          input_stream: "LETTERBOX_PADDING:pad"
          output_stream: "DETECTIONS:out"
        })pb",
      {"out"},
      {{"in",
        {MakePacket<std::vector<Detection>>(std::vector<Detection>{d})
             .At(Timestamp(0))}},
       {"pad", {MakePacket<std::array<float, 4>>(pad).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  const Detection& r = (*out)["out"][0].Get<std::vector<Detection>>()[0];
  const auto& rb = r.location_data().relative_bounding_box();
  EXPECT_NEAR(rb.xmin(), 0.5f, 1e-6);
  EXPECT_NEAR(rb.ymin(), 0.0f, 1e-6);
  EXPECT_NEAR(rb.width(), 0.2f, 1e-6);
  EXPECT_NEAR(rb.height(), 0.5f, 1e-6);
  EXPECT_NEAR(r.location_data().relative_keypoints(0).y(), 1.0f, 1e-6);
}

}  // namespace
}  // namespace rill
