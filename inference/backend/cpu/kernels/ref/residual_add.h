// The epilogue of a convolution with a fused residual: the optimizer turns
// conv -> ADD(skip) [-> activation] into one CONV_2D whose fourth input is the
// skip tensor, and a skip of fewer channels stands for one zero-padded in its
// channels (BlazeFace's PAD -> ADD).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIDUAL_ADD_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIDUAL_ADD_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

// For every row r < rows (a pixel) and channel c < out_c:
//   y[r, c] = act(y[r, c] + (c < res_c ? residual[r, c] : 0)),
// rows of y out_c floats apart, rows of `residual` res_c (<= out_c).
void ResidualAddRef(long long rows, int out_c, const float* residual, int res_c, FusedActivation act, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RESIDUAL_ADD_H_
