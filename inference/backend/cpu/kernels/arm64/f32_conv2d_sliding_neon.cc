#include "inference/backend/cpu/kernels/arm64/f32_conv2d_sliding_neon.h"

#include <arm_neon.h>

#include <algorithm>

namespace rill::inference::cpu::arm64 {
namespace {

int Blocks(const ConvParams& p) { return (p.out_c + 3) / 4; }
size_t BlockFloats(const ConvParams& p) { return static_cast<size_t>(p.kernel_h) * p.kernel_w * p.in_c * 4; }

float32x4_t Clamp(float32x4_t v, FusedActivation act) {
  switch (act) {
    case FusedActivation::kRelu: return vmaxq_f32(v, vdupq_n_f32(0.0f));
    case FusedActivation::kRelu6: return vminq_f32(vmaxq_f32(v, vdupq_n_f32(0.0f)), vdupq_n_f32(6.0f));
    case FusedActivation::kReluN1To1: return vminq_f32(vmaxq_f32(v, vdupq_n_f32(-1.0f)), vdupq_n_f32(1.0f));
    default: return v;
  }
}

void Store(float* out, int valid, float32x4_t v, FusedActivation act) {
  v = Clamp(v, act);
  float tmp[4];
  vst1q_f32(tmp, v);
  for (int i = 0; i < valid; ++i) out[i] = act == FusedActivation::kTanh ? ApplyActivation(tmp[i], act) : tmp[i];
}

}  // namespace

size_t SlidingPackedFloats(const ConvParams& p) { return static_cast<size_t>(Blocks(p)) * BlockFloats(p); }

void PackSlidingWeights(const ConvParams& p, const float* filter, float* packed) {
  const int taps = p.kernel_h * p.kernel_w;
  for (int b = 0; b < Blocks(p); ++b) {
    for (int t = 0; t < taps; ++t) {
      for (int ic = 0; ic < p.in_c; ++ic) {
        for (int l = 0; l < 4; ++l) {
          const int oc = b * 4 + l;
          packed[b * BlockFloats(p) + (static_cast<size_t>(t) * p.in_c + ic) * 4 + l] =
              oc < p.out_c ? filter[(static_cast<size_t>(oc) * taps + t) * p.in_c + ic] : 0.0f;
        }
      }
    }
  }
}

void Conv2DSlidingNeonRows(const ConvParams& p, const float* input, const float* packed, const float* bias,
                           float* output, int row_begin, int row_end) {
  const int in_px = InPixelStride(p), out_px = OutPixelStride(p);
  const int blocks = Blocks(p);
  for (int row = row_begin; row < row_end; ++row) {
    const int n = row / p.out_h, oy = row % p.out_h;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * in_px;
    for (int ox = 0; ox < p.out_w; ++ox) {
      float* out = output + (static_cast<long long>(row) * p.out_w + ox) * out_px;
      for (int b = 0; b < blocks; b += 2) {
        const bool two = b + 1 < blocks;
        const float* w0 = packed + b * BlockFloats(p);
        const float* w1 = two ? w0 + BlockFloats(p) : w0;
        float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);
        for (int ky = 0; ky < p.kernel_h; ++ky) {
          const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
          if (iy < 0 || iy >= p.in_h) continue;
          for (int kx = 0; kx < p.kernel_w; ++kx) {
            const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
            if (ix < 0 || ix >= p.in_w) continue;
            const float* x = in_n + (static_cast<long long>(iy) * p.in_w + ix) * in_px;
            const size_t t = (static_cast<size_t>(ky) * p.kernel_w + kx) * p.in_c * 4;
            for (int ic = 0; ic < p.in_c; ++ic) {
              acc0 = vfmaq_n_f32(acc0, vld1q_f32(w0 + t + ic * 4), x[ic]);
              acc1 = vfmaq_n_f32(acc1, vld1q_f32(w1 + t + ic * 4), x[ic]);
            }
          }
        }
        for (int h = 0; h < (two ? 2 : 1); ++h) {
          const int oc0 = (b + h) * 4;
          const int valid = std::min(4, p.out_c - oc0);
          float32x4_t v = h == 0 ? acc0 : acc1;
          if (bias != nullptr) {
            float bb[4] = {0, 0, 0, 0};
            for (int i = 0; i < valid; ++i) bb[i] = bias[oc0 + i];
            v = vaddq_f32(v, vld1q_f32(bb));
          }
          Store(out + oc0, valid, v, p.activation);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu::arm64
