// CollectorCalculator is a sink for tests: it appends every packet of input
// stream i to the std::vector<Packet> that input side packet i points to
// (ports are paired in tag-then-index order, so "PACKETS:i:name" pairs with
// input i as well as untagged ports do).
//
//   node {
//     calculator: "CollectorCalculator"
//     input_stream: "out"
//     input_side_packet: "out_sink"     # std::vector<Packet>*
//   }
//
// The vectors are written from scheduler threads; read them once the run is
// over (after WaitUntilDone).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

class CollectorCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int n = cc->Inputs().NumEntries();
    if (n == 0 || cc->InputSidePackets().NumEntries() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CollectorCalculator node \"", cc->GetNodeName(), "\" has ", n,
          " input streams and ", cc->InputSidePackets().NumEntries(),
          " input side packets; give one std::vector<Packet>* side packet "
          "per input stream"));
    }
    for (CollectionItemId id = 0; id < n; ++id) {
      cc->Inputs().Get(id).SetAny();
      cc->InputSidePackets().Get(id).Set<std::vector<Packet>*>();
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    for (CollectionItemId id = 0; id < cc->InputSidePackets().NumEntries();
         ++id) {
      std::vector<Packet>* sink =
          cc->InputSidePackets().Get(id).Get<std::vector<Packet>*>();
      if (sink == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "CollectorCalculator node \"", cc->NodeName(), "\": side packet ",
            id, " is a null std::vector<Packet>*"));
      }
      sinks_.push_back(sink);
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    for (CollectionItemId id = 0; id < cc->Inputs().NumEntries(); ++id) {
      const InputStreamShard& in = cc->Inputs().Get(id);
      if (!in.IsEmpty()) sinks_[id]->push_back(in.Value());
    }
    return absl::OkStatus();
  }

 private:
  std::vector<std::vector<Packet>*> sinks_;
};

}  // namespace

REGISTER_CALCULATOR(CollectorCalculator);

}  // namespace rill
