// Reference PRELU: x where x >= 0, else x * slope (slope broadcast to x).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_PRELU_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_PRELU_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

void PReluRef(const BroadcastParams& p, const float* a, const float* b, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_PRELU_H_
