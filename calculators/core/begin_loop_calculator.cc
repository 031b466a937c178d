#include "calculators/core/begin_loop_calculator.h"

#include <cstdint>
#include <string>
#include <vector>

#include "framework/formats/detection.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

using BeginLoopIntCalculator = BeginLoopCalculator<std::vector<int>>;
REGISTER_CALCULATOR(BeginLoopIntCalculator);

using BeginLoopFloatCalculator = BeginLoopCalculator<std::vector<float>>;
REGISTER_CALCULATOR(BeginLoopFloatCalculator);

using BeginLoopUint64tCalculator = BeginLoopCalculator<std::vector<uint64_t>>;
REGISTER_CALCULATOR(BeginLoopUint64tCalculator);

using BeginLoopStringCalculator = BeginLoopCalculator<std::vector<std::string>>;
REGISTER_CALCULATOR(BeginLoopStringCalculator);

// The types MediaPipe's tracking graphs loop over (one hand, face or pose at
// a time).
using BeginLoopNormalizedRectCalculator =
    BeginLoopCalculator<std::vector<NormalizedRect>>;
REGISTER_CALCULATOR(BeginLoopNormalizedRectCalculator);

using BeginLoopDetectionCalculator =
    BeginLoopCalculator<std::vector<Detection>>;
REGISTER_CALCULATOR(BeginLoopDetectionCalculator);

using BeginLoopNormalizedLandmarkListVectorCalculator =
    BeginLoopCalculator<std::vector<NormalizedLandmarkList>>;
REGISTER_CALCULATOR(BeginLoopNormalizedLandmarkListVectorCalculator);

}  // namespace rill
