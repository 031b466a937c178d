// HandDetectionsFromPoseToRectsCalculator: DetectionsToRectsCalculator (same
// streams; IMAGE_SIZE required) for a hand "detection" made of three pose
// landmarks, keypoints 0 wrist, 1 pinky, 2 index (MediaPipe's holistic
// hand ROI). The middle finger is estimated as (2 * index + pinky) / 3; the
// rect is a square (in pixels) centered there with side twice the
// wrist-to-middle distance, rotated so that wrist -> middle points up
// (target angle 90 degrees). The rotation options are ignored;
// output_zero_rect_for_empty_detections applies.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "calculators/util/detections_to_rects_calculator.h"
#include "calculators/util/rect_util.h"
#include "framework/formats/location_data.pb.h"

namespace rill {
namespace {

constexpr int kWrist = 0;
constexpr int kPinky = 1;
constexpr int kIndex = 2;

}  // namespace

class HandDetectionsFromPoseToRectsCalculator
    : public DetectionsToRectsCalculator {
 public:
  absl::Status Open(CalculatorContext* cc) override {
    where_ = absl::StrCat(cc->CalculatorType(), " node \"", cc->NodeName(),
                          "\": ");
    if (!cc->Inputs().HasTag("IMAGE_SIZE")) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "needs the IMAGE_SIZE input stream"));
    }
    options_ = cc->Options<DetectionsToRectsCalculatorOptions>();
    target_angle_ = M_PI * 0.5f;
    rotate_ = true;
    output_zero_rect_for_empty_detections_ =
        options_.output_zero_rect_for_empty_detections();
    return absl::OkStatus();
  }

 protected:
  absl::Status DetectionToNormalizedRect(const Detection& detection,
                                         const DetectionSpec& spec,
                                         NormalizedRect* rect) override {
    Points p;
    RILL_RETURN_IF_ERROR(GetPoints(detection, spec, &p));
    const float dx = p.middle_x - p.wrist_x, dy = p.middle_y - p.wrist_y;
    const float side = std::sqrt(dx * dx + dy * dy) * 2.0;
    const float w = spec.image_size->first, h = spec.image_size->second;
    rect->set_x_center(p.middle_x / w);
    rect->set_y_center(p.middle_y / h);
    rect->set_width(side / w);
    rect->set_height(side / h);
    return absl::OkStatus();
  }

  absl::Status ComputeRotation(const Detection& detection,
                               const DetectionSpec& spec,
                               float* rotation) override {
    Points p;
    RILL_RETURN_IF_ERROR(GetPoints(detection, spec, &p));
    *rotation = NormalizeRadians(
        target_angle_ -
        std::atan2(-(p.middle_y - p.wrist_y), p.middle_x - p.wrist_x));
    return absl::OkStatus();
  }

 private:
  // Wrist and estimated middle finger, in pixels.
  struct Points {
    float wrist_x, wrist_y, middle_x, middle_y;
  };

  absl::Status GetPoints(const Detection& detection, const DetectionSpec& spec,
                         Points* p) {
    if (!spec.image_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "the hand rect needs IMAGE_SIZE"));
    }
    const LocationData& location = detection.location_data();
    if (location.relative_keypoints_size() < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "a hand detection needs 3 keypoints (wrist, pinky, index), "
                  "has ",
          location.relative_keypoints_size()));
    }
    const float w = spec.image_size->first, h = spec.image_size->second;
    const auto& wrist = location.relative_keypoints(kWrist);
    const auto& pinky = location.relative_keypoints(kPinky);
    const auto& index = location.relative_keypoints(kIndex);
    p->wrist_x = wrist.x() * w;
    p->wrist_y = wrist.y() * h;
    const float index_x = index.x() * w, index_y = index.y() * h;
    const float pinky_x = pinky.x() * w, pinky_y = pinky.y() * h;
    p->middle_x = (2.f * index_x + pinky_x) / 3.f;
    p->middle_y = (2.f * index_y + pinky_y) / 3.f;
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(HandDetectionsFromPoseToRectsCalculator);

}  // namespace rill
