// Calculators built into a plugin shared library (libtest_plugin.so) that
// the plugin test loads at run time. They register from static initialisers
// like any calculator; the library itself contains no framework code.
#include "framework/calculator_base.h"

namespace rill {
namespace plugin_test {

// Adds 1 to each int (untagged ports).
class PluginAddOneCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(
        MakePacket<int>(cc->Inputs().Index(0).Get<int>() + 1)
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(PluginAddOneCalculator);

// Multiplies each int by the FACTOR side packet (tagged ports, optional
// side packet).
class PluginScaleCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("IN").Set<int>();
    cc->Outputs().Tag("OUT").Set<int>();
    if (cc->InputSidePackets().HasTag("FACTOR")) {
      cc->InputSidePackets().Tag("FACTOR").Set<int>();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const int factor = cc->InputSidePackets().HasTag("FACTOR")
                           ? cc->InputSidePackets().Tag("FACTOR").Get<int>()
                           : 1;
    cc->Outputs().Tag("OUT").AddPacket(
        MakePacket<int>(cc->Inputs().Tag("IN").Get<int>() * factor)
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(PluginScaleCalculator);

// Emits COUNT ints 0, 1, ... at timestamps 0, 1, ..., then stops.
class PluginCountSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->InputSidePackets().Tag("COUNT").Set<int>();
    cc->Outputs().Tag("OUT").Set<int>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (next_ >= cc->InputSidePackets().Tag("COUNT").Get<int>()) {
      return StatusStop();
    }
    cc->Outputs().Tag("OUT").AddPacket(
        MakePacket<int>(next_).At(Timestamp(next_)));
    ++next_;
    return absl::OkStatus();
  }

 private:
  int next_ = 0;
};
REGISTER_CALCULATOR(PluginCountSourceCalculator);

}  // namespace plugin_test
}  // namespace rill
