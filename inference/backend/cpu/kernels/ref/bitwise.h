// Reference kernel of the bitwise ops (ir/ops/bitwise_ops.h): plain loops,
// the oracle of the CPU execution.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_BITWISE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_BITWISE_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/ir/ops/bitwise_ops.h"

namespace rill::inference::cpu {

// out = fn(a, b), a of shape `a_shape` and b of `b_shape` broadcast to
// `out_shape` (b and b_shape unread by BITWISE_NOT); false when they do not
// broadcast.
bool BitwiseRef(ir::BitwiseFn fn, const ir::BitwiseAttrs& attrs, const Shape& a_shape, const float* a,
                const Shape& b_shape, const float* b, const Shape& out_shape, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_BITWISE_H_
