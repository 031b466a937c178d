// SplitDetectionVectorCalculator: the core SplitVectorCalculator
// (calculators/core/split_vector_calculator.h: ranges, element_only,
// combine_outputs) for std::vector<Detection>, e.g. MediaPipe's holistic
// graph taking the first pose detection out of a vector.
#include "calculators/core/split_vector_calculator.h"
#include "framework/formats/detection.pb.h"

namespace rill {

using SplitDetectionVectorCalculator = SplitVectorCalculator<Detection>;
REGISTER_CALCULATOR(SplitDetectionVectorCalculator);

}  // namespace rill
