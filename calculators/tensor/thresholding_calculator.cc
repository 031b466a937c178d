// ThresholdingCalculator turns a score into a decision, as MediaPipe's
// calculator of the same name: FLOAT (float) above the threshold gives FLAG
// true (and a packet on ACCEPT), else false (and REJECT). The threshold is
// the option or a THRESHOLD input stream / side packet (double). Landmark
// graphs use it on the model's presence score to gate their outputs.
#include "calculators/tensor/thresholding_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {

class ThresholdingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("FLOAT").Set<float>();
    if (cc->Inputs().HasTag("THRESHOLD"))
      cc->Inputs().Tag("THRESHOLD").Set<double>();
    if (cc->InputSidePackets().HasTag("THRESHOLD")) {
      cc->InputSidePackets().Tag("THRESHOLD").Set<double>();
    }
    if (cc->Outputs().HasTag("FLAG")) cc->Outputs().Tag("FLAG").Set<bool>();
    if (cc->Outputs().HasTag("ACCEPT")) cc->Outputs().Tag("ACCEPT").Set<bool>();
    if (cc->Outputs().HasTag("REJECT")) cc->Outputs().Tag("REJECT").Set<bool>();
    const auto& o = cc->Options<ThresholdingCalculatorOptions>();
    if (!o.has_threshold() && !cc->Inputs().HasTag("THRESHOLD") &&
        !cc->InputSidePackets().HasTag("THRESHOLD")) {
      return absl::InvalidArgumentError(
          "ThresholdingCalculator needs a threshold: the option, a THRESHOLD "
          "input stream or a THRESHOLD side packet");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    threshold_ = cc->Options<ThresholdingCalculatorOptions>().threshold();
    if (cc->InputSidePackets().HasTag("THRESHOLD")) {
      threshold_ = cc->InputSidePackets().Tag("THRESHOLD").Get<double>();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag("THRESHOLD") &&
        !cc->Inputs().Tag("THRESHOLD").IsEmpty()) {
      threshold_ = cc->Inputs().Tag("THRESHOLD").Get<double>();
    }
    if (cc->Inputs().Tag("FLOAT").IsEmpty()) return absl::OkStatus();
    const bool accept = cc->Inputs().Tag("FLOAT").Get<float>() > threshold_;
    const Timestamp ts = cc->InputTimestamp();
    if (cc->Outputs().HasTag("FLAG")) {
      cc->Outputs().Tag("FLAG").AddPacket(MakePacket<bool>(accept).At(ts));
    }
    const char* tag = accept ? "ACCEPT" : "REJECT";
    if (cc->Outputs().HasTag(tag)) {
      cc->Outputs().Tag(tag).AddPacket(MakePacket<bool>(true).At(ts));
    }
    return absl::OkStatus();
  }

 private:
  double threshold_ = 0;
};
REGISTER_CALCULATOR(ThresholdingCalculator);

}  // namespace rill
