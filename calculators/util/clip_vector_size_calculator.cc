#include "calculators/util/clip_vector_size_calculator.h"

#include "framework/formats/detection.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

using ClipNormalizedRectVectorSizeCalculator =
    ClipVectorSizeCalculator<NormalizedRect>;
REGISTER_CALCULATOR(ClipNormalizedRectVectorSizeCalculator);

using ClipDetectionVectorSizeCalculator = ClipVectorSizeCalculator<Detection>;
REGISTER_CALCULATOR(ClipDetectionVectorSizeCalculator);

}  // namespace rill
