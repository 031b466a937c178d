// LandmarkProjectionCalculator maps landmarks relative to a (rotated) region
// onto the whole image, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "LandmarkProjectionCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"   # NormalizedLandmarkList
//     input_stream: "NORM_RECT:roi"              # NormalizedRect
//     output_stream: "NORM_LANDMARKS:projected_landmarks"
//   }
//
// A point (x, y) of the region is rotated about the region's centre by its
// rotation, scaled by its size and moved to its centre; z is scaled by the
// region's width. Several NORM_LANDMARKS:i pairs may be given.
#include <cmath>

#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

class LandmarkProjectionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    const int n = cc->Inputs().NumEntries("NORM_LANDMARKS");
    if (n == 0 || n != cc->Outputs().NumEntries("NORM_LANDMARKS")) {
      return absl::InvalidArgumentError(
          "LandmarkProjectionCalculator needs as many NORM_LANDMARKS outputs "
          "as NORM_LANDMARKS inputs (at least one)");
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("NORM_LANDMARKS", i).Set<NormalizedLandmarkList>();
      cc->Outputs().Get("NORM_LANDMARKS", i).Set<NormalizedLandmarkList>();
    }
    cc->Inputs().Tag("NORM_RECT").Set<NormalizedRect>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("NORM_RECT").IsEmpty()) return absl::OkStatus();
    const auto& r = cc->Inputs().Tag("NORM_RECT").Get<NormalizedRect>();
    const float c = std::cos(r.rotation()), s = std::sin(r.rotation());
    for (int i = 0; i < cc->Inputs().NumEntries("NORM_LANDMARKS"); ++i) {
      const auto& in = cc->Inputs().Get("NORM_LANDMARKS", i);
      if (in.IsEmpty()) continue;
      NormalizedLandmarkList out = in.Get<NormalizedLandmarkList>();
      for (auto& lm : *out.mutable_landmark()) {
        const float x = lm.x() - 0.5f, y = lm.y() - 0.5f;
        lm.set_x((c * x - s * y) * r.width() + r.x_center());
        lm.set_y((s * x + c * y) * r.height() + r.y_center());
        lm.set_z(lm.z() * r.width());
      }
      cc->Outputs()
          .Get("NORM_LANDMARKS", i)
          .AddPacket(MakePacket<NormalizedLandmarkList>(std::move(out))
                         .At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(LandmarkProjectionCalculator);

}  // namespace rill
