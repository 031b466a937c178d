// Reference kernels of the math and normalization ops (ir/ops/math_ops.h):
// plain loops, the oracle of the CPU executions.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MATH_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MATH_H_

#include <vector>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/ir/ops/math_ops.h"

namespace rill::inference::cpu {

// out[i] = fn(in[i]) for n elements.
void UnaryMathRef(ir::UnaryFn fn, const ir::UnaryMathAttrs& a, long long n, const float* in, float* out);

// POW, MINIMUM, MAXIMUM, ADD_N, MEAN_N: `inputs` (with their shapes)
// broadcast to `out_shape`; out is folded left to right over the inputs
// (MEAN_N divides the sum by the input count).
void NaryMathRef(ir::NaryFn fn, const std::vector<Shape>& shapes, const std::vector<const float*>& inputs,
                 const Shape& out_shape, float* out);

// LAYER_NORM over `rows` rows of `inner` contiguous elements; bias may be
// null. Mean and variance accumulate in double.
void LayerNormRef(long long rows, long long inner, float epsilon, const float* x, const float* scale,
                  const float* bias, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MATH_H_
