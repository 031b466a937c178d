// LandmarksRefinementCalculator builds one landmark list from several: each
// LANDMARKS:i input (a NormalizedLandmarkList) writes x and y of its
// landmarks into the result at the indexes its Refinement's indexes_mapping
// names, in input order (a later input overwrites an earlier one), and sets
// z as its ZRefinement says: none (keep), copy (from the input) or
// assign_average (the mean z of the listed result landmarks, as they are at
// that point, given to every mapped landmark). Face mesh with attention
// refines the mesh's lips, eyes and irises with the attention model's
// sub-meshes this way.
//
//   node {
//     calculator: "LandmarksRefinementCalculator"
//     input_stream: "LANDMARKS:0:mesh_landmarks"
//     input_stream: "LANDMARKS:1:lips_landmarks"
//     output_stream: "REFINED_LANDMARKS:refined_landmarks"
//     options { [mediapipe.LandmarksRefinementCalculatorOptions.ext] {
//       refinement { indexes_mapping: [0, 1, 2] z_refinement { copy {} } }
//       refinement { indexes_mapping: [1, 2] z_refinement { none {} } } } }
//   }
//
// The result has N landmarks, the mappings together covering 0 .. N-1.
// Visibility and presence are left unset. Nothing is emitted at a timestamp
// where any input is missing.
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/landmarks/landmarks_refinement_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"

namespace rill {
namespace {

constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kRefinedLandmarksTag[] = "REFINED_LANDMARKS";

using Options = LandmarksRefinementCalculatorOptions;

// Checks the refinements; returns the size of the result through `n`.
absl::Status CheckRefinements(const Options& options, int num_inputs,
                              const std::string& where, int* n) {
  if (options.refinement_size() != num_inputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "has ", num_inputs, " LANDMARKS inputs but ",
        options.refinement_size(), " refinements; give one per input"));
  }
  std::set<int> covered;
  for (int i = 0; i < options.refinement_size(); ++i) {
    const Options::Refinement& r = options.refinement(i);
    if (r.indexes_mapping_size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "refinement ", i, " has no indexes_mapping"));
    }
    const auto z = r.z_refinement().z_refinement_options_case();
    if (z == Options::ZRefinement::Z_REFINEMENT_OPTIONS_NOT_SET) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "refinement ", i,
          " has no z_refinement (give none {}, copy {} or assign_average {})"));
    }
    if (z == Options::ZRefinement::kAssignAverage &&
        r.z_refinement().assign_average().indexes_for_average_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "refinement ", i,
          " assigns an average z but lists no indexes_for_average"));
    }
    for (int index : r.indexes_mapping()) covered.insert(index);
  }
  if (covered.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "needs at least one refinement"));
  }
  const int smallest = *covered.begin();
  const int largest = *covered.rbegin();
  if (smallest != 0 || largest != static_cast<int>(covered.size()) - 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        where,
        "the indexes_mapping values must cover 0 .. N-1 without gaps; "
        "they span ",
        smallest, " .. ", largest, " with ", covered.size(), " distinct"));
  }
  for (int i = 0; i < options.refinement_size(); ++i) {
    for (int index : options.refinement(i)
                         .z_refinement()
                         .assign_average()
                         .indexes_for_average()) {
      if (index < 0 || index > largest) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, "refinement ", i, " averages z over index ", index,
            ", outside the ", largest + 1, " refined landmarks"));
      }
    }
  }
  *n = largest + 1;
  return absl::OkStatus();
}

class LandmarksRefinementCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string where = absl::StrCat(
        "LandmarksRefinementCalculator node \"", cc->GetNodeName(), "\": ");
    const int n = cc->Inputs().NumEntries(kLandmarksTag);
    if (n < 1 || cc->Inputs().NumEntries() != n ||
        !cc->Outputs().HasTag(kRefinedLandmarksTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          "needs LANDMARKS:0 .. LANDMARKS:k input streams (and no others) and "
          "a REFINED_LANDMARKS output stream"));
    }
    int size = 0;
    RILL_RETURN_IF_ERROR(
        CheckRefinements(cc->Options<Options>(), n, where, &size));
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get(kLandmarksTag, i).Set<NormalizedLandmarkList>();
    }
    cc->Outputs().Tag(kRefinedLandmarksTag).Set<NormalizedLandmarkList>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<Options>();
    const std::string where = absl::StrCat(
        "LandmarksRefinementCalculator node \"", cc->NodeName(), "\": ");
    RILL_RETURN_IF_ERROR(CheckRefinements(
        options_, cc->Inputs().NumEntries(kLandmarksTag), where, &size_));
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const int n = cc->Inputs().NumEntries(kLandmarksTag);
    for (int i = 0; i < n; ++i) {
      if (cc->Inputs().Get(kLandmarksTag, i).IsEmpty()) return absl::OkStatus();
    }
    auto refined = std::make_unique<NormalizedLandmarkList>();
    for (int i = 0; i < size_; ++i) refined->add_landmark();
    for (int i = 0; i < n; ++i) {
      const auto& input =
          cc->Inputs().Get(kLandmarksTag, i).Get<NormalizedLandmarkList>();
      const Options::Refinement& r = options_.refinement(i);
      if (input.landmark_size() != r.indexes_mapping_size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "LandmarksRefinementCalculator node \"", cc->NodeName(),
            "\": LANDMARKS:", i, " at ", cc->InputTimestamp().DebugString(),
            " has ", input.landmark_size(),
            " landmarks but its indexes_mapping has ",
            r.indexes_mapping_size()));
      }
      for (int j = 0; j < input.landmark_size(); ++j) {
        NormalizedLandmark* to =
            refined->mutable_landmark(r.indexes_mapping(j));
        to->set_x(input.landmark(j).x());
        to->set_y(input.landmark(j).y());
      }
      const Options::ZRefinement& z = r.z_refinement();
      if (z.has_copy()) {
        for (int j = 0; j < input.landmark_size(); ++j) {
          refined->mutable_landmark(r.indexes_mapping(j))
              ->set_z(input.landmark(j).z());
        }
      } else if (z.has_assign_average()) {
        // Summed in double, as MediaPipe does.
        const auto& over = z.assign_average().indexes_for_average();
        double sum = 0;
        for (int index : over) sum += refined->landmark(index).z();
        const float average = static_cast<float>(sum / over.size());
        for (int index : r.indexes_mapping()) {
          refined->mutable_landmark(index)->set_z(average);
        }
      }
    }
    cc->Outputs()
        .Tag(kRefinedLandmarksTag)
        .Add(refined.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  Options options_;
  int size_ = 0;
};

}  // namespace

REGISTER_CALCULATOR(LandmarksRefinementCalculator);

}  // namespace rill
