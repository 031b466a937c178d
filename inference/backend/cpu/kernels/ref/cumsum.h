// CUMSUM (ir/ops/cumsum_ops.h) on x viewed as [outer, n, inner] (n the
// axis), rows [outer_begin, outer_end).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CUMSUM_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CUMSUM_H_

#include "inference/ir/ops/cumsum_ops.h"

namespace rill::inference::cpu {

void CumSumRef(const ir::CumSumAttrs& a, long long n, long long inner, const float* x, float* y,
               long long outer_begin, long long outer_end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CUMSUM_H_
