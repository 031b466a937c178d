// GateCalculator lets the packets of its data streams through, or holds them
// back, depending on a control signal:
//   - an ALLOW or DISALLOW input stream of bool, read at each timestamp (a
//     missing control packet counts as "closed" unless empty_packets_as_allow);
//   - or an ALLOW or DISALLOW input side packet of bool, fixed for the run;
//   - or, with neither, GateCalculatorOptions.allow.
//
//   node {
//     calculator: "GateCalculator"
//     input_stream: "input_video"
//     input_stream: "ALLOW:enabled"
//     output_stream: "gated_video"
//     output_stream: "STATE_CHANGE:gate_changed"   # optional, bool
//   }
//
// Output i carries untagged input i. STATE_CHANGE gets a packet (the new
// state) whenever the decision differs from the previous one; the state
// before the first decision is initial_gate_state.
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/core/gate_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kAllowTag[] = "ALLOW";
constexpr char kDisallowTag[] = "DISALLOW";
constexpr char kStateChangeTag[] = "STATE_CHANGE";

class GateCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<GateCalculatorOptions>();
    const std::string& node = cc->GetNodeName();
    const bool side_allow = cc->InputSidePackets().HasTag(kAllowTag);
    const bool side_disallow = cc->InputSidePackets().HasTag(kDisallowTag);
    const bool stream_allow = cc->Inputs().HasTag(kAllowTag);
    const bool stream_disallow = cc->Inputs().HasTag(kDisallowTag);
    const int controls =
        side_allow + side_disallow + stream_allow + stream_disallow;
    if (controls > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GateCalculator node \"", node,
          "\" may have only one of the ALLOW or DISALLOW input streams or "
          "side packets, but has ",
          controls));
    }
    if (side_allow) cc->InputSidePackets().Tag(kAllowTag).Set<bool>();
    if (side_disallow) cc->InputSidePackets().Tag(kDisallowTag).Set<bool>();
    if (stream_allow) cc->Inputs().Tag(kAllowTag).Set<bool>();
    if (stream_disallow) cc->Inputs().Tag(kDisallowTag).Set<bool>();

    const int n = cc->Inputs().NumEntries("");
    if (cc->Outputs().NumEntries("") != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GateCalculator node \"", node, "\" has ", n,
          " untagged input streams but ", cc->Outputs().NumEntries(""),
          " untagged output streams; they must match one to one"));
    }
    if (n == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GateCalculator node \"", node, "\" has no data stream to gate"));
    }
    for (int i = 0; i < n; ++i) {
      cc->Inputs().Get("", i).SetAny();
      cc->Outputs().Get("", i).SetSameAs(&cc->Inputs().Get("", i));
    }
    if (cc->Outputs().HasTag(kStateChangeTag)) {
      cc->Outputs().Tag(kStateChangeTag).Set<bool>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<GateCalculatorOptions>();
    empty_packets_as_allow_ = options.empty_packets_as_allow();
    fixed_ = true;
    const PacketSet& sides = cc->InputSidePackets();
    if (sides.HasTag(kAllowTag)) {
      allow_ = sides.Tag(kAllowTag).Get<bool>();
    } else if (sides.HasTag(kDisallowTag)) {
      allow_ = !sides.Tag(kDisallowTag).Get<bool>();
    } else if (cc->Inputs().HasTag(kAllowTag) ||
               cc->Inputs().HasTag(kDisallowTag)) {
      fixed_ = false;
    } else {
      allow_ = options.allow();
    }
    switch (options.initial_gate_state()) {
      case GateCalculatorOptions::GATE_ALLOW:
        state_ = State::kAllow;
        break;
      case GateCalculatorOptions::GATE_DISALLOW:
        state_ = State::kDisallow;
        break;
      default:
        state_ = State::kUnknown;
    }
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    bool allow = allow_;
    if (!fixed_) {
      const bool is_allow = cc->Inputs().HasTag(kAllowTag);
      const InputStreamShard& control =
          cc->Inputs().Tag(is_allow ? kAllowTag : kDisallowTag);
      if (control.IsEmpty()) {
        allow = empty_packets_as_allow_;
      } else {
        allow = control.Get<bool>() == is_allow;
      }
    }

    const State now = allow ? State::kAllow : State::kDisallow;
    if (state_ != State::kUnknown && state_ != now &&
        cc->Outputs().HasTag(kStateChangeTag)) {
      cc->Outputs()
          .Tag(kStateChangeTag)
          .AddPacket(MakePacket<bool>(allow).At(cc->InputTimestamp()));
    }
    state_ = now;

    const int n = cc->Inputs().NumEntries("");
    if (!allow) {
      // The offset already implies this; saying it keeps downstream nodes
      // from waiting on a closed gate whatever the runtime infers.
      for (int i = 0; i < n; ++i) {
        cc->Outputs().Get("", i).SetNextTimestampBound(
            cc->InputTimestamp().NextAllowedInStream());
      }
      return absl::OkStatus();
    }
    for (int i = 0; i < n; ++i) {
      const InputStreamShard& in = cc->Inputs().Get("", i);
      if (!in.IsEmpty()) cc->Outputs().Get("", i).AddPacket(in.Value());
    }
    return absl::OkStatus();
  }

 private:
  enum class State { kUnknown, kAllow, kDisallow };
  bool fixed_ = true;
  bool allow_ = false;
  bool empty_packets_as_allow_ = false;
  State state_ = State::kUnknown;
};

}  // namespace

REGISTER_CALCULATOR(GateCalculator);

}  // namespace rill
