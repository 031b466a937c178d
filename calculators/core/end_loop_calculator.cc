#include "calculators/core/end_loop_calculator.h"

#include <cstdint>
#include <string>
#include <vector>

#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/render_data.pb.h"

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

// The types MediaPipe's tracking graphs collect per hand, face or pose.
using EndLoopNormalizedRectCalculator =
    EndLoopCalculator<std::vector<NormalizedRect>>;
REGISTER_CALCULATOR(EndLoopNormalizedRectCalculator);

using EndLoopNormalizedLandmarkListVectorCalculator =
    EndLoopCalculator<std::vector<NormalizedLandmarkList>>;
REGISTER_CALCULATOR(EndLoopNormalizedLandmarkListVectorCalculator);

using EndLoopLandmarkListVectorCalculator =
    EndLoopCalculator<std::vector<LandmarkList>>;
REGISTER_CALCULATOR(EndLoopLandmarkListVectorCalculator);

using EndLoopClassificationListCalculator =
    EndLoopCalculator<std::vector<ClassificationList>>;
REGISTER_CALCULATOR(EndLoopClassificationListCalculator);

using EndLoopDetectionCalculator = EndLoopCalculator<std::vector<Detection>>;
REGISTER_CALCULATOR(EndLoopDetectionCalculator);

using EndLoopRenderDataCalculator = EndLoopCalculator<std::vector<RenderData>>;
REGISTER_CALCULATOR(EndLoopRenderDataCalculator);

}  // namespace rill
