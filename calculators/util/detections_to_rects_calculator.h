// DetectionsToRectsCalculator turns detections into rects (MediaPipe's
// calculator of the same name):
//
//   node {
//     calculator: "DetectionsToRectsCalculator"
//     input_stream: "DETECTION:detection"    # or DETECTIONS: (vector)
//     input_stream: "IMAGE_SIZE:image_size"  # std::pair<int, int>; needed
//                                            # for rotation and RECT from
//                                            # keypoints
//     output_stream: "NORM_RECT:rect"        # or RECT, NORM_RECTS, RECTS
//     options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] {
//       rotation_vector_start_keypoint_index: 0
//       rotation_vector_end_keypoint_index: 1
//       rotation_vector_target_angle_degrees: 90 } }
//   }
//
// The rect is the detection's box (BOUNDING_BOX for RECT(S),
// RELATIVE_BOUNDING_BOX for NORM_RECT(S)) or, with conversion_mode
// USE_KEYPOINTS, the box around its keypoints (rounded to pixels for
// RECT(S)). With a rotation vector, the rect's rotation is
// target_angle - angle(start -> end keypoint), measured in pixels and
// normalized to [-pi, pi). RECT and NORM_RECT take the first detection.
// An empty DETECTIONS vector gives nothing (or a zero rect with
// output_zero_rect_for_empty_detections); with rotation, a timestamp
// without IMAGE_SIZE gives nothing.
//
// Subclasses (AlignmentPointsRectsCalculator,
// HandDetectionsFromPoseToRectsCalculator) replace how one detection becomes
// a rect and how its rotation is found.
#ifndef RILL_CALCULATORS_UTIL_DETECTIONS_TO_RECTS_CALCULATOR_H_
#define RILL_CALCULATORS_UTIL_DETECTIONS_TO_RECTS_CALCULATOR_H_

#include <optional>
#include <string>
#include <utility>

#include "calculators/util/detections_to_rects_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

// What a detection is converted with besides itself.
struct DetectionSpec {
  std::optional<std::pair<int, int>> image_size;  // width, height
};

class DetectionsToRectsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc);
  absl::Status Open(CalculatorContext* cc) override;
  absl::Status Process(CalculatorContext* cc) override;

 protected:
  virtual absl::Status DetectionToRect(const Detection& detection,
                                       const DetectionSpec& spec, Rect* rect);
  virtual absl::Status DetectionToNormalizedRect(const Detection& detection,
                                                 const DetectionSpec& spec,
                                                 NormalizedRect* rect);
  virtual absl::Status ComputeRotation(const Detection& detection,
                                       const DetectionSpec& spec,
                                       float* rotation);

  // "<calculator> node "<name>": " for error messages (set in Open).
  std::string where_;
  DetectionsToRectsCalculatorOptions options_;
  int start_keypoint_index_ = 0;
  int end_keypoint_index_ = 0;
  float target_angle_ = 0.f;  // radians
  bool rotate_ = false;
  bool output_zero_rect_for_empty_detections_ = false;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_UTIL_DETECTIONS_TO_RECTS_CALCULATOR_H_
