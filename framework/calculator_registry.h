// The registry of calculator types. REGISTER_CALCULATOR(Class) makes Class
// available to graph configs under its own name; plugins loaded at run time
// register the same way from their static initialisers.
#ifndef RILL_FRAMEWORK_CALCULATOR_REGISTRY_H_
#define RILL_FRAMEWORK_CALCULATOR_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "framework/registry.h"

namespace rill {

class CalculatorBase;
class CalculatorContract;

struct CalculatorEntry {
  std::function<absl::Status(CalculatorContract*)> get_contract;
  std::function<std::unique_ptr<CalculatorBase>()> create;
  std::string source_file;
};

Registry<CalculatorEntry>& CalculatorRegistry();

template <typename T>
bool RegisterCalculator(const std::string& name, const char* file) {
  return CalculatorRegistry().Register(
      name, CalculatorEntry{[](CalculatorContract* cc) {
                              return T::GetContract(cc);
                            },
                            [] { return std::unique_ptr<CalculatorBase>(new T()); },
                            file},
      file);
}

}  // namespace rill

#define REGISTER_CALCULATOR(Class)                                       \
  static const bool RILL_REGISTER_CALC_##Class [[maybe_unused]] =        \
      ::rill::RegisterCalculator<Class>(#Class, __FILE__)

#endif  // RILL_FRAMEWORK_CALCULATOR_REGISTRY_H_
