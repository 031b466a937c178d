// LandmarkVisibilityCalculator: NORM_LANDMARKS (a NormalizedLandmarkList of
// one landmark; a list because the split and concatenate calculators work
// with lists) -> VISIBILITY (float, that landmark's visibility). Nothing is
// emitted where NORM_LANDMARKS is missing; a list that does not hold exactly
// one landmark is an error.
//
//   node {
//     calculator: "LandmarkVisibilityCalculator"
//     input_stream: "NORM_LANDMARKS:landmark"
//     output_stream: "VISIBILITY:visibility"
//   }
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

class LandmarkVisibilityCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kNormLandmarksTag) ||
        !cc->Outputs().HasTag(kVisibilityTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LandmarkVisibilityCalculator node \"", cc->GetNodeName(),
          "\" needs a NORM_LANDMARKS input and a VISIBILITY output stream"));
    }
    cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Outputs().Tag(kVisibilityTag).Set<float>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kNormLandmarksTag);
    if (in.IsEmpty()) return absl::OkStatus();
    const auto& list = in.Get<NormalizedLandmarkList>();
    RILL_RETURN_IF_ERROR(CheckOneLandmark(cc, list));
    cc->Outputs()
        .Tag(kVisibilityTag)
        .AddPacket(MakePacket<float>(list.landmark(0).visibility())
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_CALCULATOR(LandmarkVisibilityCalculator);

}  // namespace rill
