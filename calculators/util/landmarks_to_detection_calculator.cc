// LandmarksToDetectionCalculator turns normalized landmarks into a detection
// (MediaPipe's calculator of the same name): one relative keypoint per
// landmark (x, y) and the RELATIVE_BOUNDING_BOX around them. With
// selected_landmark_indices only those landmarks, in that order, are used.
//
//   node {
//     calculator: "LandmarksToDetectionCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"   # NormalizedLandmarkList
//     output_stream: "DETECTION:detection"       # Detection
//     options { [mediapipe.LandmarksToDetectionCalculatorOptions.ext] {
//       selected_landmark_indices: 33 selected_landmark_indices: 133 } }
//   }
//
// An empty landmark list, or an index past its end, is an error.
#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/util/landmarks_to_detection_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/location_data.pb.h"

namespace rill {
namespace {

constexpr char kDetectionTag[] = "DETECTION";
constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";

Detection LandmarksToDetection(const NormalizedLandmarkList& landmarks) {
  Detection detection;
  LocationData* location = detection.mutable_location_data();
  // As in MediaPipe the maxima start at the smallest positive float, so a
  // box whose landmarks all lie left of / above 0 ends at FLT_MIN.
  float xmin = std::numeric_limits<float>::max(), ymin = xmin;
  float xmax = std::numeric_limits<float>::min(), ymax = xmax;
  for (const NormalizedLandmark& lm : landmarks.landmark()) {
    xmin = std::min(xmin, lm.x());
    xmax = std::max(xmax, lm.x());
    ymin = std::min(ymin, lm.y());
    ymax = std::max(ymax, lm.y());
    auto* kp = location->add_relative_keypoints();
    kp->set_x(lm.x());
    kp->set_y(lm.y());
  }
  location->set_format(LocationData::RELATIVE_BOUNDING_BOX);
  auto* box = location->mutable_relative_bounding_box();
  box->set_xmin(xmin);
  box->set_ymin(ymin);
  box->set_width(xmax - xmin);
  box->set_height(ymax - ymin);
  return detection;
}

}  // namespace

class LandmarksToDetectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<LandmarksToDetectionCalculatorOptions>();
    cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Outputs().Tag(kDetectionTag).Set<Detection>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<LandmarksToDetectionCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kNormLandmarksTag);
    if (in.IsEmpty()) return absl::OkStatus();
    const auto& landmarks = in.Get<NormalizedLandmarkList>();
    // Only an error spells out where (not every frame).
    auto where = [cc] {
      return absl::StrCat("LandmarksToDetectionCalculator node \"",
                          cc->NodeName(), "\" at ",
                          cc->InputTimestamp().DebugString(), ": ");
    };
    if (landmarks.landmark_size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where(), "the landmark list is empty"));
    }
    Detection detection;
    if (options_.selected_landmark_indices_size() > 0) {
      NormalizedLandmarkList subset;
      for (int index : options_.selected_landmark_indices()) {
        if (index < 0 || index >= landmarks.landmark_size()) {
          return absl::InvalidArgumentError(
              absl::StrCat(where(), "selected landmark ", index,
                           " is not in a list of ", landmarks.landmark_size()));
        }
        *subset.add_landmark() = landmarks.landmark(index);
      }
      detection = LandmarksToDetection(subset);
    } else {
      detection = LandmarksToDetection(landmarks);
    }
    cc->Outputs().Tag(kDetectionTag).AddPacket(
        MakePacket<Detection>(std::move(detection)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  LandmarksToDetectionCalculatorOptions options_;
};
REGISTER_CALCULATOR(LandmarksToDetectionCalculator);

}  // namespace rill
