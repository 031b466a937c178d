// Reference softmax along one axis; the tensor is viewed as
// [outer, axis_size, inner]. Subtracts the maximum first for stability.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SOFTMAX_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SOFTMAX_H_

namespace rill::inference::cpu {

void SoftmaxRef(long long outer, int axis_size, long long inner, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SOFTMAX_H_
