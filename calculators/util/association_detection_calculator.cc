// AssociationDetectionCalculator: AssociationCalculator (association_
// calculator.h) over std::vector<Detection>; the box is the relative
// bounding box and detection_id is carried over from the replaced or PREV
// detections.
//
//   node {
//     calculator: "AssociationDetectionCalculator"
//     input_stream: "PREV:prev_detections"
//     input_stream: "detections"
//     output_stream: "associated_detections"
//     options { [mediapipe.AssociationCalculatorOptions.ext] {
//       min_similarity_threshold: 0.5 } }
//   }
#include "absl/strings/str_cat.h"
#include "calculators/util/association_calculator.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/location_data.pb.h"

namespace rill {

class AssociationDetectionCalculator : public AssociationCalculator<Detection> {
 protected:
  absl::StatusOr<Box> GetBox(const Detection& detection) override {
    if (!detection.has_location_data()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "a detection has no location_data"));
    }
    const LocationData& location = detection.location_data();
    if (location.format() != LocationData::RELATIVE_BOUNDING_BOX) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "only RELATIVE_BOUNDING_BOX detections can be associated"));
    }
    const auto& b = location.relative_bounding_box();
    Box box;
    box.xmin = b.xmin();
    box.ymin = b.ymin();
    box.width = b.width();
    box.height = b.height();
    return box;
  }

  std::pair<bool, int> GetId(const Detection& detection) override {
    return {detection.has_detection_id(),
            static_cast<int>(detection.detection_id())};
  }

  void SetId(Detection* detection, int id) override {
    detection->set_detection_id(id);
  }
};
REGISTER_CALCULATOR(AssociationDetectionCalculator);

}  // namespace rill
