// PacketPresenceCalculator says, at every timestamp its PACKET input settles,
// whether a packet came: true for a packet, false where the stream's
// timestamp bound moved past the timestamp without one. Paired with a
// GateCalculator it turns "was there a result" into a gate signal.
//
//   node {
//     calculator: "PacketPresenceCalculator"
//     input_stream: "PACKET:prev_rects"
//     output_stream: "PRESENCE:have_prev_rects"   # bool
//   }
#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kPacketTag[] = "PACKET";
constexpr char kPresenceTag[] = "PRESENCE";

class PacketPresenceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kPacketTag) ||
        !cc->Outputs().HasTag(kPresenceTag)) {
      return absl::InvalidArgumentError(
          absl::StrCat("PacketPresenceCalculator node \"", cc->GetNodeName(),
                       "\" needs a PACKET input and a PRESENCE output stream"));
    }
    cc->Inputs().Tag(kPacketTag).SetAny();
    cc->Outputs().Tag(kPresenceTag).Set<bool>();
    // Called for bound changes alone, which answer "false".
    cc->SetProcessTimestampBounds(true);
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const bool present = !cc->Inputs().Tag(kPacketTag).IsEmpty();
    cc->Outputs()
        .Tag(kPresenceTag)
        .AddPacket(MakePacket<bool>(present).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_CALCULATOR(PacketPresenceCalculator);

}  // namespace rill
