// Reference depthwise convolution: NHWC input, 1HW(C*M) filter; output
// channel c*M+m reads input channel c.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEPTHWISE_CONV2D_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEPTHWISE_CONV2D_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

void DepthwiseConv2DRef(const ConvParams& p, const float* input, const float* filter, const float* bias,
                        float* output);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEPTHWISE_CONV2D_H_
