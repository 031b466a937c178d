// Reference GRID_SAMPLE (inference/ir/ops/grid_sample_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GRID_SAMPLE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GRID_SAMPLE_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/grid_sample_ops.h"

namespace rill::inference::cpu {

// Output rows [row_begin, row_end) of batch element n (every channel).
void GridSampleRef(const ir::GridSampleAttrs& a, const Shape& x_shape, const Shape& grid_shape, const float* x,
                   const float* grid, float* y, int n, int row_begin, int row_end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GRID_SAMPLE_H_
