// Reference concatenation along one axis. The tensor is viewed as
// [outer, axis * inner]; input i contributes `chunk[i]` contiguous floats per
// outer step.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONCATENATION_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONCATENATION_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

void ConcatenationRef(int num_inputs, const float* const* inputs, const long long* chunk, long long outer,
                      FusedActivation activation, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONCATENATION_H_
