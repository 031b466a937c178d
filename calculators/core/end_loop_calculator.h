// EndLoopCalculator<IterableT> closes a loop opened by BeginLoopCalculator
// (see begin_loop_calculator.h): it collects ITEM packets until BATCH_END
// arrives, then emits them as one ITERABLE (IterableT) at the timestamp
// BATCH_END carries. An empty batch gives no packet, only a timestamp bound.
#ifndef RILL_CALCULATORS_CORE_END_LOOP_CALCULATOR_H_
#define RILL_CALCULATORS_CORE_END_LOOP_CALCULATOR_H_

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {

template <typename IterableT>
class EndLoopCalculator : public CalculatorBase {
  using ItemT = typename IterableT::value_type;

 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& calculator = cc->GetNodeConfig().calculator();
    if (!cc->Inputs().HasTag("ITEM") || !cc->Inputs().HasTag("BATCH_END") ||
        !cc->Outputs().HasTag("ITERABLE")) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", cc->GetNodeName(),
          "\" needs ITEM and BATCH_END input streams and an ITERABLE output "
          "stream"));
    }
    cc->Inputs().Tag("ITEM").Set<ItemT>();
    cc->Inputs().Tag("BATCH_END").Set<Timestamp>();
    cc->Outputs().Tag("ITERABLE").Set<IterableT>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& item = cc->Inputs().Tag("ITEM");
    if (!item.IsEmpty()) {
      batch_.push_back(item.Get<ItemT>());
      has_items_ = true;
    }
    const InputStreamShard& end = cc->Inputs().Tag("BATCH_END");
    if (end.IsEmpty()) return absl::OkStatus();
    const Timestamp outer = end.Get<Timestamp>();
    OutputStreamShard& out = cc->Outputs().Tag("ITERABLE");
    if (has_items_) {
      out.AddPacket(MakePacket<IterableT>(std::move(batch_)).At(outer));
    } else if (outer.IsAllowedInStream()) {
      out.SetNextTimestampBound(outer.NextAllowedInStream());
    }
    batch_ = IterableT();
    has_items_ = false;
    return absl::OkStatus();
  }

 private:
  IterableT batch_;
  bool has_items_ = false;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_CORE_END_LOOP_CALCULATOR_H_
