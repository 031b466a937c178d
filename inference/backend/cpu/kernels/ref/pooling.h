// Reference 2-D pooling, NHWC. Average pooling divides by the number of
// window elements inside the input (padding is not counted), as TFLite does.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_POOLING_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_POOLING_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

void MaxPool2DRef(const PoolParams& p, const float* in, float* out);
void AveragePool2DRef(const PoolParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_POOLING_H_
