// A plugin that registers a calculator under a name the host program already
// has (SwitchDemuxCalculator, built into //framework:graph). Loading it must
// be refused, naming both source files, instead of silently replacing the
// host's calculator (plugin_clash_test).
#include "framework/calculator_base.h"

namespace rill {
namespace clash_test {

class SwitchDemuxCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext*) override {
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(SwitchDemuxCalculator);

}  // namespace clash_test
}  // namespace rill
