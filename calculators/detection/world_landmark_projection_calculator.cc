// WorldLandmarkProjectionCalculator turns world landmarks (metres, origin at
// the region's centre, axes of the region) to the image's axes by undoing the
// region's rotation, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "WorldLandmarkProjectionCalculator"
//     input_stream: "LANDMARKS:unprojected_world_landmarks"  # LandmarkList
//     input_stream: "NORM_RECT:roi"                          # optional
//     output_stream: "LANDMARKS:world_landmarks"
//   }
//
// Without NORM_RECT the landmarks pass unchanged; z is never changed.
#include <cmath>

#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

class WorldLandmarkProjectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("LANDMARKS").Set<LandmarkList>();
    if (cc->Inputs().HasTag("NORM_RECT"))
      cc->Inputs().Tag("NORM_RECT").Set<NormalizedRect>();
    cc->Outputs().Tag("LANDMARKS").Set<LandmarkList>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("LANDMARKS").IsEmpty()) return absl::OkStatus();
    LandmarkList out = cc->Inputs().Tag("LANDMARKS").Get<LandmarkList>();
    if (cc->Inputs().HasTag("NORM_RECT") &&
        !cc->Inputs().Tag("NORM_RECT").IsEmpty()) {
      const float r =
          cc->Inputs().Tag("NORM_RECT").Get<NormalizedRect>().rotation();
      const float c = std::cos(r), s = std::sin(r);
      for (auto& lm : *out.mutable_landmark()) {
        const float x = lm.x(), y = lm.y();
        lm.set_x(c * x - s * y);
        lm.set_y(s * x + c * y);
      }
    }
    cc->Outputs()
        .Tag("LANDMARKS")
        .AddPacket(
            MakePacket<LandmarkList>(std::move(out)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(WorldLandmarkProjectionCalculator);

}  // namespace rill
