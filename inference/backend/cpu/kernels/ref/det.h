// DET (ir/ops/det_ops.h): matrices [begin, end) of x ([count, m, m]) into
// y; `scratch` holds m * m doubles per call.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DET_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DET_H_

namespace rill::inference::cpu {

void DetRef(long long m, const float* x, float* y, long long begin, long long end, double* scratch);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DET_H_
