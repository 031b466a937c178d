// ConcatenateVectorCalculator<T> joins, at each timestamp, the packets of its
// input streams into one std::vector<T>, in stream order. Each input packet
// may hold a std::vector<T> or a single T. A stream without a packet at that
// timestamp is skipped, or, with only_emit_if_all_present, nothing is
// emitted. Instantiated and registered per element type in
// concatenate_vector_calculator.cc (ConcatenateFloatVectorCalculator, ...).
//
//   node {
//     calculator: "ConcatenateFloatVectorCalculator"
//     input_stream: "a"  input_stream: "b"
//     output_stream: "a_then_b"
//   }
#ifndef RILL_CALCULATORS_CORE_CONCATENATE_VECTOR_CALCULATOR_H_
#define RILL_CALCULATORS_CORE_CONCATENATE_VECTOR_CALCULATOR_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/concatenate_vector_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {

template <typename T>
class ConcatenateVectorCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<ConcatenateVectorCalculatorOptions>();
    const std::string& calculator = cc->GetNodeConfig().calculator();
    const int n = cc->Inputs().NumEntries("");
    if (n < 1 || cc->Inputs().NumEntries() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", cc->GetNodeName(),
          "\" needs one or more untagged input streams and no tagged ones"));
    }
    if (cc->Outputs().NumEntries() != 1 || cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(calculator, " node \"", cc->GetNodeName(),
                       "\" needs exactly one untagged output stream, has ",
                       cc->Outputs().NumEntries()));
    }
    // Either T or std::vector<T>: a port holds one declared type, so the
    // choice is checked on each packet instead.
    for (int i = 0; i < n; ++i) cc->Inputs().Get("", i).SetAny();
    cc->Outputs().Index(0).Set<std::vector<T>>();
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
    const int n = cc->Inputs().NumEntries("");
    if (only_if_all_) {
      for (int i = 0; i < n; ++i) {
        if (cc->Inputs().Get("", i).IsEmpty()) return absl::OkStatus();
      }
    }
    std::vector<T> out;
    for (int i = 0; i < n; ++i) {
      const Packet& p = cc->Inputs().Get("", i).Value();
      if (p.IsEmpty()) continue;
      if (p.Holds<std::vector<T>>()) {
        const auto& v = p.Get<std::vector<T>>();
        out.insert(out.end(), v.begin(), v.end());
      } else if (p.Holds<T>()) {
        out.push_back(p.Get<T>());
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(cc->CalculatorType(), " node \"", cc->NodeName(),
                         "\": input stream ", i, " carries ", p.DebugTypeName(),
                         " at ", p.Timestamp().DebugString(), "; expected ",
                         TypeName<T>(), " or ", TypeName<std::vector<T>>()));
      }
    }
    cc->Outputs().Index(0).AddPacket(
        MakePacket<std::vector<T>>(std::move(out)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  bool only_if_all_ = false;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_CORE_CONCATENATE_VECTOR_CALCULATOR_H_
