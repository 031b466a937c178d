// Plain parameter structs shared by the reference kernels and their
// optimized twins. Kernels take raw pointers and these structs, never IR
// types, so any backend can call them and a test can drive them directly.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_KERNEL_PARAMS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_KERNEL_PARAMS_H_

#include <algorithm>
#include <cmath>
#include <vector>

namespace rill::inference::cpu {

enum class FusedActivation { kNone, kRelu, kReluN1To1, kRelu6, kTanh };

inline float ApplyActivation(float v, FusedActivation a) {
  switch (a) {
    case FusedActivation::kNone: return v;
    case FusedActivation::kRelu: return std::max(v, 0.0f);
    case FusedActivation::kReluN1To1: return std::min(std::max(v, -1.0f), 1.0f);
    case FusedActivation::kRelu6: return std::min(std::max(v, 0.0f), 6.0f);
    case FusedActivation::kTanh: return std::tanh(v);
  }
  return v;
}

// NHWC convolution geometry. Filters are OHWI for CONV_2D and transposed conv,
// 1HW(C*M) for depthwise.
struct ConvParams {
  int batch = 1;
  int in_h = 1, in_w = 1, in_c = 1;
  int out_h = 1, out_w = 1, out_c = 1;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
  int depth_multiplier = 1;  // depthwise only
  // CONV_2D and TRANSPOSE_CONV_2D: channel groups. Group g maps input
  // channels [g * in_c / groups, ...) to output channels [g * out_c / groups,
  // ...); the filter is [out_c][kernel_h][kernel_w][in_c / groups].
  int groups = 1;
  FusedActivation activation = FusedActivation::kNone;
  // Floats between consecutive output pixels; 0 means out_c (dense). A conv
  // writing one channel slice of a wider tensor (its part of a channel
  // CONCATENATION) sets the wider tensor's channel count. The x86 CONV_2D
  // kernels honour it; the reference and depthwise kernels do not.
  int out_stride = 0;
  // Floats between consecutive input pixels; 0 means in_c. The sliding-window
  // kernel reads one channel group of a wider tensor this way (grouped convs).
  int in_stride = 0;
};

inline int OutPixelStride(const ConvParams& p) { return p.out_stride > 0 ? p.out_stride : p.out_c; }
inline int InPixelStride(const ConvParams& p) { return p.in_stride > 0 ? p.in_stride : p.in_c; }

struct PoolParams {
  int batch = 1;
  int in_h = 1, in_w = 1, channels = 1;
  int out_h = 1, out_w = 1;
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0;
  FusedActivation activation = FusedActivation::kNone;
};

// Two operands broadcast to one output shape (numpy rules), rank <= 6. A
// stride of 0 repeats an operand along that dimension.
struct BroadcastParams {
  static constexpr int kMaxRank = 6;
  int rank = 0;
  int out_dims[kMaxRank] = {};
  int a_strides[kMaxRank] = {};
  int b_strides[kMaxRank] = {};
  long long out_size = 0;
  // True when both operands have the output's shape (the fast path).
  bool same_shape = false;
  FusedActivation activation = FusedActivation::kNone;
};

// Returns false if the shapes do not broadcast or the rank is too high.
bool MakeBroadcastParams(const std::vector<int>& a, const std::vector<int>& b, BroadcastParams* p);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_KERNEL_PARAMS_H_
