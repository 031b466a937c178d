// Reference RESHAPE: the bytes do not change, only the shape; a copy when the
// planner did not alias input and output.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESHAPE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESHAPE_H_

#include <cstddef>

namespace rill::inference::cpu {

void ReshapeRef(size_t bytes, const void* in, void* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESHAPE_H_
