// LOCAL_RESPONSE_NORM (ir/ops/lrn_ops.h): x viewed as [outer, C, inner]
// (inner 1 for channels_last), rows [outer_begin, outer_end).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_LRN_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_LRN_H_

#include "inference/ir/ops/lrn_ops.h"

namespace rill::inference::cpu {

void LrnRef(const ir::LrnAttrs& a, long long outer, int channels, long long inner, const float* x, float* y,
            long long outer_begin, long long outer_end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_LRN_H_
