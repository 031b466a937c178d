// MergeCalculator forwards, at each timestamp, the packet of the first of its
// untagged input streams (in index order) that has one. Streams that carry
// packets at disjoint timestamps (two branches behind complementary gates, say)
// merge into one.
//
//   node {
//     calculator: "MergeCalculator"
//     input_stream: "rects_from_tracking"
//     input_stream: "rects_from_detection"
//     output_stream: "rects"
//   }
#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "glog/logging.h"

namespace rill {
namespace {

class MergeCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const int n = cc->Inputs().NumEntries("");
    if (n < 1 || cc->Inputs().NumEntries() != n ||
        cc->Outputs().NumEntries() != 1 || cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MergeCalculator node \"", cc->GetNodeName(),
          "\" needs one or more untagged input streams and exactly one "
          "untagged output stream"));
    }
    if (n == 1) {
      LOG(WARNING) << "MergeCalculator node \"" << cc->GetNodeName()
                   << "\" has a single input stream: it only copies it";
    }
    for (int i = 0; i < n; ++i) cc->Inputs().Index(i).SetAny();
    cc->Outputs().Index(0).SetAny();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      const InputStreamShard& in = cc->Inputs().Index(i);
      if (!in.IsEmpty()) {
        cc->Outputs().Index(0).AddPacket(in.Value());
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_CALCULATOR(MergeCalculator);

}  // namespace rill
