#include "framework/calculator_registry.h"

namespace rill {

Registry<CalculatorEntry>& CalculatorRegistry() {
  static auto* registry = new Registry<CalculatorEntry>("calculator");
  return *registry;
}

}  // namespace rill
