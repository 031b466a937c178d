// SplitTensorVectorCalculator: the core SplitVectorCalculator (ranges of a
// vector to separate streams) for std::vector<Tensor>, the name MediaPipe's
// landmark graphs use to pick a multi-output model's tensors apart.
#include "calculators/core/split_vector_calculator.h"
#include "framework/formats/tensor.h"

namespace rill {

using SplitTensorVectorCalculator = SplitVectorCalculator<Tensor>;
REGISTER_CALCULATOR(SplitTensorVectorCalculator);

}  // namespace rill
