// PacketClonerCalculator re-emits the latest packet of each input stream at
// the timestamp of every TICK packet: it turns slow or irregular streams
// (a detection, a setting) into streams aligned with a fast one.
//
//   node {
//     calculator: "PacketClonerCalculator"
//     input_stream: "detections"          # cloned
//     input_stream: "TICK:input_video"    # when to emit
//     output_stream: "cloned_detections"
//   }
//
// Output i carries the clones of untagged input i. Without a TICK tag the
// last untagged input is the tick (MediaPipe's older form). A stream with no
// packet yet gets no output at that tick, only a timestamp bound; with
// output_only_when_all_inputs_received the whole tick is skipped until every
// stream has had a packet. It runs under the ImmediateInputStreamHandler:
// packets are cloned as soon as they arrive, ticks are answered at once.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/core/packet_cloner_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kTickTag[] = "TICK";

// Number of cloned streams; the tick is either TICK or the last untagged
// input.
template <typename Set>
int NumCloned(const Set& inputs) {
  const int untagged = inputs.NumEntries("");
  return inputs.HasTag(kTickTag) ? untagged : untagged - 1;
}

class PacketClonerCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<PacketClonerCalculatorOptions>();
    const std::string& node = cc->GetNodeName();
    const int n = NumCloned(cc->Inputs());
    if (n < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "PacketClonerCalculator node \"", node,
          "\" needs a TICK input stream and at least one stream to clone"));
    }
    if (cc->Outputs().NumEntries("") != n || cc->Outputs().NumEntries() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "PacketClonerCalculator node \"", node, "\" clones ", n,
          " input streams but has ", cc->Outputs().NumEntries(),
          " output streams; give one untagged output per cloned input"));
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("", i).SetAny();
      cc->Outputs().Get("", i).SetSameAs(&cc->Inputs().Get("", i));
    }
    if (cc->Inputs().HasTag(kTickTag)) {
      cc->Inputs().Tag(kTickTag).SetAny();
    } else {
      cc->Inputs().Get("", n).SetAny();
    }
    // No timestamp offset: under the immediate handler a value may arrive
    // before an older tick, so only ticks may move the output bounds.
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<PacketClonerCalculatorOptions>();
    only_when_all_received_ =
        options.output_only_when_all_inputs_received() ||
        options.output_packets_only_when_all_inputs_received();
    bound_when_skipping_ =
        options.output_packets_only_when_all_inputs_received();
    num_cloned_ = NumCloned(cc->Inputs());
    latest_.assign(num_cloned_, Packet());
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    // Store first: a value and a tick at the same timestamp clone the value.
    for (int i = 0; i < num_cloned_; ++i) {
      const InputStreamShard& in = cc->Inputs().Get("", i);
      if (!in.IsEmpty()) latest_[i] = in.Value();
    }
    const InputStreamShard& tick = cc->Inputs().HasTag(kTickTag)
                                       ? cc->Inputs().Tag(kTickTag)
                                       : cc->Inputs().Get("", num_cloned_);
    if (tick.IsEmpty()) return absl::OkStatus();
    const Timestamp ts = tick.Value().Timestamp();

    bool all_received = true;
    for (const Packet& p : latest_) all_received &= !p.IsEmpty();
    if (only_when_all_received_ && !all_received) {
      if (bound_when_skipping_) {
        for (int i = 0; i < num_cloned_; ++i) {
          cc->Outputs().Get("", i).SetNextTimestampBound(
              ts.NextAllowedInStream());
        }
      }
      return absl::OkStatus();
    }
    for (int i = 0; i < num_cloned_; ++i) {
      OutputStreamShard& out = cc->Outputs().Get("", i);
      if (latest_[i].IsEmpty()) {
        out.SetNextTimestampBound(ts.NextAllowedInStream());
      } else {
        out.AddPacket(latest_[i].At(ts));
      }
    }
    return absl::OkStatus();
  }

 private:
  bool only_when_all_received_ = false;
  bool bound_when_skipping_ = false;
  int num_cloned_ = 0;
  std::vector<Packet> latest_;
};

}  // namespace

REGISTER_CALCULATOR(PacketClonerCalculator);

}  // namespace rill
