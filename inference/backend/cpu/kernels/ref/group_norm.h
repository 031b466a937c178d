// Reference GROUP_NORM (inference/ir/ops/group_norm_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GROUP_NORM_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GROUP_NORM_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/group_norm_ops.h"

namespace rill::inference::cpu {

// Batch element n, group g of x (shape `x_shape`) into y.
void GroupNormRef(const ir::GroupNormAttrs& a, const Shape& x_shape, const float* x, const float* scale,
                  const float* bias, float* y, int n, int g);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GROUP_NORM_H_
