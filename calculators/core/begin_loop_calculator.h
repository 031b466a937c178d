// BeginLoopCalculator<IterableT> and EndLoopCalculator<IterableT> run part of
// a graph once per element of a vector, MediaPipe-style:
//
//   BeginLoop*: ITERABLE (IterableT) in; ITEM (element) out, one packet per
//     element at consecutive loop timestamps 0, 1, 2, ... (counted across
//     the whole run); CLONE:i inputs are re-emitted on CLONE:i outputs at
//     every item's timestamp; BATCH_END (Timestamp) carries the ITERABLE's
//     own timestamp, at the last item's loop timestamp (or at a loop
//     timestamp of its own for an empty vector).
//   EndLoop*: ITEM in, collected until BATCH_END arrives; then ITERABLE
//     (IterableT) out at the timestamp BATCH_END carries. An empty batch
//     gives no packet, only a timestamp bound past it.
//
//   node { calculator: "BeginLoopIntCalculator"
//          input_stream: "ITERABLE:ints" output_stream: "ITEM:int"
//          output_stream: "BATCH_END:end" }
//   node { calculator: "AddOneCalculator" input_stream: "int"
//          output_stream: "int_plus_one" }
//   node { calculator: "EndLoopIntCalculator"
//          input_stream: "ITEM:int_plus_one" input_stream: "BATCH_END:end"
//          output_stream: "ITERABLE:ints_plus_one" }
#ifndef RILL_CALCULATORS_CORE_BEGIN_LOOP_CALCULATOR_H_
#define RILL_CALCULATORS_CORE_BEGIN_LOOP_CALCULATOR_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {

template <typename IterableT>
class BeginLoopCalculator : public CalculatorBase {
  using ItemT = typename IterableT::value_type;

 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& calculator = cc->GetNodeConfig().calculator();
    const std::string& node = cc->GetNodeName();
    if (!cc->Inputs().HasTag("ITERABLE")) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", node, "\" needs an ITERABLE input stream"));
    }
    if (!cc->Outputs().HasTag("ITEM") || !cc->Outputs().HasTag("BATCH_END")) {
      return absl::InvalidArgumentError(
          absl::StrCat(calculator, " node \"", node,
                       "\" needs ITEM and BATCH_END output streams"));
    }
    const int clones = cc->Inputs().NumEntries("CLONE");
    if (cc->Outputs().NumEntries("CLONE") != clones) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", node, "\" has ", clones,
          " CLONE input streams but ", cc->Outputs().NumEntries("CLONE"),
          " CLONE output streams; they must match one to one"));
    }
    if (cc->Inputs().NumEntries() != clones + 1 ||
        cc->Outputs().NumEntries() != clones + 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          calculator, " node \"", node,
          "\" takes only ITERABLE and CLONE inputs and ITEM, BATCH_END and "
          "CLONE outputs"));
    }
    // Called on settled timestamps without an ITERABLE packet too, as in
    // MediaPipe: every input timestamp gets its BATCH_END, so the EndLoop
    // nodes after the loop move their bounds and a frame without items
    // (no face found) does not hold up the next one.
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("ITERABLE").Set<IterableT>();
    cc->Outputs().Tag("ITEM").Set<ItemT>();
    cc->Outputs().Tag("BATCH_END").Set<Timestamp>();
    for (int i = 0; i < clones; ++i) {
      cc->Inputs().Get("CLONE", i).SetAny();
      cc->Outputs().Get("CLONE", i).SetSameAs(&cc->Inputs().Get("CLONE", i));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag("ITERABLE");
    static const IterableT kNone{};
    const IterableT& items = in.IsEmpty() ? kNone : in.Get<IterableT>();
    const int clones = cc->Inputs().NumEntries("CLONE");
    for (const auto& item : items) {
      const Timestamp ts(next_);
      cc->Outputs().Tag("ITEM").AddPacket(MakePacket<ItemT>(item).At(ts));
      for (int i = 0; i < clones; ++i) {
        const InputStreamShard& clone = cc->Inputs().Get("CLONE", i);
        if (!clone.IsEmpty()) {
          cc->Outputs().Get("CLONE", i).AddPacket(clone.Value().At(ts));
        }
      }
      ++next_;
    }
    // An empty batch still needs a loop timestamp for its BATCH_END.
    if (items.begin() == items.end()) ++next_;
    const Timestamp last(next_ - 1);
    cc->Outputs()
        .Tag("BATCH_END")
        .AddPacket(MakePacket<Timestamp>(cc->InputTimestamp()).At(last));
    for (auto& out : cc->Outputs()) out.SetNextTimestampBound(Timestamp(next_));
    return absl::OkStatus();
  }

 private:
  int64_t next_ = 0;  // the next loop timestamp
};

}  // namespace rill

#endif  // RILL_CALCULATORS_CORE_BEGIN_LOOP_CALCULATOR_H_
