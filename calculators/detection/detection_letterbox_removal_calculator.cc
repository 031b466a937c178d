// DetectionLetterboxRemovalCalculator undoes letterboxing: detections found
// in a padded tensor (ImageToTensorCalculator with keep_aspect_ratio and a
// LETTERBOX_PADDING output) are mapped to the unpadded image.
//
//   node {
//     calculator: "DetectionLetterboxRemovalCalculator"
//     input_stream: "DETECTIONS:detections"
//     input_stream: "LETTERBOX_PADDING:letterbox_padding"
//     output_stream: "DETECTIONS:detections_without_letterbox"
//   }
//
// LETTERBOX_PADDING is std::array<float, 4> {left, top, right, bottom},
// each a fraction of the tensor's width or height.
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"

namespace rill {

class DetectionLetterboxRemovalCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("DETECTIONS").Set<std::vector<Detection>>();
    cc->Inputs().Tag("LETTERBOX_PADDING").Set<std::array<float, 4>>();
    cc->Outputs().Tag("DETECTIONS").Set<std::vector<Detection>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("DETECTIONS").IsEmpty()) return absl::OkStatus();
    if (cc->Inputs().Tag("LETTERBOX_PADDING").IsEmpty()) {
      return absl::InvalidArgumentError(
          "DetectionLetterboxRemovalCalculator: detections arrived without "
          "LETTERBOX_PADDING at the same timestamp");
    }
    const auto& pad =
        cc->Inputs().Tag("LETTERBOX_PADDING").Get<std::array<float, 4>>();
    const float left = pad[0], top = pad[1];
    const float sx = 1.0f - pad[0] - pad[2], sy = 1.0f - pad[1] - pad[3];
    if (sx <= 0 || sy <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DetectionLetterboxRemovalCalculator: padding {", pad[0], ", ",
          pad[1], ", ", pad[2], ", ", pad[3], "} leaves no image"));
    }
    std::vector<Detection> out =
        cc->Inputs().Tag("DETECTIONS").Get<std::vector<Detection>>();
    for (Detection& d : out) {
      LocationData* loc = d.mutable_location_data();
      if (loc->has_relative_bounding_box()) {
        auto* box = loc->mutable_relative_bounding_box();
        box->set_xmin((box->xmin() - left) / sx);
        box->set_ymin((box->ymin() - top) / sy);
        box->set_width(box->width() / sx);
        box->set_height(box->height() / sy);
      }
      for (auto& kp : *loc->mutable_relative_keypoints()) {
        kp.set_x((kp.x() - left) / sx);
        kp.set_y((kp.y() - top) / sy);
      }
    }
    cc->Outputs()
        .Tag("DETECTIONS")
        .AddPacket(MakePacket<std::vector<Detection>>(std::move(out))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(DetectionLetterboxRemovalCalculator);

}  // namespace rill
