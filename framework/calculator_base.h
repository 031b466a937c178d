// The base class of every calculator. A calculator declares its ports in a
// static GetContract(CalculatorContract*), then the framework calls Open()
// once, Process() for each input timestamp (or repeatedly for a source with
// no inputs, until it returns StatusStop()), and Close() once.
//
//   class AddOneCalculator : public CalculatorBase {
//    public:
//     static absl::Status GetContract(CalculatorContract* cc) {
//       cc->Inputs().Index(0).Set<int>();
//       cc->Outputs().Index(0).Set<int>();
//       return absl::OkStatus();
//     }
//     absl::Status Process(CalculatorContext* cc) override {
//       cc->Outputs().Index(0).AddPacket(
//           MakePacket<int>(cc->Inputs().Index(0).Get<int>() + 1)
//               .At(cc->InputTimestamp()));
//       return absl::OkStatus();
//     }
//   };
//   REGISTER_CALCULATOR(AddOneCalculator);
#ifndef RILL_FRAMEWORK_CALCULATOR_BASE_H_
#define RILL_FRAMEWORK_CALCULATOR_BASE_H_

#include "absl/status/status.h"
#include "framework/calculator_context.h"
#include "framework/calculator_contract.h"
#include "framework/calculator_registry.h"
#include "framework/status_util.h"

namespace rill {

class CalculatorBase {
 public:
  virtual ~CalculatorBase() = default;
  virtual absl::Status Open(CalculatorContext* cc) { return absl::OkStatus(); }
  virtual absl::Status Process(CalculatorContext* cc) = 0;
  virtual absl::Status Close(CalculatorContext* cc) { return absl::OkStatus(); }
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_CALCULATOR_BASE_H_
