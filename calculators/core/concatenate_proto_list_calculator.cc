// The Concatenate*ListCalculator family: the elements of several list protos
// (one per untagged input stream, in stream order) joined into one list of the
// same type. Missing inputs are skipped, or, with
// ConcatenateVectorCalculatorOptions.only_emit_if_all_present, nothing is
// emitted at that timestamp.
//
//   node {
//     calculator: "ConcatenateNormalizedLandmarkListCalculator"
//     input_stream: "face_landmarks"
//     input_stream: "iris_landmarks"
//     output_stream: "face_and_iris_landmarks"
//   }
//
// This file also registers ConcatenateVectorCalculator over the landmark and
// classification types (MediaPipe's names: ConcatenateLandmarkVectorCalculator
// joins NormalizedLandmark / std::vector<NormalizedLandmark> streams, ...).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/core/concatenate_vector_calculator.h"
#include "calculators/core/concatenate_vector_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/landmark.pb.h"

namespace rill {
namespace {

template <typename ListT>
void AppendList(const ListT& from, ListT* to);

template <>
void AppendList(const NormalizedLandmarkList& from,
                NormalizedLandmarkList* to) {
  to->mutable_landmark()->MergeFrom(from.landmark());
}
template <>
void AppendList(const LandmarkList& from, LandmarkList* to) {
  to->mutable_landmark()->MergeFrom(from.landmark());
}
template <>
void AppendList(const ClassificationList& from, ClassificationList* to) {
  to->mutable_classification()->MergeFrom(from.classification());
}

template <typename ListT>
class ConcatenateListCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& calculator = cc->GetNodeConfig().calculator();
    const int n = cc->Inputs().NumEntries("");
    if (n < 1 || cc->Inputs().NumEntries() != n ||
        cc->Outputs().NumEntries() != 1 || cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", cc->GetNodeName(),
          "\" needs one or more untagged input streams and exactly one "
          "untagged output stream"));
    }
    for (int i = 0; i < n; ++i) cc->Inputs().Index(i).Set<ListT>();
    cc->Outputs().Index(0).Set<ListT>();
    cc->UseOptions<ConcatenateVectorCalculatorOptions>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    only_if_all_ = cc->Options<ConcatenateVectorCalculatorOptions>()
                       .only_emit_if_all_present();
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const int n = cc->Inputs().NumEntries();
    if (only_if_all_) {
      for (int i = 0; i < n; ++i) {
        if (cc->Inputs().Index(i).IsEmpty()) return absl::OkStatus();
      }
    }
    ListT out;
    for (int i = 0; i < n; ++i) {
      const InputStreamShard& in = cc->Inputs().Index(i);
      if (!in.IsEmpty()) AppendList(in.Get<ListT>(), &out);
    }
    cc->Outputs().Index(0).AddPacket(
        MakePacket<ListT>(std::move(out)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  bool only_if_all_ = false;
};

}  // namespace

using ConcatenateNormalizedLandmarkListCalculator =
    ConcatenateListCalculator<NormalizedLandmarkList>;
REGISTER_CALCULATOR(ConcatenateNormalizedLandmarkListCalculator);

using ConcatenateLandmarkListCalculator =
    ConcatenateListCalculator<LandmarkList>;
REGISTER_CALCULATOR(ConcatenateLandmarkListCalculator);

using ConcatenateClassificationListCalculator =
    ConcatenateListCalculator<ClassificationList>;
REGISTER_CALCULATOR(ConcatenateClassificationListCalculator);

// std::vector instantiations (MediaPipe's names).
using ConcatenateLandmarkVectorCalculator =
    ConcatenateVectorCalculator<NormalizedLandmark>;
REGISTER_CALCULATOR(ConcatenateLandmarkVectorCalculator);

using ConcatenateLandmarkListVectorCalculator =
    ConcatenateVectorCalculator<LandmarkList>;
REGISTER_CALCULATOR(ConcatenateLandmarkListVectorCalculator);

using ConcatenateNormalizedLandmarkListVectorCalculator =
    ConcatenateVectorCalculator<NormalizedLandmarkList>;
REGISTER_CALCULATOR(ConcatenateNormalizedLandmarkListVectorCalculator);

using ConcatenateClassificationListVectorCalculator =
    ConcatenateVectorCalculator<ClassificationList>;
REGISTER_CALCULATOR(ConcatenateClassificationListVectorCalculator);

}  // namespace rill
