// Output sizes and padding of windowed ops (conv, pool) under TFLite's SAME
// and VALID rules, shared by shape inference and the kernels' setup.
#ifndef RILL_INFERENCE_IR_CONV_GEOMETRY_H_
#define RILL_INFERENCE_IR_CONV_GEOMETRY_H_

#include <algorithm>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

// Returns <= 0 when the window does not fit (VALID on a too small input).
inline int WindowOutputSize(int in, int kernel, int stride, int dilation, Padding padding) {
  if (stride <= 0 || dilation <= 0 || kernel <= 0) return 0;
  const int effective = (kernel - 1) * dilation + 1;
  if (padding == Padding::kSame) return (in + stride - 1) / stride;
  if (in < effective) return 0;
  return (in - effective) / stride + 1;
}

// Padding before the first element (top or left); SAME puts the odd one after.
inline int WindowPadBefore(int in, int out, int kernel, int stride, int dilation, Padding padding) {
  if (padding == Padding::kValid) return 0;
  const int effective = (kernel - 1) * dilation + 1;
  const int total = std::max((out - 1) * stride + effective - in, 0);
  return total / 2;
}

// Transposed convolution: the forward conv maps `out` to `in`.
inline int TransposeConvOutputSize(int in, int kernel, int stride, Padding padding) {
  if (padding == Padding::kSame) return in * stride;
  return (in - 1) * stride + kernel;
}

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_CONV_GEOMETRY_H_
