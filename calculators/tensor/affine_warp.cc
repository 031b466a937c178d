#include "calculators/tensor/affine_warp.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core/hal/intrin.hpp>
#include <type_traits>

namespace rill {
namespace {

// warpAffine's fixed point: coordinates in 1/1024 pixel (AB_BITS), the
// bilinear fractions in 1/32 (INTER_BITS), rounded to the nearest 1/32.
constexpr int kCoordBits = 10;
constexpr int kFracBits = 5;
constexpr int kFracMask = (1 << kFracBits) - 1;
constexpr int kRoundDelta = (1 << (kCoordBits - kFracBits)) / 2;
// The four weights are products of 1/32 fractions: they sum to 1024.
constexpr int kWeightBits = 2 * kFracBits;
constexpr int kWeightHalf = 1 << (kWeightBits - 1);
// Fixed-point coordinates are kept within +-2^29 so that a row's start plus
// a column's step cannot overflow an int (see the header).
constexpr double kFixedLimit = 536870912.0;

// cv::saturate_cast<int>(v * 1024): round to nearest, ties to even.
inline int Fixed(double v) {
  v *= 1 << kCoordBits;
  v = std::min(kFixedLimit, std::max(-kFixedLimit, v));
  return static_cast<int>(std::lrint(v));
}

// Source coordinates, clamped tap offsets and weights of up to kChunk
// output pixels of one row, computed four at a time.
constexpr int kChunk = 64;
struct Taps {
  alignas(16) int off00[kChunk], off01[kChunk], off10[kChunk], off11[kChunk];
  // The weights of (p00, p10) and of (p01, p11) as 16-bit pairs.
  alignas(16) int w_left[kChunk], w_right[kChunk];
};

template <int kIn>
void ComputeTaps(const WarpSource& src, bool zero_border, int x_row, int y_row,
                 const int* dx, const int* dy, int n, Taps* t) {
  using cv::v_int32x4;
  const v_int32x4 zero = cv::v_setzero_s32(), one = cv::v_setall_s32(1);
  const v_int32x4 short_min = cv::v_setall_s32(-32768),
                  short_max = cv::v_setall_s32(32767);
  const v_int32x4 w_last = cv::v_setall_s32(src.width - 1),
                  h_last = cv::v_setall_s32(src.height - 1);
  const v_int32x4 frac_mask = cv::v_setall_s32(kFracMask),
                  full = cv::v_setall_s32(1 << kWeightBits);
  const v_int32x4 step = cv::v_setall_s32(static_cast<int>(src.step));
  const v_int32x4 xr = cv::v_setall_s32(x_row), yr = cv::v_setall_s32(y_row);
  for (int i = 0; i < n; i += 4) {
    const v_int32x4 fx_all =
        (xr + cv::v_load(dx + i)) >> (kCoordBits - kFracBits);
    const v_int32x4 fy_all =
        (yr + cv::v_load(dy + i)) >> (kCoordBits - kFracBits);
    const v_int32x4 sx =
        cv::v_min(cv::v_max(fx_all >> kFracBits, short_min), short_max);
    const v_int32x4 sy =
        cv::v_min(cv::v_max(fy_all >> kFracBits, short_min), short_max);
    const v_int32x4 fx = fx_all & frac_mask, fy = fy_all & frac_mask;
    const v_int32x4 a11 = fx * fy;
    const v_int32x4 a10 = (fy << kFracBits) - a11;
    const v_int32x4 a01 = (fx << kFracBits) - a11;
    v_int32x4 a00 = full - (fx << kFracBits) - a10;
    v_int32x4 b01 = a01, b10 = a10, b11 = a11;
    const v_int32x4 sx1 = sx + one, sy1 = sy + one;
    if (zero_border) {
      // A tap outside the image reads 0: drop its weight.
      const v_int32x4 in_x0 = (sx >= zero) & (sx <= w_last);
      const v_int32x4 in_x1 = (sx1 >= zero) & (sx1 <= w_last);
      const v_int32x4 in_y0 = (sy >= zero) & (sy <= h_last);
      const v_int32x4 in_y1 = (sy1 >= zero) & (sy1 <= h_last);
      a00 = a00 & in_x0 & in_y0;
      b01 = b01 & in_x1 & in_y0;
      b10 = b10 & in_x0 & in_y1;
      b11 = b11 & in_x1 & in_y1;
    }
    v_int32x4 x0 = cv::v_min(cv::v_max(sx, zero), w_last);
    v_int32x4 x1 = cv::v_min(cv::v_max(sx1, zero), w_last);
    const v_int32x4 r0 = cv::v_min(cv::v_max(sy, zero), h_last) * step;
    const v_int32x4 r1 = cv::v_min(cv::v_max(sy1, zero), h_last) * step;
    if (kIn == 3) {
      x0 = x0 + x0 + x0;
      x1 = x1 + x1 + x1;
    } else if (kIn == 4) {
      x0 = x0 << 2;
      x1 = x1 << 2;
    }
    cv::v_store_aligned(t->off00 + i, r0 + x0);
    cv::v_store_aligned(t->off01 + i, r0 + x1);
    cv::v_store_aligned(t->off10 + i, r1 + x0);
    cv::v_store_aligned(t->off11 + i, r1 + x1);
    cv::v_store_aligned(t->w_left + i, a00 | (b10 << 16));
    cv::v_store_aligned(t->w_right + i, b01 | (b11 << 16));
  }
}

template <int kIn, int kOut, typename T>
void WarpRows(const WarpSource& src, const WarpParams& p, const T* lut, T* dst,
              int row_begin, int row_end) {
  const int out_w = p.out_width;
  const bool zero_border = p.zero_border;
  // A tap at a byte offset below this may be read 8 bytes wide.
  const size_t image_bytes = static_cast<size_t>(src.height - 1) * src.step +
                             static_cast<size_t>(src.width) * kIn;
  const int padded = (out_w + 3) & ~3;
  std::vector<int> dx(padded), dy(padded);
  for (int x = 0; x < padded; ++x) {
    dx[x] = Fixed(p.m[0] * x);
    dy[x] = Fixed(p.m[3] * x);
  }
  const cv::v_int32x4 half = cv::v_setall_s32(kWeightHalf);
  const bool linear = p.linear;
  const cv::v_float64x2 scale = cv::v_setall_f64(p.scale),
                        shift = cv::v_setall_f64(p.shift);
  const uint8_t* const base = src.data;
  Taps t;
  for (int y = row_begin; y < row_end; ++y) {
    const int x_row = Fixed(p.m[1] * y + p.m[2]) + kRoundDelta;
    const int y_row = Fixed(p.m[4] * y + p.m[5]) + kRoundDelta;
    T* d = dst + static_cast<size_t>(y) * out_w * kOut;
    for (int x_begin = 0; x_begin < out_w; x_begin += kChunk) {
      const int n = std::min(kChunk, out_w - x_begin);
      ComputeTaps<kIn>(src, zero_border, x_row, y_row, dx.data() + x_begin,
                       dy.data() + x_begin, n, &t);
      for (int i = 0; i < n; ++i, d += kOut) {
        const uint8_t* p00 = base + t.off00[i];
        const uint8_t* p01 = base + t.off01[i];
        const uint8_t* p10 = base + t.off10[i];
        const uint8_t* p11 = base + t.off11[i];
        if (static_cast<size_t>(t.off11[i]) + 8 <= image_bytes) {
          // Channel c of (p00, p10) and of (p01, p11) side by side as
          // 16-bit pairs, each pair dotted with its two weights.
          cv::v_uint16x8 left, right, unused;
          cv::v_zip(cv::v_load_expand(p00), cv::v_load_expand(p10), left,
                    unused);
          cv::v_zip(cv::v_load_expand(p01), cv::v_load_expand(p11), right,
                    unused);
          const cv::v_int32x4 sum =
              (cv::v_dotprod(
                   cv::v_reinterpret_as_s16(left),
                   cv::v_reinterpret_as_s16(cv::v_setall_s32(t.w_left[i]))) +
               cv::v_dotprod(
                   cv::v_reinterpret_as_s16(right),
                   cv::v_reinterpret_as_s16(cv::v_setall_s32(t.w_right[i]))) +
               half) >>
              kWeightBits;
          if constexpr (std::is_same<T, float>::value) {
            if (linear) {
              const cv::v_float32x4 f =
                  cv::v_cvt_f32(cv::v_cvt_f64(sum) * scale + shift,
                                cv::v_cvt_f64_high(sum) * scale + shift);
              // Four lanes: the extra ones land on the next pixels, written
              // after this one, while they are in the chunk.
              if ((i + 1) * kOut + 4 - kOut <= n * kOut) {
                cv::v_store(d, f);
              } else {
                float v[4];
                cv::v_store(v, f);
                for (int c = 0; c < kOut; ++c) d[c] = v[c];
              }
              continue;
            }
          }
          int v[4];
          cv::v_store(v, sum);
          for (int c = 0; c < kOut; ++c) d[c] = lut[v[c]];
        } else {
          const int a00 = t.w_left[i] & 0xffff, a10 = t.w_left[i] >> 16;
          const int a01 = t.w_right[i] & 0xffff, a11 = t.w_right[i] >> 16;
          for (int c = 0; c < kOut; ++c) {
            d[c] = lut[(p00[c] * a00 + p01[c] * a01 + p10[c] * a10 +
                        p11[c] * a11 + kWeightHalf) >>
                       kWeightBits];
          }
        }
      }
    }
  }
}

}  // namespace

void FindLinearLut(const float* lut, double scale, double shift,
                   WarpParams* p) {
  p->linear = false;
  // convertTo may have rounded its scale and shift to float first.
  const double candidates[2][2] = {
      {static_cast<float>(scale), static_cast<float>(shift)}, {scale, shift}};
  for (const auto& c : candidates) {
    bool all = true;
    for (int v = 0; v < 256 && all; ++v) {
      all = static_cast<float>(v * c[0] + c[1]) == lut[v];
    }
    if (all) {
      p->linear = true;
      p->scale = c[0];
      p->shift = c[1];
      return;
    }
  }
}

template <typename T>
void AffineWarpRows(const WarpSource& src, const WarpParams& p, const T* lut,
                    T* dst, int row_begin, int row_end) {
  if (src.channels == 1 && p.out_channels == 1) {
    WarpRows<1, 1>(src, p, lut, dst, row_begin, row_end);
  } else if (src.channels == 3 && p.out_channels == 3) {
    WarpRows<3, 3>(src, p, lut, dst, row_begin, row_end);
  } else if (src.channels == 4 && p.out_channels == 3) {
    WarpRows<4, 3>(src, p, lut, dst, row_begin, row_end);
  }
}

template void AffineWarpRows<float>(const WarpSource&, const WarpParams&,
                                    const float*, float*, int, int);
template void AffineWarpRows<uint8_t>(const WarpSource&, const WarpParams&,
                                      const uint8_t*, uint8_t*, int, int);
template void AffineWarpRows<int8_t>(const WarpSource&, const WarpParams&,
                                     const int8_t*, int8_t*, int, int);

}  // namespace rill
