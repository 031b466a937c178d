// DetectionProjectionCalculator maps detections found in a model's input
// tensor back onto the image the tensor was cut from, using the 4x4
// row-major MATRIX that ImageToTensorCalculator emits (tensor-normalized
// point -> image-normalized point):
//
//   node {
//     calculator: "DetectionProjectionCalculator"
//     input_stream: "DETECTIONS:tensor_detections"
//     input_stream: "PROJECTION_MATRIX:transform_matrix"
//     output_stream: "DETECTIONS:detections"
//   }
//
// Keypoints are projected exactly; a relative box is projected corner by
// corner and replaced by the axis-aligned box around the four corners
// (exact for the unrotated case).
#include <algorithm>
#include <array>
#include <vector>

#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"

namespace rill {

class DetectionProjectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("DETECTIONS").Set<std::vector<Detection>>();
    cc->Inputs().Tag("PROJECTION_MATRIX").Set<std::array<float, 16>>();
    cc->Outputs().Tag("DETECTIONS").Set<std::vector<Detection>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("DETECTIONS").IsEmpty()) return absl::OkStatus();
    if (cc->Inputs().Tag("PROJECTION_MATRIX").IsEmpty()) {
      return absl::InvalidArgumentError(
          "DetectionProjectionCalculator: detections arrived without a "
          "PROJECTION_MATRIX at the same timestamp");
    }
    const auto& m =
        cc->Inputs().Tag("PROJECTION_MATRIX").Get<std::array<float, 16>>();
    auto project = [&m](float x, float y, float* px, float* py) {
      *px = m[0] * x + m[1] * y + m[3];
      *py = m[4] * x + m[5] * y + m[7];
    };
    std::vector<Detection> out =
        cc->Inputs().Tag("DETECTIONS").Get<std::vector<Detection>>();
    for (Detection& d : out) {
      LocationData* loc = d.mutable_location_data();
      if (loc->format() != LocationData::RELATIVE_BOUNDING_BOX &&
          !loc->has_relative_bounding_box()) {
        return absl::InvalidArgumentError(
            "DetectionProjectionCalculator: only RELATIVE_BOUNDING_BOX "
            "detections can be projected");
      }
      for (auto& kp : *loc->mutable_relative_keypoints()) {
        float x, y;
        project(kp.x(), kp.y(), &x, &y);
        kp.set_x(x);
        kp.set_y(y);
      }
      if (loc->has_relative_bounding_box()) {
        auto* box = loc->mutable_relative_bounding_box();
        const float x0 = box->xmin(), y0 = box->ymin();
        const float x1 = x0 + box->width(), y1 = y0 + box->height();
        const float cx[4] = {x0, x1, x1, x0}, cy[4] = {y0, y0, y1, y1};
        float xmin = 1e30f, ymin = 1e30f, xmax = -1e30f, ymax = -1e30f;
        for (int i = 0; i < 4; ++i) {
          float x, y;
          project(cx[i], cy[i], &x, &y);
          xmin = std::min(xmin, x);
          xmax = std::max(xmax, x);
          ymin = std::min(ymin, y);
          ymax = std::max(ymax, y);
        }
        box->set_xmin(xmin);
        box->set_ymin(ymin);
        box->set_width(xmax - xmin);
        box->set_height(ymax - ymin);
      }
    }
    cc->Outputs()
        .Tag("DETECTIONS")
        .AddPacket(MakePacket<std::vector<Detection>>(std::move(out))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(DetectionProjectionCalculator);

}  // namespace rill
