// The core SplitVectorCalculator (calculators/core/split_vector_calculator.h:
// ranges, element_only, combine_outputs) for the vectors MediaPipe's
// tracking graphs pick apart: SplitDetectionVectorCalculator (the first pose
// detection), SplitNormalizedRectVectorCalculator (one ROI of several) and
// SplitClassificationListVectorCalculator (the first hand's handedness).
#include "calculators/core/split_vector_calculator.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

using SplitDetectionVectorCalculator = SplitVectorCalculator<Detection>;
REGISTER_CALCULATOR(SplitDetectionVectorCalculator);

using SplitNormalizedRectVectorCalculator =
    SplitVectorCalculator<NormalizedRect>;
REGISTER_CALCULATOR(SplitNormalizedRectVectorCalculator);

using SplitClassificationListVectorCalculator =
    SplitVectorCalculator<ClassificationList>;
REGISTER_CALCULATOR(SplitClassificationListVectorCalculator);

}  // namespace rill
