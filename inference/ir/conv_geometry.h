// Output sizes and padding of windowed ops (conv, pool) under TFLite's SAME
// and VALID rules, shared by shape inference and the kernels' setup.
#ifndef RILL_INFERENCE_IR_CONV_GEOMETRY_H_
#define RILL_INFERENCE_IR_CONV_GEOMETRY_H_

#include <algorithm>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

// Channel groups of a CONV_2D / TRANSPOSE_CONV_2D whose filter covers
// `filter_c` of the input's `in_c` channels (1: an ordinary conv). Valid
// when ConvGroupsFit.
inline int ConvGroups(int in_c, int filter_c) { return filter_c > 0 ? in_c / filter_c : 1; }
inline bool ConvGroupsFit(int in_c, int filter_c, int out_c) {
  if (in_c <= 0 || filter_c <= 0 || out_c <= 0 || in_c % filter_c != 0) return false;
  return out_c % (in_c / filter_c) == 0;
}

// Explicit padding (ONNX): floor, or ceil for pools in ceil mode, where a
// window must still start inside the input or its leading padding.
inline int ExplicitWindowOutputSize(int in, int kernel, int stride, int dilation, int pad_before, int pad_after,
                                    bool ceil_mode) {
  if (stride <= 0 || dilation <= 0 || kernel <= 0) return 0;
  const long long effective = static_cast<long long>(kernel - 1) * dilation + 1;
  const long long span = static_cast<long long>(in) + pad_before + pad_after - effective;
  if (span < 0) return 0;
  long long out = (ceil_mode ? span + stride - 1 : span) / stride + 1;
  if (ceil_mode && (out - 1) * stride >= static_cast<long long>(in) + pad_before) --out;
  return out > (1LL << 30) ? 0 : static_cast<int>(out);
}

// Returns <= 0 when the window does not fit (VALID on a too small input).
inline int WindowOutputSize(int in, int kernel, int stride, int dilation, Padding padding) {
  if (stride <= 0 || dilation <= 0 || kernel <= 0) return 0;
  const long long effective = static_cast<long long>(kernel - 1) * dilation + 1;
  if (padding == Padding::kSame) return static_cast<int>((static_cast<long long>(in) + stride - 1) / stride);
  if (in < effective) return 0;
  return static_cast<int>((in - effective) / stride + 1);
}

// Padding before and after together along one axis (0 for VALID).
inline int WindowPadTotal(int in, int out, int kernel, int stride, int dilation, Padding padding) {
  if (padding == Padding::kValid) return 0;
  const long long effective = static_cast<long long>(kernel - 1) * dilation + 1;
  return static_cast<int>(std::max(static_cast<long long>(out - 1) * stride + effective - in, 0LL));
}

// Padding before the first element (top or left); SAME puts the odd one after.
inline int WindowPadBefore(int in, int out, int kernel, int stride, int dilation, Padding padding) {
  return WindowPadTotal(in, out, kernel, stride, dilation, padding) / 2;
}

// Transposed convolution: the forward conv maps `out` to `in`.
// Returns -1 when the result would not fit an int.
inline int TransposeConvOutputSize(int in, int kernel, int stride, Padding padding) {
  const long long out = padding == Padding::kSame ? static_cast<long long>(in) * stride
                                                  : static_cast<long long>(in - 1) * stride + kernel;
  return out > (1LL << 30) ? -1 : static_cast<int>(out);
}

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_CONV_GEOMETRY_H_
