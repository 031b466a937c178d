// Reference MIRROR_PAD (inference/ir/ops/mirror_pad_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MIRROR_PAD_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MIRROR_PAD_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/mirror_pad_ops.h"

namespace rill::inference::cpu {

// Output rows [row_begin, row_end), a row being the last axis.
void MirrorPadRef(const ir::MirrorPadAttrs& a, const Shape& x_shape, const float* x, float* y, long long row_begin,
                  long long row_end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MIRROR_PAD_H_
