// Reference fully-connected layer: out[b, o] = act(sum_i in[b, i] * w[o, i] + bias[o]).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_FULLY_CONNECTED_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_FULLY_CONNECTED_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

void FullyConnectedRef(int batch, int in_dim, int out_dim, FusedActivation activation, const float* input,
                       const float* weights, const float* bias, float* output);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_FULLY_CONNECTED_H_
