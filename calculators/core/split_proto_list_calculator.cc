// The Split*ListCalculator family: SplitVectorCalculator's ranges,
// element_only and combine_outputs (SplitVectorCalculatorOptions) applied to
// the repeated field of a landmark list proto rather than to a std::vector.
// Each output is a list of the same type holding a range's elements, or the
// element itself with element_only, or one list of all ranges in order with
// combine_outputs.
//
//   node {
//     calculator: "SplitNormalizedLandmarkListCalculator"
//     input_stream: "pose_landmarks"
//     output_stream: "left_hand_landmarks"
//     options { [mediapipe.SplitVectorCalculatorOptions.ext] {
//       ranges { begin: 15 end: 16 } element_only: false } }
//   }
//
// This file also registers the std::vector instantiations of
// SplitVectorCalculator over the landmark types (SplitLandmarkVectorCalculator
// splits std::vector<NormalizedLandmark>, as in MediaPipe;
// SplitClassificationListVectorCalculator is in calculators/util/).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/split_vector_calculator.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"

namespace rill {

// Accessors of a list proto's repeated field.
template <typename ListT>
struct ListTraits;

template <>
struct ListTraits<NormalizedLandmarkList> {
  using Item = NormalizedLandmark;
  static const auto& Items(const NormalizedLandmarkList& l) {
    return l.landmark();
  }
  static auto* MutableItems(NormalizedLandmarkList* l) {
    return l->mutable_landmark();
  }
};

template <>
struct ListTraits<LandmarkList> {
  using Item = Landmark;
  static const auto& Items(const LandmarkList& l) { return l.landmark(); }
  static auto* MutableItems(LandmarkList* l) { return l->mutable_landmark(); }
};

template <typename ListT>
class SplitListCalculator : public CalculatorBase {
  using Traits = ListTraits<ListT>;
  using Item = typename Traits::Item;

 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& node = cc->GetNodeName();
    const std::string& calculator = cc->GetNodeConfig().calculator();
    if (cc->Inputs().NumEntries() != 1 || cc->Inputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(calculator, " node \"", node,
                       "\" needs exactly one untagged input stream, has ",
                       cc->Inputs().NumEntries()));
    }
    const auto& options = cc->Options<SplitVectorCalculatorOptions>();
    RILL_RETURN_IF_ERROR(ValidateSplitVectorOptions(
        options, cc->Outputs().NumEntries(), calculator, node));
    cc->Inputs().Index(0).Set<ListT>();
    for (int i = 0; i < cc->Outputs().NumEntries(); ++i) {
      if (options.element_only()) {
        cc->Outputs().Get(i).Set<Item>();
      } else {
        cc->Outputs().Get(i).Set<ListT>();
      }
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<SplitVectorCalculatorOptions>();
    element_only_ = options.element_only();
    combine_ = options.combine_outputs();
    for (const Range& r : options.ranges()) {
      ranges_.emplace_back(r.begin(), r.end());
      max_end_ = std::max(max_end_, r.end());
    }
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Index(0);
    if (in.IsEmpty()) return absl::OkStatus();
    const auto& items = Traits::Items(in.Get<ListT>());
    if (items.size() < max_end_) {
      return absl::InvalidArgumentError(absl::StrCat(
          cc->CalculatorType(), " node \"", cc->NodeName(), "\": input at ",
          cc->InputTimestamp().DebugString(), " has ", items.size(),
          " elements but the ranges reach index ", max_end_ - 1));
    }
    const Timestamp ts = cc->InputTimestamp();
    if (combine_) {
      ListT out;
      for (const auto& r : ranges_) Append(items, r, &out);
      cc->Outputs().Get(0).AddPacket(MakePacket<ListT>(std::move(out)).At(ts));
      return absl::OkStatus();
    }
    for (size_t i = 0; i < ranges_.size(); ++i) {
      if (element_only_) {
        cc->Outputs().Get(i).AddPacket(
            MakePacket<Item>(items.Get(ranges_[i].first)).At(ts));
      } else {
        ListT out;
        Append(items, ranges_[i], &out);
        cc->Outputs().Get(i).AddPacket(
            MakePacket<ListT>(std::move(out)).At(ts));
      }
    }
    return absl::OkStatus();
  }

 private:
  template <typename Items>
  static void Append(const Items& items, const std::pair<int, int>& r,
                     ListT* out) {
    auto* dst = Traits::MutableItems(out);
    for (int j = r.first; j < r.second; ++j) *dst->Add() = items.Get(j);
  }

  std::vector<std::pair<int, int>> ranges_;
  int max_end_ = 0;
  bool element_only_ = false;
  bool combine_ = false;
};

using SplitNormalizedLandmarkListCalculator =
    SplitListCalculator<NormalizedLandmarkList>;
REGISTER_CALCULATOR(SplitNormalizedLandmarkListCalculator);

using SplitLandmarkListCalculator = SplitListCalculator<LandmarkList>;
REGISTER_CALCULATOR(SplitLandmarkListCalculator);

// std::vector instantiations (MediaPipe's names).
using SplitLandmarkVectorCalculator = SplitVectorCalculator<NormalizedLandmark>;
REGISTER_CALCULATOR(SplitLandmarkVectorCalculator);

using SplitNormalizedLandmarkListVectorCalculator =
    SplitVectorCalculator<NormalizedLandmarkList>;
REGISTER_CALCULATOR(SplitNormalizedLandmarkListVectorCalculator);

}  // namespace rill
