// LandmarkLetterboxRemovalCalculator maps landmarks found in a letterboxed
// tensor back to the unpadded region, as MediaPipe's calculator of the same
// name (the landmark twin of DetectionLetterboxRemovalCalculator):
//
//   node {
//     calculator: "LandmarkLetterboxRemovalCalculator"
//     input_stream: "LANDMARKS:landmarks"                 #
//     NormalizedLandmarkList input_stream:
//     "LETTERBOX_PADDING:letterbox_padding" # std::array<float, 4>
//     output_stream: "LANDMARKS:scaled_landmarks"
//   }
//
// z is scaled like x. Several LANDMARKS:i / LANDMARKS:i pairs may be given.
#include <array>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"

namespace rill {

class LandmarkLetterboxRemovalCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    const int n = cc->Inputs().NumEntries("LANDMARKS");
    if (n == 0 || n != cc->Outputs().NumEntries("LANDMARKS")) {
      return absl::InvalidArgumentError(
          "LandmarkLetterboxRemovalCalculator needs as many LANDMARKS outputs "
          "as LANDMARKS inputs (at least one)");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("LANDMARKS", i).Set<NormalizedLandmarkList>();
      cc->Outputs().Get("LANDMARKS", i).Set<NormalizedLandmarkList>();
    }
    cc->Inputs().Tag("LETTERBOX_PADDING").Set<std::array<float, 4>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("LETTERBOX_PADDING").IsEmpty())
      return absl::OkStatus();
    const auto& pad =
        cc->Inputs().Tag("LETTERBOX_PADDING").Get<std::array<float, 4>>();
    const float sx = 1.0f - pad[0] - pad[2], sy = 1.0f - pad[1] - pad[3];
    if (sx <= 0 || sy <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LandmarkLetterboxRemovalCalculator: padding {", pad[0], ", ", pad[1],
          ", ", pad[2], ", ", pad[3], "} leaves no image"));
    }
    for (int i = 0; i < cc->Inputs().NumEntries("LANDMARKS"); ++i) {
      const auto& in = cc->Inputs().Get("LANDMARKS", i);
      if (in.IsEmpty()) continue;
      NormalizedLandmarkList out = in.Get<NormalizedLandmarkList>();
      for (auto& lm : *out.mutable_landmark()) {
        lm.set_x((lm.x() - pad[0]) / sx);
        lm.set_y((lm.y() - pad[1]) / sy);
        lm.set_z(lm.z() / sx);
      }
      cc->Outputs()
          .Get("LANDMARKS", i)
          .AddPacket(MakePacket<NormalizedLandmarkList>(std::move(out))
                         .At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(LandmarkLetterboxRemovalCalculator);

}  // namespace rill
