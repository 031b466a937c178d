// AlignmentPointsRectsCalculator: DetectionsToRectsCalculator (same streams
// and options) whose normalized rect comes from two keypoints instead of the
// box: centered on keypoint rotation_vector_start_keypoint_index, a square
// (in pixels) of side twice the distance to keypoint
// rotation_vector_end_keypoint_index, rotated as the base calculator does.
// Both indices are required (MediaPipe's pose and face-from-pose ROIs).
//
//   node {
//     calculator: "AlignmentPointsRectsCalculator"
//     input_stream: "DETECTION:pose_detection"
//     input_stream: "IMAGE_SIZE:image_size"
//     output_stream: "NORM_RECT:pose_rect"
//     options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
//       rotation_vector_start_keypoint_index: 0
//       rotation_vector_end_keypoint_index: 1
//       rotation_vector_target_angle_degrees: 90 } }
//   }
#include <cmath>

#include "absl/strings/str_cat.h"
#include "calculators/util/detections_to_rects_calculator.h"
#include "framework/formats/location_data.pb.h"

namespace rill {

class AlignmentPointsRectsCalculator : public DetectionsToRectsCalculator {
 public:
  absl::Status Open(CalculatorContext* cc) override {
    RILL_RETURN_IF_ERROR(DetectionsToRectsCalculator::Open(cc));
    if (!options_.has_rotation_vector_start_keypoint_index() ||
        !options_.has_rotation_vector_end_keypoint_index()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "needs rotation_vector_start_keypoint_index and "
                  "rotation_vector_end_keypoint_index (they give the rect's "
                  "center, size and rotation)"));
    }
    return absl::OkStatus();
  }

 protected:
  absl::Status DetectionToNormalizedRect(const Detection& detection,
                                         const DetectionSpec& spec,
                                         NormalizedRect* rect) override {
    if (!spec.image_size) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "the rect needs IMAGE_SIZE"));
    }
    const LocationData& location = detection.location_data();
    const int n = location.relative_keypoints_size();
    if (start_keypoint_index_ >= n || end_keypoint_index_ >= n ||
        start_keypoint_index_ < 0 || end_keypoint_index_ < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "keypoints ", start_keypoint_index_, " and ",
          end_keypoint_index_, " are not in a detection with ", n,
          " keypoints"));
    }
    const float w = spec.image_size->first, h = spec.image_size->second;
    const auto& center = location.relative_keypoints(start_keypoint_index_);
    const auto& scale = location.relative_keypoints(end_keypoint_index_);
    const float cx = center.x() * w, cy = center.y() * h;
    const float dx = scale.x() * w - cx, dy = scale.y() * h - cy;
    const float side = std::sqrt(dx * dx + dy * dy) * 2.0;
    rect->set_x_center(cx / w);
    rect->set_y_center(cy / h);
    rect->set_width(side / w);
    rect->set_height(side / h);
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(AlignmentPointsRectsCalculator);

}  // namespace rill
