// VisibilitySmoothingCalculator smooths each landmark's visibility over time
// with a low-pass filter (or passes it unchanged with no_filter); everything
// else in the landmarks passes unchanged.
//
//   node {
//     calculator: "VisibilitySmoothingCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"          # or LANDMARKS:
//     output_stream: "NORM_FILTERED_LANDMARKS:filtered"  # or FILTERED_...
//     options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] {
//       low_pass_filter { alpha: 0.1 } } }
//   }
//
// The filters reset when the node runs at a timestamp without landmarks,
// which with its single input does not happen: as in MediaPipe, smoothing
// carries on across frames without landmarks. A list whose size differs from
// the one the filters were set up for is an error.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/landmarks/filters.h"
#include "calculators/landmarks/visibility_smoothing_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"

namespace rill {
namespace {

constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kNormFilteredTag[] = "NORM_FILTERED_LANDMARKS";
constexpr char kFilteredTag[] = "FILTERED_LANDMARKS";

using Options = VisibilitySmoothingCalculatorOptions;

class VisibilitySmoothingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string where = absl::StrCat(
        "VisibilitySmoothingCalculator node \"", cc->GetNodeName(), "\" ");
    const bool norm = cc->Inputs().HasTag(kNormLandmarksTag);
    if (norm == cc->Inputs().HasTag(kLandmarksTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "needs exactly one of NORM_LANDMARKS and LANDMARKS"));
    }
    if (norm) {
      if (!cc->Outputs().HasTag(kNormFilteredTag)) {
        return absl::InvalidArgumentError(absl::StrCat(
            where,
            "with NORM_LANDMARKS needs a NORM_FILTERED_LANDMARKS output"));
      }
      cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
      cc->Outputs().Tag(kNormFilteredTag).Set<NormalizedLandmarkList>();
    } else {
      if (!cc->Outputs().HasTag(kFilteredTag)) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "with LANDMARKS needs a FILTERED_LANDMARKS output"));
      }
      cc->Inputs().Tag(kLandmarksTag).Set<LandmarkList>();
      cc->Outputs().Tag(kFilteredTag).Set<LandmarkList>();
    }
    if (cc->Options<Options>().filter_options_case() ==
        Options::FILTER_OPTIONS_NOT_SET) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          "needs a filter in its options: no_filter or low_pass_filter"));
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<Options>();
    low_pass_ = options.has_low_pass_filter();
    alpha_ = options.low_pass_filter().alpha();
    normalized_ = cc->Inputs().HasTag(kNormLandmarksTag);
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in =
        cc->Inputs().Tag(normalized_ ? kNormLandmarksTag : kLandmarksTag);
    if (in.IsEmpty()) {
      filters_.clear();
      return absl::OkStatus();
    }
    if (normalized_) {
      auto out = std::make_unique<NormalizedLandmarkList>(
          in.Get<NormalizedLandmarkList>());
      RILL_RETURN_IF_ERROR(Smooth(cc, out.get()));
      cc->Outputs()
          .Tag(kNormFilteredTag)
          .Add(out.release(), cc->InputTimestamp());
    } else {
      auto out = std::make_unique<LandmarkList>(in.Get<LandmarkList>());
      RILL_RETURN_IF_ERROR(Smooth(cc, out.get()));
      cc->Outputs().Tag(kFilteredTag).Add(out.release(), cc->InputTimestamp());
    }
    return absl::OkStatus();
  }

 private:
  template <typename ListT>
  absl::Status Smooth(CalculatorContext* cc, ListT* list) {
    if (!low_pass_) return absl::OkStatus();
    const size_t n = list->landmark_size();
    if (filters_.empty()) {
      filters_.assign(n, filtering::LowPassFilter(alpha_));
    } else if (filters_.size() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "VisibilitySmoothingCalculator node \"", cc->NodeName(),
          "\": the landmark list at ", cc->InputTimestamp().DebugString(),
          " has ", n, " landmarks but the filters were set up for ",
          filters_.size()));
    }
    for (size_t i = 0; i < n; ++i) {
      auto* l = list->mutable_landmark(static_cast<int>(i));
      l->set_visibility(filters_[i].Apply(l->visibility()));
    }
    return absl::OkStatus();
  }

  bool low_pass_ = false;
  float alpha_ = 0.1f;
  bool normalized_ = false;
  std::vector<filtering::LowPassFilter> filters_;
};

}  // namespace

REGISTER_CALCULATOR(VisibilitySmoothingCalculator);

}  // namespace rill
