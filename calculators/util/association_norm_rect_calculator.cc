// AssociationNormRectCalculator: AssociationCalculator (association_
// calculator.h) over std::vector<NormalizedRect>, e.g. MediaPipe's hand
// tracking merging the rects from last frame's landmarks with new palm
// detections:
//
//   node {
//     calculator: "AssociationNormRectCalculator"
//     input_stream: "hand_rects_from_palm_detections"
//     input_stream: "prev_hand_rects_from_landmarks"  # wins on overlap
//     output_stream: "hand_rects"
//     options { [mediapipe.AssociationCalculatorOptions.ext] {
//       min_similarity_threshold: 0.5 } }
//   }
//
// The box is the unrotated rect; a rect missing a dimension is an error.
#include "absl/strings/str_cat.h"
#include "calculators/util/association_calculator.h"
#include "framework/formats/rect.pb.h"

namespace rill {

class AssociationNormRectCalculator
    : public AssociationCalculator<NormalizedRect> {
 protected:
  absl::StatusOr<Box> GetBox(const NormalizedRect& rect) override {
    if (!rect.has_x_center() || !rect.has_y_center() || !rect.has_width() ||
        !rect.has_height()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "a NormalizedRect lacks one of x_center, "
                               "y_center, width and height"));
    }
    Box box;
    box.xmin = rect.x_center() - rect.width() / 2.0;
    box.ymin = rect.y_center() - rect.height() / 2.0;
    box.width = rect.width();
    box.height = rect.height();
    return box;
  }
};
REGISTER_CALCULATOR(AssociationNormRectCalculator);

}  // namespace rill
