#include "calculators/core/begin_loop_calculator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rill {

using BeginLoopIntCalculator = BeginLoopCalculator<std::vector<int>>;
REGISTER_CALCULATOR(BeginLoopIntCalculator);

using BeginLoopFloatCalculator = BeginLoopCalculator<std::vector<float>>;
REGISTER_CALCULATOR(BeginLoopFloatCalculator);

using BeginLoopUint64tCalculator = BeginLoopCalculator<std::vector<uint64_t>>;
REGISTER_CALCULATOR(BeginLoopUint64tCalculator);

using BeginLoopStringCalculator = BeginLoopCalculator<std::vector<std::string>>;
REGISTER_CALCULATOR(BeginLoopStringCalculator);

}  // namespace rill
