// Reference elementwise SUB with numpy broadcasting and a fused activation.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SUB_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SUB_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

void SubRef(const BroadcastParams& p, const float* a, const float* b, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SUB_H_
