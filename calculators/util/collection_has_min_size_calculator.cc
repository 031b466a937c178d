#include "calculators/util/collection_has_min_size_calculator.h"

#include <vector>

#include "framework/formats/classification.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {

using NormalizedRectVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<NormalizedRect>>;
REGISTER_CALCULATOR(NormalizedRectVectorHasMinSizeCalculator);

using NormalizedLandmarkListVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<NormalizedLandmarkList>>;
REGISTER_CALCULATOR(NormalizedLandmarkListVectorHasMinSizeCalculator);

using ClassificationListVectorHasMinSizeCalculator =
    CollectionHasMinSizeCalculator<std::vector<ClassificationList>>;
REGISTER_CALCULATOR(ClassificationListVectorHasMinSizeCalculator);

}  // namespace rill
