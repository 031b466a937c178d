// ConcatenateRenderDataVectorCalculator: the core ConcatenateVectorCalculator
// (calculators/core/concatenate_vector_calculator.h) for RenderData, joining
// per-object render data (or vectors of it) into one std::vector<RenderData>
// for AnnotationOverlayCalculator's VECTOR: input.
#include "calculators/core/concatenate_vector_calculator.h"
#include "framework/formats/render_data.pb.h"

namespace rill {

using ConcatenateRenderDataVectorCalculator =
    ConcatenateVectorCalculator<RenderData>;
REGISTER_CALCULATOR(ConcatenateRenderDataVectorCalculator);

}  // namespace rill
