// Calculators built into a plugin shared library (libtest_plugin.so) that
// the plugin test loads at run time. They register from static initialisers
// like any calculator; the library itself contains no framework code.
#include "framework/api2.h"
#include "framework/calculator_base.h"

namespace rill {
namespace plugin_test {

// Adds 1 to each int (classic port API).
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

// Multiplies each int by the FACTOR side packet (typed port API).
class PluginScaleCalculator : public api2::Node {
 public:
  static constexpr api2::Input<int> kIn{"IN"};
  static constexpr api2::SideInput<int>::Optional kFactor{"FACTOR"};
  static constexpr api2::Output<int> kOut{"OUT"};
  RILL_NODE_CONTRACT(kIn, kFactor, kOut);

  absl::Status Process(CalculatorContext* cc) override {
    const int factor = kFactor(cc).IsEmpty() ? 1 : kFactor(cc).Get();
    kOut(cc).Send(kIn(cc).Get() * factor);
    return absl::OkStatus();
  }
};
RILL_REGISTER_NODE(PluginScaleCalculator);

// Emits COUNT ints 0, 1, ... at timestamps 0, 1, ..., then stops.
class PluginCountSourceCalculator : public api2::Node {
 public:
  static constexpr api2::SideInput<int> kCount{"COUNT"};
  static constexpr api2::Output<int> kOut{"OUT"};
  RILL_NODE_CONTRACT(kCount, kOut);

  absl::Status Process(CalculatorContext* cc) override {
    if (next_ >= *kCount(cc)) return StatusStop();
    kOut(cc).Send(next_, Timestamp(next_));
    ++next_;
    return absl::OkStatus();
  }

 private:
  int next_ = 0;
};
RILL_REGISTER_NODE(PluginCountSourceCalculator);

}  // namespace plugin_test
}  // namespace rill
