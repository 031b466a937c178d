// SplitVectorCalculator<T> cuts a std::vector<T> into pieces given by
// SplitVectorCalculatorOptions.ranges ([begin, end) each): one output stream
// per range, carrying a std::vector<T>, or T itself with element_only (every
// range then holds one element), or all pieces joined into one vector with
// combine_outputs. Instantiated and registered per element type in
// split_vector_calculator.cc (SplitFloatVectorCalculator, ...).
//
//   node {
//     calculator: "SplitFloatVectorCalculator"
//     input_stream: "scores"
//     output_stream: "head"  output_stream: "tail"
//     options { [rill.SplitVectorCalculatorOptions.ext] {
//       ranges { begin: 0 end: 2 }  ranges { begin: 2 end: 5 } } }
//   }
#ifndef RILL_CALCULATORS_CORE_SPLIT_VECTOR_CALCULATOR_H_
#define RILL_CALCULATORS_CORE_SPLIT_VECTOR_CALCULATOR_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/split_vector_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {

// Checks the options against the node's outputs; `node` names the node in
// errors.
absl::Status ValidateSplitVectorOptions(
    const SplitVectorCalculatorOptions& options, int num_outputs,
    const std::string& calculator, const std::string& node);

template <typename T>
class SplitVectorCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& node = cc->GetNodeName();
    const std::string& calculator = cc->GetNodeConfig().calculator();
    if (cc->Inputs().NumEntries() != 1 ||
        cc->Inputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", node,
          "\" needs exactly one untagged input stream, has ",
          cc->Inputs().NumEntries()));
    }
    const auto& options = cc->Options<SplitVectorCalculatorOptions>();
    RILL_RETURN_IF_ERROR(ValidateSplitVectorOptions(
        options, cc->Outputs().NumEntries(), calculator, node));
    cc->Inputs().Index(0).Set<std::vector<T>>();
    for (int i = 0; i < cc->Outputs().NumEntries(); ++i) {
      if (options.element_only()) {
        cc->Outputs().Get(i).Set<T>();
      } else {
        cc->Outputs().Get(i).Set<std::vector<T>>();
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
    const std::vector<T>& input = in.Get<std::vector<T>>();
    if (static_cast<int>(input.size()) < max_end_) {
      return absl::InvalidArgumentError(absl::StrCat(
          cc->CalculatorType(), " node \"", cc->NodeName(), "\": input at ",
          cc->InputTimestamp().DebugString(), " has ", input.size(),
          " elements but the ranges reach index ", max_end_ - 1));
    }
    const Timestamp ts = cc->InputTimestamp();
    if (combine_) {
      std::vector<T> out;
      for (const auto& r : ranges_) {
        out.insert(out.end(), input.begin() + r.first, input.begin() + r.second);
      }
      cc->Outputs().Get(0).AddPacket(
          MakePacket<std::vector<T>>(std::move(out)).At(ts));
      return absl::OkStatus();
    }
    for (size_t i = 0; i < ranges_.size(); ++i) {
      const auto& r = ranges_[i];
      if (element_only_) {
        cc->Outputs().Get(i).AddPacket(MakePacket<T>(input[r.first]).At(ts));
      } else {
        cc->Outputs().Get(i).AddPacket(
            MakePacket<std::vector<T>>(input.begin() + r.first,
                                       input.begin() + r.second)
                .At(ts));
      }
    }
    return absl::OkStatus();
  }

 private:
  std::vector<std::pair<int, int>> ranges_;
  int max_end_ = 0;
  bool element_only_ = false;
  bool combine_ = false;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_CORE_SPLIT_VECTOR_CALCULATOR_H_
