// Reference transposed convolution (MediaPipe's Convolution2DTransposeBias):
// NHWC input, OHWI filter, bias added after the scatter.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TRANSPOSE_CONV2D_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TRANSPOSE_CONV2D_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

// pad_top/pad_left are the padding of the equivalent forward conv (output to
// input); input position (iy, ix) with tap (ky, kx) lands on output
// (iy*stride - pad_top + ky, ix*stride - pad_left + kx).
void TransposeConv2DRef(const ConvParams& p, const float* input, const float* filter, const float* bias,
                        float* output);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TRANSPOSE_CONV2D_H_
