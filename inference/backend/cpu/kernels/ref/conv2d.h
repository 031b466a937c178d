// Reference 2-D convolution, NHWC input, OHWI filter (the oracle).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONV2D_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONV2D_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

// `bias` may be null.
void Conv2DRef(const ConvParams& p, const float* input, const float* filter, const float* bias, float* output);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_CONV2D_H_
