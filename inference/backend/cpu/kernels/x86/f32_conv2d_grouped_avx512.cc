#include "inference/backend/cpu/kernels/x86/f32_conv2d_grouped_avx512.h"

#include <immintrin.h>

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/f32_simd.h"

// GCC 12's avx512fintrin.h masked loads and min/max trip -Wmaybe-uninitialized
// (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {
namespace {

constexpr int kLanes = 16;
constexpr int kPixels = 8;  // register tile: 8 pixels x 16 output channels

int Blocks(const ConvParams& p) { return (p.out_c + kLanes - 1) / kLanes; }

// The first input channel of output block b (its first group's).
int BlockInput(const ConvParams& p, int b) { return b * kLanes / (p.out_c / p.groups) * (p.in_c / p.groups); }

// R pixels [ox0, ox0 + R) of output row (n, oy), output block b.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void Tile(const ConvParams& p, const float* input,
                                                                   const float* packed, const __m512i* idx,
                                                                   __m512 bias, __mmask16 in_mask,
                                                                   __mmask16 out_mask, __m512 lo, __m512 hi,
                                                                   bool clamp, int n, int oy, int ox0, int b,
                                                                   float* output) {
  const int icg = p.in_c / p.groups;
  const int taps = p.kernel_h * p.kernel_w;
  const int cin0 = BlockInput(p, b);
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = bias;
  const float* w_block = packed + static_cast<size_t>(b) * taps * icg * kLanes;
  for (int ky = 0; ky < p.kernel_h; ++ky) {
    const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
    if (iy < 0 || iy >= p.in_h) continue;
    const float* row = input + ((static_cast<long long>(n) * p.in_h + iy) * p.in_w) * p.in_c + cin0;
    for (int kx = 0; kx < p.kernel_w; ++kx) {
      __m512 x[R];
      for (int r = 0; r < R; ++r) {
        const int ix = (ox0 + r) * p.stride_w - p.pad_left + kx * p.dilation_w;
        const bool inside = ix >= 0 && ix < p.in_w;
        x[r] = _mm512_maskz_loadu_ps(inside ? in_mask : 0, row + static_cast<long long>(inside ? ix : 0) * p.in_c);
      }
      const float* w = w_block + static_cast<size_t>(ky * p.kernel_w + kx) * icg * kLanes;
      for (int j = 0; j < icg; ++j) {
        const __m512 wv = _mm512_loadu_ps(w + j * kLanes);
        for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_ps(_mm512_permutexvar_ps(idx[j], x[r]), wv, acc[r]);
      }
    }
  }
  const int ldc = OutPixelStride(p);
  float* out = output + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox0) * ldc + b * kLanes;
  for (int r = 0; r < R; ++r) {
    __m512 v = acc[r];
    if (clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    _mm512_mask_storeu_ps(out + static_cast<long long>(r) * ldc, out_mask, v);
  }
}

}  // namespace

bool GroupedDirectApplies(const ConvParams& p) {
  if (p.groups <= 1 || p.in_c % p.groups != 0 || p.out_c % p.groups != 0) return false;
  const int icg = p.in_c / p.groups, ocg = p.out_c / p.groups;
  return ocg <= kLanes && kLanes % ocg == 0 && kLanes / ocg * icg <= kLanes;
}

size_t GroupedDirectPackedFloats(const ConvParams& p) {
  return static_cast<size_t>(Blocks(p)) * p.kernel_h * p.kernel_w * (p.in_c / p.groups) * kLanes;
}

void PackGroupedDirectWeights(const ConvParams& p, const float* filter_ohwi, float* packed) {
  const int icg = p.in_c / p.groups;
  const int taps = p.kernel_h * p.kernel_w;
  for (int b = 0; b < Blocks(p); ++b) {
    for (int t = 0; t < taps; ++t) {
      for (int j = 0; j < icg; ++j) {
        float* dst = packed + ((static_cast<size_t>(b) * taps + t) * icg + j) * kLanes;
        for (int l = 0; l < kLanes; ++l) {
          const int oc = b * kLanes + l;
          dst[l] = oc < p.out_c ? filter_ohwi[(static_cast<size_t>(oc) * taps + t) * icg + j] : 0.0f;
        }
      }
    }
  }
}

__attribute__((target("avx512f"))) void Conv2DGroupedDirectRows(const ConvParams& p, const float* input,
                                                                 const float* packed, const float* bias,
                                                                 float* output, int row_begin, int row_end) {
  const int icg = p.in_c / p.groups, ocg = p.out_c / p.groups;
  // idx[j]: lane l takes its group's j-th input channel.
  __m512i idx[kLanes];
  for (int j = 0; j < icg; ++j) {
    alignas(64) int lanes[kLanes];
    for (int l = 0; l < kLanes; ++l) lanes[l] = l / ocg * icg + j;
    idx[j] = _mm512_load_si512(lanes);
  }
  float lo_s, hi_s;
  const bool clamp = simd::ClampBounds(p.activation, &lo_s, &hi_s);
  const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
  for (int row = row_begin; row < row_end; ++row) {
    const int n = row / p.out_h, oy = row % p.out_h;
    for (int b = 0; b < Blocks(p); ++b) {
      const int valid_out = std::min(kLanes, p.out_c - b * kLanes);
      const __mmask16 out_mask = simd::LaneMask(valid_out);
      const __mmask16 in_mask = simd::LaneMask(valid_out / ocg * icg);
      const __m512 bv = bias ? _mm512_maskz_loadu_ps(out_mask, bias + b * kLanes) : _mm512_setzero_ps();
      int ox = 0;
      for (; ox + kPixels <= p.out_w; ox += kPixels) {
        Tile<kPixels>(p, input, packed, idx, bv, in_mask, out_mask, lo, hi, clamp, n, oy, ox, b, output);
      }
      for (; ox < p.out_w; ++ox) {
        Tile<1>(p, input, packed, idx, bv, in_mask, out_mask, lo, hi, clamp, n, oy, ox, b, output);
      }
    }
    if (p.activation == FusedActivation::kTanh) {
      const int ldc = OutPixelStride(p);
      float* y = output + static_cast<long long>(row) * p.out_w * ldc;
      for (int ox = 0; ox < p.out_w; ++ox) {
        for (int c = 0; c < p.out_c; ++c) y[ox * ldc + c] = ApplyActivation(y[ox * ldc + c], p.activation);
      }
    }
  }
}

}  // namespace rill::inference::cpu::x86
