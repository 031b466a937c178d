// Reference 3-D convolution and pooling over NCDHW tensors (CONV_3D and
// POOL_3D, inference/ir/ops/volume_ops.h): plain loops, the oracle of the
// CPU's GEMM execution.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_VOLUME_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_VOLUME_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/volume_ops.h"

namespace rill::inference::cpu {

// y [N, O, D', H', W'] = conv(x [N, C, D, H, W], w [O, C/g, kd, kh, kw]) + bias.
void Conv3dRef(const ir::Conv3dAttrs& a, const Shape& x_shape, const Shape& w_shape, const Shape& y_shape,
               const float* x, const float* w, const float* bias, float* y);
// One batch and channel group of it: rows [o_begin, o_end) of the output.
void Conv3dRefChannels(const ir::Conv3dAttrs& a, const Shape& x_shape, const Shape& w_shape, const Shape& y_shape,
                       const float* x, const float* w, const float* bias, float* y, int n, int o_begin, int o_end);
// Output channel o of batch n of CONV_TRANSPOSE_3D: y[n, o] = bias[o] + the
// sum over input channels of the group and filter taps that land on it.
void ConvTranspose3dRefChannel(const ir::ConvTranspose3dAttrs& a, const Shape& x_shape, const Shape& w_shape,
                               const Shape& y_shape, const float* x, const float* w, const float* bias, float* y,
                               int n, int o);
// Channels [nc_begin, nc_end) of the batch-times-channels planes.
void Pool3dRef(const ir::Pool3dAttrs& a, const Shape& x_shape, const Shape& y_shape, const float* x, float* y,
               long long nc_begin, long long nc_end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_VOLUME_H_
