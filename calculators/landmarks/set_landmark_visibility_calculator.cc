// SetLandmarkVisibilityCalculator: NORM_LANDMARKS (a NormalizedLandmarkList
// of one landmark) and VISIBILITY (float) -> NORM_LANDMARKS (that landmark
// with this visibility). Nothing is emitted where an input is missing; a
// list that does not hold exactly one landmark is an error.
//
//   node {
//     calculator: "SetLandmarkVisibilityCalculator"
//     input_stream: "NORM_LANDMARKS:landmark"
//     input_stream: "VISIBILITY:smoothed_visibility"
//     output_stream: "NORM_LANDMARKS:landmark_with_visibility"
//   }
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"

namespace rill {
namespace {

constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kVisibilityTag[] = "VISIBILITY";

absl::Status CheckOneLandmark(CalculatorContext* cc,
                              const NormalizedLandmarkList& list) {
  if (list.landmark_size() == 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      cc->CalculatorType(), " node \"", cc->NodeName(),
      "\": NORM_LANDMARKS at ", cc->InputTimestamp().DebugString(), " holds ",
      list.landmark_size(), " landmarks; it must hold exactly one"));
}

class SetLandmarkVisibilityCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kNormLandmarksTag) ||
        !cc->Inputs().HasTag(kVisibilityTag) ||
        !cc->Outputs().HasTag(kNormLandmarksTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SetLandmarkVisibilityCalculator node \"", cc->GetNodeName(),
          "\" needs NORM_LANDMARKS and VISIBILITY input streams and a "
          "NORM_LANDMARKS output stream"));
    }
    cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Inputs().Tag(kVisibilityTag).Set<float>();
    cc->Outputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kNormLandmarksTag);
    const InputStreamShard& visibility = cc->Inputs().Tag(kVisibilityTag);
    if (in.IsEmpty() || visibility.IsEmpty()) return absl::OkStatus();
    const auto& list = in.Get<NormalizedLandmarkList>();
    RILL_RETURN_IF_ERROR(CheckOneLandmark(cc, list));
    auto out = std::make_unique<NormalizedLandmarkList>(list);
    out->mutable_landmark(0)->set_visibility(visibility.Get<float>());
    cc->Outputs()
        .Tag(kNormLandmarksTag)
        .Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_CALCULATOR(SetLandmarkVisibilityCalculator);

}  // namespace rill
