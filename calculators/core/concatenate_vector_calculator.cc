#include "calculators/core/concatenate_vector_calculator.h"

#include <cstdint>
#include <string>

namespace rill {

using ConcatenateFloatVectorCalculator = ConcatenateVectorCalculator<float>;
REGISTER_CALCULATOR(ConcatenateFloatVectorCalculator);

using ConcatenateInt32VectorCalculator = ConcatenateVectorCalculator<int32_t>;
REGISTER_CALCULATOR(ConcatenateInt32VectorCalculator);

using ConcatenateUInt64VectorCalculator = ConcatenateVectorCalculator<uint64_t>;
REGISTER_CALCULATOR(ConcatenateUInt64VectorCalculator);

using ConcatenateBoolVectorCalculator = ConcatenateVectorCalculator<bool>;
REGISTER_CALCULATOR(ConcatenateBoolVectorCalculator);

using ConcatenateStringVectorCalculator =
    ConcatenateVectorCalculator<std::string>;
REGISTER_CALCULATOR(ConcatenateStringVectorCalculator);

}  // namespace rill
