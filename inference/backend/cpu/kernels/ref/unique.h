// UNIQUE (ir/ops/unique_ops.h) on x viewed as [outer, n, inner]; writes the
// output `a.output` to y and returns the count of unique slices. `scratch`
// holds 6 * n values (the caller's, so that a run allocates nothing).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_UNIQUE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_UNIQUE_H_

#include "inference/ir/ops/unique_ops.h"

namespace rill::inference::cpu {

long long UniqueRef(const ir::UniqueAttrs& a, long long outer, long long n, long long inner, const float* x,
                    long long* scratch, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_UNIQUE_H_
