// Tests of the rect calculators: RectTransformationCalculator,
// DetectionsToRectsCalculator and its subclasses (AlignmentPointsRects,
// HandDetectionsFromPoseToRects), LandmarksToDetectionCalculator and
// HandLandmarksToRectCalculator. Expected values are worked out by hand in
// the comments.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Size = std::pair<int, int>;

constexpr float kEps = 1e-5f;

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

Rect PixRect(int xc, int yc, int w, int h, float rotation = 0.f) {
  Rect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rotation);
  return r;
}

#define EXPECT_NORM_RECT(r, xc, yc, w, h, rot)   \
  do {                                           \
    EXPECT_NEAR((r).x_center(), (xc), kEps);     \
    EXPECT_NEAR((r).y_center(), (yc), kEps);     \
    EXPECT_NEAR((r).width(), (w), kEps);         \
    EXPECT_NEAR((r).height(), (h), kEps);        \
    EXPECT_NEAR((r).rotation(), (rot), kEps);    \
  } while (0)

// ---- RectTransformationCalculator ----

// Runs one RectTransformationCalculator on NORM_RECT `rect` with image size
// `size` at timestamp 1.
absl::StatusOr<std::vector<NormalizedRect>> TransformNorm(
    const std::string& options, const NormalizedRect& rect, Size size) {
  auto out = RunGraph(
      R"pb(input_stream: "rect" input_stream: "size"
           node { calculator: "RectTransformationCalculator"
                  input_stream: "NORM_RECT:rect"
                  input_stream: "IMAGE_SIZE:size"
                  output_stream: "out"
                  options { [mediapipe.RectTransformationCalculatorOptions.ext] {)pb" +
          options + "}}}",
      {"out"},
      {{"rect", {MakePacket<NormalizedRect>(rect).At(Timestamp(1))}},
       {"size", {MakePacket<Size>(size).At(Timestamp(1))}}});
  if (!out.ok()) return out.status();
  return PacketValues<NormalizedRect>((*out)["out"]);
}

TEST(RectTransformationCalculatorTest, ShiftsAndScalesAnUprightRect) {
  // Shift by half the width right and half the height up, then double.
  auto out = TransformNorm("scale_x: 2 scale_y: 2 shift_x: 0.5 shift_y: -0.5",
                           NormRect(0.5f, 0.5f, 0.2f, 0.4f), {100, 200});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_NORM_RECT((*out)[0], 0.6f, 0.3f, 0.4f, 0.8f, 0.f);
}

TEST(RectTransformationCalculatorTest, SquareLongAndShortAreInPixels) {
  // 0.2 x 0.4 of 100 x 200 is 20 x 80 pixels.
  auto lng = TransformNorm("square_long: true", NormRect(0.5f, 0.5f, 0.2f, 0.4f),
                           {100, 200});
  ASSERT_TRUE(lng.ok()) << lng.status();
  EXPECT_NORM_RECT((*lng)[0], 0.5f, 0.5f, 0.8f, 0.4f, 0.f);  // 80 x 80 px
  auto shrt = TransformNorm("square_short: true scale_y: 3",
                            NormRect(0.5f, 0.5f, 0.2f, 0.4f), {100, 200});
  ASSERT_TRUE(shrt.ok()) << shrt.status();
  EXPECT_NORM_RECT((*shrt)[0], 0.5f, 0.5f, 0.2f, 0.3f, 0.f);  // 20 x 60 px
}

TEST(RectTransformationCalculatorTest, ShiftFollowsTheRectsRotation) {
  // Turned 90 degrees clockwise, the rect's "down" (shift_y) points left:
  // 0.5 * 0.4 * 200 = 40 px left = -0.4 of the width; y stays.
  auto out = TransformNorm("shift_y: 0.5",
                           NormRect(0.5f, 0.5f, 0.2f, 0.4f, M_PI / 2),
                           {100, 200});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NORM_RECT((*out)[0], 0.1f, 0.5f, 0.2f, 0.4f, M_PI / 2);
}

TEST(RectTransformationCalculatorTest, RotationOptionTurnsOnlyTheShift) {
  // rotation_degrees 90 turns shift_x (0.5 * 0.2 * 100 = 10 px) to point
  // down: 10 / 200 = 0.05. As in MediaPipe the output rotation stays 0.
  auto out = TransformNorm("rotation_degrees: 90 shift_x: 0.5",
                           NormRect(0.5f, 0.5f, 0.2f, 0.4f), {100, 200});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NORM_RECT((*out)[0], 0.5f, 0.55f, 0.2f, 0.4f, 0.f);
  // Radians: -pi/2 turns it up instead.
  out = TransformNorm("rotation: -1.5707963 shift_x: 0.5",
                      NormRect(0.5f, 0.5f, 0.2f, 0.4f), {100, 200});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NORM_RECT((*out)[0], 0.5f, 0.45f, 0.2f, 0.4f, 0.f);
}

TEST(RectTransformationCalculatorTest, PixelRectsAndVectors) {
  // 40 x 20 px: shift 0.25 * 40 = 10 px right; square_long 40 x 40;
  // scale_x 1.5 gives 60 wide.
  auto out = RunGraph(
      R"pb(input_stream: "rect" input_stream: "rects"
           node { calculator: "RectTransformationCalculator"
                  input_stream: "RECT:rect" output_stream: "out"
                  options { [mediapipe.RectTransformationCalculatorOptions.ext] {
                    shift_x: 0.25 scale_x: 1.5 square_long: true } } }
           node { calculator: "RectTransformationCalculator"
                  input_stream: "RECTS:rects" output_stream: "outs"
                  options { [mediapipe.RectTransformationCalculatorOptions.ext] {
                    shift_x: 0.25 scale_x: 1.5 square_long: true } } })pb",
      {"out", "outs"},
      {{"rect", {MakePacket<Rect>(PixRect(100, 100, 40, 20)).At(Timestamp(1))}},
       {"rects",
        {MakePacket<std::vector<Rect>>(std::vector<Rect>{
             PixRect(100, 100, 40, 20), PixRect(10, 10, 8, 16)})
             .At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Rect r = PacketValues<Rect>((*out)["out"]).at(0);
  EXPECT_EQ(r.x_center(), 110);
  EXPECT_EQ(r.y_center(), 100);
  EXPECT_EQ(r.width(), 60);
  EXPECT_EQ(r.height(), 40);
  const auto rs = PacketValues<std::vector<Rect>>((*out)["outs"]).at(0);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].x_center(), 110);
  // 8 x 16: shift 2 px, square 16 x 16, width 24.
  EXPECT_EQ(rs[1].x_center(), 12);
  EXPECT_EQ(rs[1].width(), 24);
  EXPECT_EQ(rs[1].height(), 16);
}

TEST(RectTransformationCalculatorTest, NormRectsAndMissingImageSize) {
  // NORM_RECTS at 1 and 2, IMAGE_SIZE only at 1: only 1 is transformed.
  const std::vector<NormalizedRect> rects = {NormRect(0.5f, 0.5f, 0.2f, 0.2f),
                                             NormRect(0.2f, 0.2f, 0.1f, 0.1f)};
  auto out = RunGraph(
      R"pb(input_stream: "rects" input_stream: "size"
           node { calculator: "RectTransformationCalculator"
                  input_stream: "NORM_RECTS:rects"
                  input_stream: "IMAGE_SIZE:size" output_stream: "out"
                  options { [mediapipe.RectTransformationCalculatorOptions.ext] {
                    scale_x: 2 } } })pb",
      {"out"},
      {{"rects", MakePackets<std::vector<NormalizedRect>>({rects, rects},
                                                          {1, 2})},
       {"size", {MakePacket<Size>(100, 100).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(PacketTimestamps((*out)["out"]), ElementsAre(1));
  const auto v = PacketValues<std::vector<NormalizedRect>>((*out)["out"])[0];
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NORM_RECT(v[0], 0.5f, 0.5f, 0.4f, 0.2f, 0.f);
  EXPECT_NORM_RECT(v[1], 0.2f, 0.2f, 0.2f, 0.1f, 0.f);
}

TEST(RectTransformationCalculatorTest, ContractAndOptionErrors) {
  EXPECT_THAT(CheckContract(R"pb(calculator: "RectTransformationCalculator"
                                 input_stream: "RECT:a" input_stream: "RECTS:b"
                                 output_stream: "out")pb")
                  .message(),
              HasSubstr("exactly one"));
  EXPECT_THAT(CheckContract(R"pb(calculator: "RectTransformationCalculator"
                                 input_stream: "NORM_RECT:a"
                                 output_stream: "out")pb")
                  .message(),
              HasSubstr("IMAGE_SIZE"));
  auto out = TransformNorm("rotation: 1 rotation_degrees: 90",
                           NormRect(0.5f, 0.5f, 0.2f, 0.2f), {10, 10});
  EXPECT_FALSE(out.ok());
}

// ---- DetectionsToRectsCalculator and subclasses ----

Detection RelBox(float xmin, float ymin, float w, float h,
                 std::vector<std::pair<float, float>> kps = {}) {
  Detection d;
  auto* loc = d.mutable_location_data();
  loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
  auto* b = loc->mutable_relative_bounding_box();
  b->set_xmin(xmin);
  b->set_ymin(ymin);
  b->set_width(w);
  b->set_height(h);
  for (auto [x, y] : kps) {
    auto* k = loc->add_relative_keypoints();
    k->set_x(x);
    k->set_y(y);
  }
  return d;
}

// Runs `calculator` with DETECTIONS `in` (and IMAGE_SIZE `size` when given)
// at timestamp 1, observing `output_tag`.
absl::StatusOr<std::vector<Packet>> RunToRects(
    const std::string& calculator, const std::string& input_tag,
    const Packet& in, const std::string& output_tag,
    const std::string& options, const Size* size = nullptr) {
  std::string config = R"pb(input_stream: "in" input_stream: "size"
                            node { calculator: ")pb" +
                       calculator + "\" input_stream: \"" + input_tag +
                       ":in\" output_stream: \"" + output_tag + ":out\"";
  if (size) config += " input_stream: \"IMAGE_SIZE:size\"";
  config += " options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {" +
            options + "}}}";
  StreamPackets inputs = {{"in", {in}}};
  if (size) inputs["size"] = {MakePacket<Size>(*size).At(in.Timestamp())};
  auto out = RunGraph(config, {"out"}, inputs);
  if (!out.ok()) return out.status();
  return (*out)["out"];
}

TEST(DetectionsToRectsCalculatorTest, BoxToNormRect) {
  auto out = RunToRects("DetectionsToRectsCalculator", "DETECTION",
                        MakePacket<Detection>(RelBox(0.1f, 0.2f, 0.4f, 0.2f))
                            .At(Timestamp(1)),
                        "NORM_RECT", "");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_NORM_RECT((*out)[0].Get<NormalizedRect>(), 0.3f, 0.3f, 0.4f, 0.2f,
                   0.f);
}

TEST(DetectionsToRectsCalculatorTest, PixelBoxToRect) {
  Detection d;
  d.mutable_location_data()->set_format(LocationData::BOUNDING_BOX);
  auto* b = d.mutable_location_data()->mutable_bounding_box();
  b->set_xmin(10);
  b->set_ymin(20);
  b->set_width(30);
  b->set_height(40);
  auto out = RunToRects("DetectionsToRectsCalculator", "DETECTION",
                        MakePacket<Detection>(d).At(Timestamp(1)), "RECT", "");
  ASSERT_TRUE(out.ok()) << out.status();
  const Rect& r = (*out)[0].Get<Rect>();
  // 10 + 30 / 2 (integer) = 25, 20 + 20 = 40.
  EXPECT_EQ(r.x_center(), 25);
  EXPECT_EQ(r.y_center(), 40);
  EXPECT_EQ(r.width(), 30);
  EXPECT_EQ(r.height(), 40);
  // A relative box cannot make a pixel Rect.
  auto bad = RunToRects("DetectionsToRectsCalculator", "DETECTION",
                        MakePacket<Detection>(RelBox(0.1f, 0.1f, 0.1f, 0.1f))
                            .At(Timestamp(1)),
                        "RECT", "");
  EXPECT_THAT(bad.status().message(), HasSubstr("BOUNDING_BOX"));
}

TEST(DetectionsToRectsCalculatorTest, RotationFromKeypoints) {
  // Keypoint 0 -> keypoint 1 in pixels; target 90 degrees (up).
  const std::vector<Detection> dets = {
      // Up: atan2(25, 0) = pi/2 -> rotation 0.
      RelBox(0.4f, 0.4f, 0.2f, 0.2f, {{0.5f, 0.5f}, {0.5f, 0.25f}}),
      // Right: angle 0 -> rotation pi/2.
      RelBox(0.4f, 0.4f, 0.2f, 0.2f, {{0.5f, 0.5f}, {0.75f, 0.5f}}),
      // (0.1, 0.1) of 200 x 100 is (20, 10) px, down-right: angle
      // atan2(-10, 20) = -0.4636476 -> rotation pi/2 + 0.4636476.
      RelBox(0.4f, 0.4f, 0.2f, 0.2f, {{0.5f, 0.5f}, {0.6f, 0.6f}}),
      // Left: angle pi -> rotation -pi/2.
      RelBox(0.4f, 0.4f, 0.2f, 0.2f, {{0.5f, 0.5f}, {0.25f, 0.5f}}),
  };
  const Size size{200, 100};
  auto out = RunToRects(
      "DetectionsToRectsCalculator", "DETECTIONS",
      MakePacket<std::vector<Detection>>(dets).At(Timestamp(1)), "NORM_RECTS",
      "rotation_vector_start_keypoint_index: 0 "
      "rotation_vector_end_keypoint_index: 1 "
      "rotation_vector_target_angle_degrees: 90",
      &size);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto rects = (*out)[0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rects.size(), 4u);
  EXPECT_NORM_RECT(rects[0], 0.5f, 0.5f, 0.2f, 0.2f, 0.f);
  EXPECT_NEAR(rects[1].rotation(), M_PI / 2, kEps);
  EXPECT_NEAR(rects[2].rotation(), M_PI / 2 + 0.4636476, kEps);
  EXPECT_NEAR(rects[3].rotation(), -M_PI / 2, kEps);
  // The target angle in radians: 0 makes "right" rotation 0.
  auto rad = RunToRects(
      "DetectionsToRectsCalculator", "DETECTION",
      MakePacket<Detection>(dets[1]).At(Timestamp(1)), "NORM_RECT",
      "rotation_vector_start_keypoint_index: 0 "
      "rotation_vector_end_keypoint_index: 1 "
      "rotation_vector_target_angle: 0",
      &size);
  ASSERT_TRUE(rad.ok()) << rad.status();
  EXPECT_NEAR((*rad)[0].Get<NormalizedRect>().rotation(), 0.f, kEps);
}

TEST(DetectionsToRectsCalculatorTest, RotationWaitsForImageSize) {
  // IMAGE_SIZE connected but without a packet at 1: nothing out.
  auto out = RunGraph(
      R"pb(input_stream: "in" input_stream: "size"
           node { calculator: "DetectionsToRectsCalculator"
                  input_stream: "DETECTION:in" input_stream: "IMAGE_SIZE:size"
                  output_stream: "NORM_RECT:out"
                  options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
                    rotation_vector_start_keypoint_index: 0
                    rotation_vector_end_keypoint_index: 1
                    rotation_vector_target_angle_degrees: 90 } } })pb",
      {"out"},
      {{"in",
        {MakePacket<Detection>(
             RelBox(0.f, 0.f, 1.f, 1.f, {{0.5f, 0.5f}, {0.5f, 0.f}}))
             .At(Timestamp(1))}},
       {"size", {MakePacket<Size>(10, 10).At(Timestamp(2))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)["out"].empty());
}

TEST(DetectionsToRectsCalculatorTest, KeypointsMode) {
  const Detection d =
      RelBox(0.f, 0.f, 1.f, 1.f, {{0.1f, 0.2f}, {0.5f, 0.4f}, {0.3f, 0.9f}});
  auto norm = RunToRects("DetectionsToRectsCalculator", "DETECTION",
                         MakePacket<Detection>(d).At(Timestamp(1)), "NORM_RECT",
                         "conversion_mode: USE_KEYPOINTS");
  ASSERT_TRUE(norm.ok()) << norm.status();
  EXPECT_NORM_RECT((*norm)[0].Get<NormalizedRect>(), 0.3f, 0.55f, 0.4f, 0.7f,
                   0.f);
  // In pixels of 100 x 10, rounded: (30, 5.5 -> 6), 40 x 7.
  const Size size{100, 10};
  auto pix = RunToRects("DetectionsToRectsCalculator", "DETECTION",
                        MakePacket<Detection>(d).At(Timestamp(1)), "RECT",
                        "conversion_mode: USE_KEYPOINTS", &size);
  ASSERT_TRUE(pix.ok()) << pix.status();
  const Rect& r = (*pix)[0].Get<Rect>();
  EXPECT_EQ(r.x_center(), 30);
  EXPECT_EQ(r.y_center(), 6);
  EXPECT_EQ(r.width(), 40);
  EXPECT_EQ(r.height(), 7);
  // One keypoint is not enough.
  auto one = RunToRects(
      "DetectionsToRectsCalculator", "DETECTION",
      MakePacket<Detection>(RelBox(0.f, 0.f, 1.f, 1.f, {{0.1f, 0.2f}}))
          .At(Timestamp(1)),
      "NORM_RECT", "conversion_mode: USE_KEYPOINTS");
  EXPECT_THAT(one.status().message(), HasSubstr("at least 2 keypoints"));
}

TEST(DetectionsToRectsCalculatorTest, EmptyDetections) {
  const Packet empty =
      MakePacket<std::vector<Detection>>().At(Timestamp(1));
  auto none = RunToRects("DetectionsToRectsCalculator", "DETECTIONS", empty,
                         "NORM_RECT", "");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  auto zero = RunToRects("DetectionsToRectsCalculator", "DETECTIONS", empty,
                         "NORM_RECT",
                         "output_zero_rect_for_empty_detections: true");
  ASSERT_TRUE(zero.ok()) << zero.status();
  ASSERT_EQ(zero->size(), 1u);
  EXPECT_NORM_RECT((*zero)[0].Get<NormalizedRect>(), 0.f, 0.f, 0.f, 0.f, 0.f);
  auto zeros = RunToRects("DetectionsToRectsCalculator", "DETECTIONS", empty,
                          "NORM_RECTS",
                          "output_zero_rect_for_empty_detections: true");
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  ASSERT_EQ(zeros->size(), 1u);
  EXPECT_EQ((*zeros)[0].Get<std::vector<NormalizedRect>>().size(), 1u);
  // RECTS gets nothing even then (as in MediaPipe).
  auto rects = RunToRects("DetectionsToRectsCalculator", "DETECTIONS", empty,
                          "RECTS",
                          "output_zero_rect_for_empty_detections: true");
  ASSERT_TRUE(rects.ok()) << rects.status();
  EXPECT_TRUE(rects->empty());
}

TEST(DetectionsToRectsCalculatorTest, ContractErrors) {
  EXPECT_THAT(CheckContract(R"pb(calculator: "DetectionsToRectsCalculator"
                                 input_stream: "DETECTION:a"
                                 input_stream: "DETECTIONS:b"
                                 output_stream: "NORM_RECT:out")pb")
                  .message(),
              HasSubstr("DETECTION and DETECTIONS"));
  EXPECT_THAT(CheckContract(R"pb(calculator: "DetectionsToRectsCalculator"
                                 input_stream: "DETECTION:a"
                                 output_stream: "NORM_RECT:out"
                                 output_stream: "RECT:out2")pb")
                  .message(),
              HasSubstr("exactly one of the NORM_RECT"));
  // A rotation vector needs IMAGE_SIZE (checked when the node opens).
  auto out = RunToRects("DetectionsToRectsCalculator", "DETECTION",
                        MakePacket<Detection>(RelBox(0, 0, 1, 1))
                            .At(Timestamp(1)),
                        "NORM_RECT",
                        "rotation_vector_start_keypoint_index: 0 "
                        "rotation_vector_end_keypoint_index: 1 "
                        "rotation_vector_target_angle: 0");
  EXPECT_THAT(out.status().message(), HasSubstr("IMAGE_SIZE"));
}

TEST(AlignmentPointsRectsCalculatorTest, CenterAndScaleKeypoints) {
  // Center (50, 100) px, scale point (50, 60) px: 40 px apart, so an 80 px
  // square: 0.8 x 0.4 of 100 x 200. The vector points up: rotation 0.
  const Size size{100, 200};
  auto out = RunToRects(
      "AlignmentPointsRectsCalculator", "DETECTIONS",
      MakePacket<std::vector<Detection>>(
          std::vector<Detection>{
              RelBox(0.f, 0.f, 0.1f, 0.1f, {{0.5f, 0.5f}, {0.5f, 0.3f}})})
          .At(Timestamp(1)),
      "NORM_RECTS",
      "rotation_vector_start_keypoint_index: 0 "
      "rotation_vector_end_keypoint_index: 1 "
      "rotation_vector_target_angle_degrees: 90",
      &size);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto rects = (*out)[0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_NORM_RECT(rects[0], 0.5f, 0.5f, 0.8f, 0.4f, 0.f);
  // Without the keypoint indices it does not open.
  auto bad = RunToRects("AlignmentPointsRectsCalculator", "DETECTION",
                        MakePacket<Detection>(RelBox(0, 0, 1, 1))
                            .At(Timestamp(1)),
                        "NORM_RECT", "", &size);
  EXPECT_THAT(bad.status().message(), HasSubstr("rotation_vector_start"));
}

TEST(HandDetectionsFromPoseToRectsCalculatorTest, WristPinkyIndex) {
  // 100 x 100 px: wrist (50, 80), pinky (40, 50), index (60, 50). Middle
  // finger ((2 * 60 + 40) / 3, 50) = (53.333, 50). Wrist -> middle is
  // (3.333, -30): side 2 * 30.18461 = 60.36922 px, rotation
  // pi/2 - atan2(30, 3.333) = atan(1/9) = 0.1106572.
  const Size size{100, 100};
  auto out = RunToRects(
      "HandDetectionsFromPoseToRectsCalculator", "DETECTIONS",
      MakePacket<std::vector<Detection>>(
          std::vector<Detection>{RelBox(
              0.f, 0.f, 1.f, 1.f, {{0.5f, 0.8f}, {0.4f, 0.5f}, {0.6f, 0.5f}})})
          .At(Timestamp(1)),
      "NORM_RECTS", "", &size);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto rects = (*out)[0].Get<std::vector<NormalizedRect>>();
  ASSERT_EQ(rects.size(), 1u);
  EXPECT_NORM_RECT(rects[0], 0.5333333f, 0.5f, 0.6036922f, 0.6036922f,
                   0.1106572f);
}

// ---- LandmarksToDetectionCalculator ----

NormalizedLandmarkList Landmarks(std::vector<std::pair<float, float>> pts) {
  NormalizedLandmarkList list;
  for (auto [x, y] : pts) {
    auto* lm = list.add_landmark();
    lm->set_x(x);
    lm->set_y(y);
  }
  return list;
}

absl::StatusOr<std::vector<Detection>> LandmarksToDetection(
    const std::string& options, const NormalizedLandmarkList& in) {
  auto out = RunGraph(
      R"pb(input_stream: "in"
           node { calculator: "LandmarksToDetectionCalculator"
                  input_stream: "NORM_LANDMARKS:in"
                  output_stream: "DETECTION:out"
                  options { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] {)pb" +
          options + "}}}",
      {"out"}, {{"in", {MakePacket<NormalizedLandmarkList>(in).At(Timestamp(3))}}});
  if (!out.ok()) return out.status();
  return PacketValues<Detection>((*out)["out"]);
}

TEST(LandmarksToDetectionCalculatorTest, BoxAndKeypoints) {
  const auto lms = Landmarks({{0.1f, 0.2f}, {0.5f, 0.6f}, {0.3f, 0.9f}});
  auto all = LandmarksToDetection("", lms);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 1u);
  const LocationData& loc = (*all)[0].location_data();
  EXPECT_EQ(loc.format(), LocationData::RELATIVE_BOUNDING_BOX);
  EXPECT_NEAR(loc.relative_bounding_box().xmin(), 0.1f, kEps);
  EXPECT_NEAR(loc.relative_bounding_box().ymin(), 0.2f, kEps);
  EXPECT_NEAR(loc.relative_bounding_box().width(), 0.4f, kEps);
  EXPECT_NEAR(loc.relative_bounding_box().height(), 0.7f, kEps);
  ASSERT_EQ(loc.relative_keypoints_size(), 3);
  EXPECT_FLOAT_EQ(loc.relative_keypoints(1).x(), 0.5f);

  auto some = LandmarksToDetection(
      "selected_landmark_indices: 2 selected_landmark_indices: 0", lms);
  ASSERT_TRUE(some.ok()) << some.status();
  const LocationData& s = (*some)[0].location_data();
  ASSERT_EQ(s.relative_keypoints_size(), 2);
  EXPECT_FLOAT_EQ(s.relative_keypoints(0).y(), 0.9f);  // in option order
  EXPECT_FLOAT_EQ(s.relative_keypoints(1).y(), 0.2f);
  EXPECT_NEAR(s.relative_bounding_box().xmin(), 0.1f, kEps);
  EXPECT_NEAR(s.relative_bounding_box().width(), 0.2f, kEps);
  EXPECT_NEAR(s.relative_bounding_box().height(), 0.7f, kEps);

  EXPECT_THAT(LandmarksToDetection("selected_landmark_indices: 3", lms)
                  .status()
                  .message(),
              HasSubstr("selected landmark 3"));
  EXPECT_THAT(LandmarksToDetection("", Landmarks({})).status().message(),
              HasSubstr("empty"));
}

// ---- HandLandmarksToRectCalculator ----

// 21 landmarks: those outside the 12-landmark subset sit at (0, 0), which
// must not count; subset members not named sit at `rest`.
NormalizedLandmarkList Hand(std::pair<float, float> wrist,
                            std::pair<float, float> index_mcp,
                            std::pair<float, float> middle_mcp,
                            std::pair<float, float> ring_mcp,
                            std::pair<float, float> pinky_mcp,
                            std::pair<float, float> pinky_pip,
                            std::pair<float, float> rest) {
  std::vector<std::pair<float, float>> pts(21, {0.f, 0.f});
  for (int i : {1, 2, 3, 6, 10, 14}) pts[i] = rest;
  pts[0] = wrist;
  pts[5] = index_mcp;
  pts[9] = middle_mcp;
  pts[13] = ring_mcp;
  pts[17] = pinky_mcp;
  pts[18] = pinky_pip;
  return Landmarks(pts);
}

absl::StatusOr<NormalizedRect> HandRect(const NormalizedLandmarkList& lms,
                                        Size size) {
  auto out = RunGraph(
      R"pb(input_stream: "lm" input_stream: "size"
           node { calculator: "HandLandmarksToRectCalculator"
                  input_stream: "NORM_LANDMARKS:lm"
                  input_stream: "IMAGE_SIZE:size"
                  output_stream: "NORM_RECT:out" })pb",
      {"out"},
      {{"lm", {MakePacket<NormalizedLandmarkList>(lms).At(Timestamp(1))}},
       {"size", {MakePacket<Size>(size).At(Timestamp(1))}}});
  if (!out.ok()) return out.status();
  if ((*out)["out"].size() != 1) return absl::InternalError("no output");
  return (*out)["out"][0].Get<NormalizedRect>();
}

TEST(HandLandmarksToRectCalculatorTest, UprightHand) {
  // Wrist below the MCP row: the wrist -> ((index + ring) / 2 + middle) / 2
  // vector points up, rotation 0; the rect is the subset's bounding box,
  // x [0.3, 0.7], y [0.4, 0.9].
  auto r = HandRect(Hand({0.5f, 0.9f}, {0.4f, 0.5f}, {0.5f, 0.5f},
                         {0.6f, 0.5f}, {0.3f, 0.5f}, {0.7f, 0.4f},
                         {0.5f, 0.6f}),
                    {100, 100});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NORM_RECT(*r, 0.5f, 0.65f, 0.4f, 0.5f, 0.f);
}

TEST(HandLandmarksToRectCalculatorTest, HandPointingRight) {
  // Fingers to the right of the wrist: rotation pi/2. Relative to the box
  // center (0.4, 0.5), in px: wrist (-20, 0), MCPs (20, -10..10), rest 0.
  // Turned upright the extent is 20 px across and 40 px along the hand.
  auto r = HandRect(Hand({0.2f, 0.5f}, {0.6f, 0.4f}, {0.6f, 0.5f},
                         {0.6f, 0.6f}, {0.4f, 0.5f}, {0.4f, 0.5f},
                         {0.4f, 0.5f}),
                    {100, 100});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NORM_RECT(*r, 0.4f, 0.5f, 0.2f, 0.4f, M_PI / 2);
}

TEST(HandLandmarksToRectCalculatorTest, TakesTheSubsetDirectly) {
  // 12 landmarks are taken as the subset already: same rect as UprightHand.
  const auto full = Hand({0.5f, 0.9f}, {0.4f, 0.5f}, {0.5f, 0.5f},
                         {0.6f, 0.5f}, {0.3f, 0.5f}, {0.7f, 0.4f},
                         {0.5f, 0.6f});
  NormalizedLandmarkList subset;
  for (int i : {0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18}) {
    *subset.add_landmark() = full.landmark(i);
  }
  auto r = HandRect(subset, {100, 100});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NORM_RECT(*r, 0.5f, 0.65f, 0.4f, 0.5f, 0.f);
}

}  // namespace
}  // namespace rill
