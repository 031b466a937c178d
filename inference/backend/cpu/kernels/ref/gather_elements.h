// GATHER_ELEMENTS (ir/ops/gather_elements_ops.h): output elements [begin,
// end) of indices' shape; indices hold whole numbers as float.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GATHER_ELEMENTS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GATHER_ELEMENTS_H_

#include "inference/ir/graph.h"

namespace rill::inference::cpu {

void GatherElementsRef(const Shape& data_shape, const float* data, const Shape& idx_shape, const float* idx,
                       int axis, float* out, long long begin, long long end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_GATHER_ELEMENTS_H_
