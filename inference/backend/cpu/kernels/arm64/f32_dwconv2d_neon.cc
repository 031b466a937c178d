#include "inference/backend/cpu/kernels/arm64/f32_dwconv2d_neon.h"

#include <arm_neon.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace rill::inference::cpu::arm64 {

extern "C" {
// f32_dwconv3x3_rows_neon.S; the layout is the assembly's.
struct DwRowArgs {
  const float* in;
  float* out;
  const float* filter;
  const float* bias;
  int64_t row_bytes;
  int64_t tap_bytes;
  int64_t in_step_bytes;
  int64_t out_step_bytes;
  int64_t pixels;
  int64_t blocks;
  float lo, hi;
  int64_t filter_tap_bytes;
};
static_assert(sizeof(DwRowArgs) == 96, "the assembly reads DwRowArgs at fixed offsets");
void rill_f32_dwconv3x3_row_neon(const DwRowArgs* args);
}

namespace {

void ClampOf(FusedActivation act, float* lo, float* hi) {
  const float inf = std::numeric_limits<float>::infinity();
  *lo = -inf;
  *hi = inf;
  if (act == FusedActivation::kRelu) *lo = 0.0f;
  if (act == FusedActivation::kRelu6) *lo = 0.0f, *hi = 6.0f;
  if (act == FusedActivation::kReluN1To1) *lo = -1.0f, *hi = 1.0f;
}

// One output pixel, every channel, taps clipped to the input.
void Pixel(const ConvParams& p, const float* in_n, const float* filter, const float* bias, int oy, int ox, float lo,
           float hi, float* out) {
  const int c_all = p.in_c;
  const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
  int c = 0;
  for (; c + 4 <= c_all; c += 4) {
    float32x4_t acc = bias ? vld1q_f32(bias + c) : vdupq_n_f32(0.0f);
    for (int ky = 0; ky < p.kernel_h; ++ky) {
      const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= p.in_h) continue;
      for (int kx = 0; kx < p.kernel_w; ++kx) {
        const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        if (ix < 0 || ix >= p.in_w) continue;
        acc = vfmaq_f32(acc, vld1q_f32(in_n + (static_cast<long long>(iy) * p.in_w + ix) * c_all + c),
                        vld1q_f32(filter + (ky * p.kernel_w + kx) * c_all + c));
      }
    }
    if (p.activation != FusedActivation::kTanh) acc = vminq_f32(vmaxq_f32(acc, vlo), vhi);
    vst1q_f32(out + c, acc);
  }
  for (; c < c_all; ++c) {
    float acc = bias ? bias[c] : 0.0f;
    for (int ky = 0; ky < p.kernel_h; ++ky) {
      const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      if (iy < 0 || iy >= p.in_h) continue;
      for (int kx = 0; kx < p.kernel_w; ++kx) {
        const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        if (ix < 0 || ix >= p.in_w) continue;
        acc = std::fma(in_n[(static_cast<long long>(iy) * p.in_w + ix) * c_all + c],
                       filter[(ky * p.kernel_w + kx) * c_all + c], acc);
      }
    }
    out[c] = p.activation == FusedActivation::kTanh ? acc : std::min(std::max(acc, lo), hi);
  }
  if (p.activation == FusedActivation::kTanh) {
    for (int i = 0; i < c_all; ++i) out[i] = ApplyActivation(out[i], FusedActivation::kTanh);
  }
}

template <bool kAsm>
void Rows(const ConvParams& p, const float* input, const float* filter, const float* bias, float* output,
          int row_begin, int row_end) {
  float lo, hi;
  ClampOf(p.activation, &lo, &hi);
  const int C = p.in_c;
  // The assembly covers 3x3 windows, whole blocks of four channels, and
  // every activation but tanh.
  const bool asm_ok = kAsm && p.kernel_h == 3 && p.kernel_w == 3 && C >= 4 && p.activation != FusedActivation::kTanh;
  // Interior columns: every horizontal tap inside the input.
  int x_lo = 0, x_hi = 0;
  if (asm_ok) {
    x_lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
    const int last_tap = 2 * p.dilation_w;
    // ox * stride - pad + last_tap <= in_w - 1
    const int num = p.in_w - 1 - last_tap + p.pad_left;
    x_hi = num < 0 ? 0 : std::min(p.out_w, num / p.stride_w + 1);
    if (x_hi < x_lo) x_hi = x_lo;
  }
  for (int row = row_begin; row < row_end; ++row) {
    const int n = row / p.out_h, oy = row % p.out_h;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * C;
    float* out_row = output + static_cast<long long>(row) * p.out_w * C;
    const int iy0 = oy * p.stride_h - p.pad_top;
    const bool rows_inside = iy0 >= 0 && iy0 + 2 * p.dilation_h < p.in_h;
    int a_lo = 0, a_hi = 0;  // the columns the assembly computes
    if (asm_ok && rows_inside && x_hi > x_lo) {
      a_lo = x_lo;
      a_hi = x_hi;
      DwRowArgs args;
      const int ix0 = a_lo * p.stride_w - p.pad_left;
      args.in = in_n + (static_cast<long long>(iy0) * p.in_w + ix0) * C;
      args.out = out_row + static_cast<long long>(a_lo) * C;
      args.filter = filter;
      static const float kZeros[4] = {0, 0, 0, 0};
      args.bias = bias;
      args.row_bytes = static_cast<int64_t>(p.dilation_h) * p.in_w * C * 4;
      args.tap_bytes = static_cast<int64_t>(p.dilation_w) * C * 4;
      args.in_step_bytes = static_cast<int64_t>(p.stride_w) * C * 4;
      args.out_step_bytes = static_cast<int64_t>(C) * 4;
      args.pixels = a_hi - a_lo;
      args.blocks = C / 4;
      args.lo = lo;
      args.hi = hi;
      args.filter_tap_bytes = static_cast<int64_t>(C) * 4;
      if (bias != nullptr) {
        rill_f32_dwconv3x3_row_neon(&args);
      } else {
        // No bias: blocks one at a time over zeros.
        for (int b = 0; b < C / 4; ++b) {
          DwRowArgs one = args;
          one.in += 4 * b;
          one.out += 4 * b;
          one.filter += 4 * b;
          one.bias = kZeros;
          one.blocks = 1;
          rill_f32_dwconv3x3_row_neon(&one);
        }
      }
      // The channel tail of the interior pixels.
      if (C % 4 != 0) {
        for (int ox = a_lo; ox < a_hi; ++ox) {
          const int c0 = C / 4 * 4;
          for (int c = c0; c < C; ++c) {
            float acc = bias ? bias[c] : 0.0f;
            for (int ky = 0; ky < 3; ++ky) {
              const int iy = iy0 + ky * p.dilation_h;
              for (int kx = 0; kx < 3; ++kx) {
                const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
                acc = std::fma(in_n[(static_cast<long long>(iy) * p.in_w + ix) * C + c], filter[(ky * 3 + kx) * C + c],
                               acc);
              }
            }
            out_row[static_cast<long long>(ox) * C + c] = std::min(std::max(acc, lo), hi);
          }
        }
      }
    }
    for (int ox = 0; ox < p.out_w; ++ox) {
      if (ox >= a_lo && ox < a_hi) continue;
      Pixel(p, in_n, filter, bias, oy, ox, lo, hi, out_row + static_cast<long long>(ox) * C);
    }
  }
}

}  // namespace

void DepthwiseConv2DNeonRows(const ConvParams& p, const float* input, const float* filter, const float* bias,
                             float* output, int row_begin, int row_end) {
  Rows<true>(p, input, filter, bias, output, row_begin, row_end);
}

void DepthwiseConv2DNeonPixelRows(const ConvParams& p, const float* input, const float* filter, const float* bias,
                                  float* output, int row_begin, int row_end) {
  Rows<false>(p, input, filter, bias, output, row_begin, row_end);
}

}  // namespace rill::inference::cpu::arm64
