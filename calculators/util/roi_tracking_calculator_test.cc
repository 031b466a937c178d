// Tests of RoiTrackingCalculator: which rect it passes on under each
// requirement. Image 100 x 100 px unless said; the re-crop rect is 20 x 20
// px at the center unless said.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using Size = std::pair<int, int>;

NormalizedRect NormRect(float xc, float yc, float w, float h,
                        float rotation = 0.f) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rotation);
  return r;
}

NormalizedLandmarkList Landmarks(std::vector<std::pair<float, float>> pts) {
  NormalizedLandmarkList list;
  for (auto [x, y] : pts) {
    auto* lm = list.add_landmark();
    lm->set_x(x);
    lm->set_y(y);
  }
  return list;
}

const NormalizedRect kRecrop = NormRect(0.5f, 0.5f, 0.2f, 0.2f);
const NormalizedLandmarkList kInside = Landmarks({{0.5f, 0.5f}});

// The rects passed on at timestamp 1 (empty when none).
std::vector<NormalizedRect> Track(const std::string& options,
                                  std::optional<NormalizedRect> prev,
                                  std::optional<NormalizedRect> recrop,
                                  const NormalizedLandmarkList& landmarks =
                                      kInside) {
  StreamPackets in = {
      {"size", {MakePacket<Size>(100, 100).At(Timestamp(1))}},
      {"lm", {MakePacket<NormalizedLandmarkList>(landmarks).At(Timestamp(1))}}};
  if (prev) in["prev"] = {MakePacket<NormalizedRect>(*prev).At(Timestamp(1))};
  if (recrop) {
    in["recrop"] = {MakePacket<NormalizedRect>(*recrop).At(Timestamp(1))};
  }
  auto out = RunGraph(
      R"pb(input_stream: "lm" input_stream: "prev" input_stream: "recrop"
           input_stream: "size"
           node { calculator: "RoiTrackingCalculator"
                  input_stream: "PREV_LANDMARKS:lm"
                  input_stream: "PREV_LANDMARKS_RECT:prev"
                  input_stream: "RECROP_RECT:recrop"
                  input_stream: "IMAGE_SIZE:size"
                  output_stream: "TRACKING_RECT:out"
                  options { [mediapipe.RoiTrackingCalculatorOptions.ext] {)pb" +
          options + "}}}",
      {"out"}, in);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  EXPECT_THAT(PacketTimestamps((*out)["out"]),
              testing::Each(testing::Eq(1)));
  return PacketValues<NormalizedRect>((*out)["out"]);
}

// x_center of the one rect passed on (-1 when none).
float TrackedX(const std::string& options, const NormalizedRect& prev,
               const NormalizedRect& recrop = kRecrop,
               const NormalizedLandmarkList& landmarks = kInside) {
  auto v = Track(options, prev, recrop, landmarks);
  return v.size() == 1 ? v[0].x_center() : -1.f;
}

constexpr char kRect[] = "rect_requirements {}";  // 10 deg, 0.1, 0.1

TEST(RoiTrackingCalculatorTest, MissingRects) {
  // No re-crop rect: nothing. No previous rect: the re-crop rect.
  EXPECT_TRUE(Track(kRect, NormRect(0.5f, 0.5f, 0.2f, 0.2f), std::nullopt)
                  .empty());
  auto v = Track(kRect, std::nullopt, NormRect(0.3f, 0.5f, 0.2f, 0.2f));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FLOAT_EQ(v[0].x_center(), 0.3f);
}

TEST(RoiTrackingCalculatorTest, RectTranslation) {
  // Allowed: 0.1 * 20 px = 2 px. 1 px keeps the previous rect, 3 px not.
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.51f, 0.5f, 0.2f, 0.2f)), 0.51f);
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.53f, 0.5f, 0.2f, 0.2f)), 0.5f);
  // A looser translation keeps 3 px.
  EXPECT_FLOAT_EQ(TrackedX("rect_requirements { translation: 0.2 }",
                           NormRect(0.53f, 0.5f, 0.2f, 0.2f)),
                  0.53f);
}

TEST(RoiTrackingCalculatorTest, TranslationAlongTheRecropRectsAxes) {
  // Re-crop rect 20 x 40 px. The previous center is 3 px lower in the
  // image. Upright, that is along the 40 px side (limit 4 px): kept. Turned
  // 90 degrees, image y runs along the rect's 20 px side (limit 2 px): not.
  const NormalizedRect prev = NormRect(0.5f, 0.53f, 0.2f, 0.4f);
  EXPECT_FLOAT_EQ(
      Track(kRect, prev, NormRect(0.5f, 0.5f, 0.2f, 0.4f))[0].y_center(),
      0.53f);
  NormalizedRect prev_turned = prev;
  prev_turned.set_rotation(M_PI / 2);
  EXPECT_FLOAT_EQ(Track(kRect, prev_turned,
                        NormRect(0.5f, 0.5f, 0.2f, 0.4f, M_PI / 2))[0]
                      .y_center(),
                  0.5f);
}

TEST(RoiTrackingCalculatorTest, RectRotationAndScale) {
  // 0.15 rad = 8.6 degrees is within 10; 0.2 rad = 11.5 is not.
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.51f, 0.5f, 0.2f, 0.2f, 0.15f)),
                  0.51f);
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.51f, 0.5f, 0.2f, 0.2f, 0.2f)),
                  0.5f);
  // 3.1 and -3.1 rad differ by 6.2 rad = 355.2 degrees, i.e. -4.8: kept.
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.5f, 0.5f, 0.2f, 0.2f, 3.1f),
                           NormRect(0.5f, 0.5f, 0.2f, 0.2f, -3.1f))
                      ,
                  0.5f);
  auto wrap = Track(kRect, NormRect(0.5f, 0.5f, 0.2f, 0.2f, 3.1f),
                    NormRect(0.5f, 0.5f, 0.2f, 0.2f, -3.1f));
  ASSERT_EQ(wrap.size(), 1u);
  EXPECT_FLOAT_EQ(wrap[0].rotation(), 3.1f);  // the previous rect
  // Width 23 px vs 20: 3 px > 0.1 * 20 = 2: not kept; 21 px is.
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.51f, 0.5f, 0.23f, 0.2f)), 0.5f);
  EXPECT_FLOAT_EQ(TrackedX(kRect, NormRect(0.51f, 0.5f, 0.21f, 0.2f)), 0.51f);
}

TEST(RoiTrackingCalculatorTest, LandmarksInsideTheRecropRect) {
  const NormalizedRect prev = NormRect(0.7f, 0.7f, 0.5f, 0.5f);
  // Re-crop rect spans 40..60 px. A landmark at 45 px is inside.
  EXPECT_FLOAT_EQ(TrackedX("landmarks_requirements {}", prev, kRecrop,
                           Landmarks({{0.45f, 0.5f}, {0.55f, 0.42f}})),
                  0.7f);
  // At 65 px it is not.
  EXPECT_FLOAT_EQ(TrackedX("landmarks_requirements {}", prev, kRecrop,
                           Landmarks({{0.45f, 0.5f}, {0.65f, 0.5f}})),
                  0.5f);
  // Margin 1.0 doubles the sides (30..70 px): inside again.
  EXPECT_FLOAT_EQ(TrackedX("landmarks_requirements { recrop_rect_margin: 1 }",
                           prev, kRecrop, Landmarks({{0.65f, 0.5f}})),
                  0.7f);
  // Margin -0.6 leaves 8 px (46..54): 45 px is outside.
  EXPECT_FLOAT_EQ(
      TrackedX("landmarks_requirements { recrop_rect_margin: -0.6 }", prev,
               kRecrop, Landmarks({{0.45f, 0.5f}})),
      0.5f);
}

TEST(RoiTrackingCalculatorTest, IouRequirement) {
  // 5 px apart: IoU 300 / 500 = 0.6 >= 0.5. 8 px: 240 / 560 = 0.43.
  // Disjoint: 0.
  EXPECT_FLOAT_EQ(TrackedX("iou_requirements {}",
                           NormRect(0.55f, 0.5f, 0.2f, 0.2f)),
                  0.55f);
  EXPECT_FLOAT_EQ(TrackedX("iou_requirements {}",
                           NormRect(0.58f, 0.5f, 0.2f, 0.2f)),
                  0.5f);
  EXPECT_FLOAT_EQ(TrackedX("iou_requirements { min_iou: 0.4 }",
                           NormRect(0.58f, 0.5f, 0.2f, 0.2f)),
                  0.58f);
  EXPECT_FLOAT_EQ(TrackedX("iou_requirements {}",
                           NormRect(0.9f, 0.5f, 0.2f, 0.2f)),
                  0.5f);
}

TEST(RoiTrackingCalculatorTest, NoRequirementsKeepsThePreviousRect) {
  EXPECT_FLOAT_EQ(TrackedX("", NormRect(0.9f, 0.1f, 0.05f, 0.5f, 2.f)), 0.9f);
}

TEST(RoiTrackingCalculatorTest, AllRequirementsMustHold) {
  // Rect and landmarks fine, IoU fine; then a landmark outside flips it.
  const std::string all =
      "iou_requirements {} rect_requirements {} landmarks_requirements {}";
  EXPECT_FLOAT_EQ(TrackedX(all, NormRect(0.51f, 0.5f, 0.2f, 0.2f)), 0.51f);
  EXPECT_FLOAT_EQ(TrackedX(all, NormRect(0.51f, 0.5f, 0.2f, 0.2f), kRecrop,
                           Landmarks({{0.5f, 0.5f}, {0.1f, 0.1f}})),
                  0.5f);
}

}  // namespace
}  // namespace rill
