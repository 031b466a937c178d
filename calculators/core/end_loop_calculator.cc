#include "calculators/core/end_loop_calculator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rill {

using EndLoopIntCalculator = EndLoopCalculator<std::vector<int>>;
REGISTER_CALCULATOR(EndLoopIntCalculator);

using EndLoopFloatCalculator = EndLoopCalculator<std::vector<float>>;
REGISTER_CALCULATOR(EndLoopFloatCalculator);

using EndLoopBooleanCalculator = EndLoopCalculator<std::vector<bool>>;
REGISTER_CALCULATOR(EndLoopBooleanCalculator);

using EndLoopUint64tCalculator = EndLoopCalculator<std::vector<uint64_t>>;
REGISTER_CALCULATOR(EndLoopUint64tCalculator);

using EndLoopStringCalculator = EndLoopCalculator<std::vector<std::string>>;
REGISTER_CALCULATOR(EndLoopStringCalculator);

}  // namespace rill
