#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#include "inference/backend/cpu/kernels/x86/f32_simd.h"

// GCC 12's avx512fintrin.h min/max trip -Wmaybe-uninitialized (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {
namespace {

// P output pixels of one output row, one 16-channel block. `in` points at
// the input pixel (iy0, ix0) of the first pixel's window, channel c (it may
// lie outside the image: nothing outside is read). Filter rows
// [ky_begin, ky_end) are the ones inside the image vertically; kCheck:
// columns outside [0, in_w) (ix0 counts from the window's first column) are
// skipped, else all are inside. kFull: all 16 lanes are channels.
template <int K, int S, int P, bool kFull, bool kCheck>
__attribute__((target("avx512f"), always_inline)) inline void RowTapsBlock(
    const float* in, long long row_stride, long long cs, const float* filter, int ky_begin, int ky_end, int ix0,
    int in_w, __m512 b, __mmask16 m, bool clamp, __m512 lo, __m512 hi, float* out) {
  constexpr int kCols = (P - 1) * S + K;
  __m512 acc[P];
#pragma GCC unroll 16
  for (int i = 0; i < P; ++i) acc[i] = b;
  for (int ky = ky_begin; ky < ky_end; ++ky) {
    __m512 f[K];
    const float* fr = filter + static_cast<long long>(ky) * K * cs;
#pragma GCC unroll 7
    for (int kx = 0; kx < K; ++kx) {
      f[kx] = kFull ? _mm512_loadu_ps(fr + kx * cs) : _mm512_maskz_loadu_ps(m, fr + kx * cs);
    }
    // One pointer stepped by the channel stride; the empty asm keeps it in a
    // register and the step an add (see f32_dwconv2d_avx2.cc's DwBlock512).
    const float* col = in + ky * row_stride;
#pragma GCC unroll 37
    for (int j = 0; j < kCols; ++j) {
      if (!kCheck || (ix0 + j >= 0 && ix0 + j < in_w)) {
        const __m512 v = kFull ? _mm512_loadu_ps(col) : _mm512_maskz_loadu_ps(m, col);
#pragma GCC unroll 7
        for (int kx = 0; kx < K; ++kx) {
          const int d = j - kx;
          if (d >= 0 && d % S == 0 && d / S < P) acc[d / S] = _mm512_fmadd_ps(v, f[kx], acc[d / S]);
        }
      }
      col += cs;
      asm("" : "+r"(col));
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < P; ++i) {
    __m512 y = acc[i];
    if (clamp) y = _mm512_min_ps(_mm512_max_ps(y, lo), hi);
    if (kFull) _mm512_storeu_ps(out + i * cs, y);
    else _mm512_mask_storeu_ps(out + i * cs, m, y);
  }
}

// P pixels from output column ox of one row, every channel block.
template <int K, int S, int P, bool kCheck>
__attribute__((target("avx512f"))) void RowTapsSpan(const ConvParams& p, const float* in_row0, const float* filter,
                                                   const float* bias, int ky_begin, int ky_end, bool clamp, float lo_s,
                                                   float hi_s, float* out_row, int ox) {
  // Scalars, not vectors, cross this call: a caller compiled without
  // AVX-512 would pass __m512 arguments by another ABI.
  const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
  const int channels = p.out_c;
  const long long cs = channels;
  const long long row_stride = static_cast<long long>(p.in_w) * cs;
  const int ix0 = ox * S - p.pad_left;
  const float* in = in_row0 + static_cast<long long>(ix0) * cs;
  float* out = out_row + static_cast<long long>(ox) * cs;
  int c = 0;
  for (; c + 16 <= channels; c += 16) {
    const __m512 b = bias ? _mm512_loadu_ps(bias + c) : _mm512_setzero_ps();
    RowTapsBlock<K, S, P, true, kCheck>(in + c, row_stride, cs, filter + c, ky_begin, ky_end, ix0, p.in_w, b,
                                        static_cast<__mmask16>(0xFFFF), clamp, lo, hi, out + c);
  }
  if (c < channels) {
    const __mmask16 m = simd::LaneMask(channels - c);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
    RowTapsBlock<K, S, P, false, kCheck>(in + c, row_stride, cs, filter + c, ky_begin, ky_end, ix0, p.in_w, b, m,
                                         clamp, lo, hi, out + c);
  }
}

template <int K, int S>
__attribute__((target("avx512f"))) void RowTapsRows(const ConvParams& p, const float* in_n, const float* filter,
                                                    const float* bias, float* out_n, int oy_begin, int oy_end) {
  // Stride 1: 16 accumulators + K taps + 1 input column of 32 registers;
  // stride 2 reads two columns per pixel, so half the pixels.
  constexpr int P = S == 1 ? 16 : 8;
  const long long cs = p.out_c;
  const long long out_stride = static_cast<long long>(p.out_w) * cs;
  // Output columns whose window lies inside the input horizontally.
  int ox_lo = (p.pad_left + S - 1) / S;
  int ox_hi = p.in_w - K + p.pad_left >= 0 ? (p.in_w - K + p.pad_left) / S + 1 : 0;
  ox_lo = std::min(ox_lo, p.out_w);
  ox_hi = std::max(ox_lo, std::min(ox_hi, p.out_w));
  float lo_s, hi_s;
  const bool clamp = simd::ClampBounds(p.activation, &lo_s, &hi_s);
  for (int oy = oy_begin; oy < oy_end; ++oy) {
    const int iy0 = oy * S - p.pad_top;
    int ky_begin = 0, ky_end = K;
    while (ky_begin < ky_end && iy0 + ky_begin < 0) ++ky_begin;
    while (ky_end > ky_begin && iy0 + ky_end - 1 >= p.in_h) --ky_end;
    // The input row of filter row 0 (it may be outside the image: only rows
    // [ky_begin, ky_end) are read).
    const float* in_row0 = in_n + static_cast<long long>(iy0) * p.in_w * cs;
    float* out_row = out_n + static_cast<long long>(oy) * out_stride;
    // N pixels from column ox; a block whose windows all lie inside the
    // input horizontally skips the column checks. (Only scalars cross these
    // calls: see RowTapsSpan.)
    auto span = [&](auto n, int ox) {
      constexpr int N = decltype(n)::value;
      if (ox >= ox_lo && ox + N <= ox_hi) {
        RowTapsSpan<K, S, N, false>(p, in_row0, filter, bias, ky_begin, ky_end, clamp, lo_s, hi_s, out_row, ox);
      } else {
        RowTapsSpan<K, S, N, true>(p, in_row0, filter, bias, ky_begin, ky_end, clamp, lo_s, hi_s, out_row, ox);
      }
    };
    // The whole row in blocks of P, then 8, 4, 2, 1 pixels: few, wide blocks
    // (the taps are loaded once per block and filter row), borders included.
    int ox = 0;
    for (; ox + P <= p.out_w; ox += P) span(std::integral_constant<int, P>{}, ox);
    if constexpr (P > 8) {
      if (ox + 8 <= p.out_w) {
        span(std::integral_constant<int, 8>{}, ox);
        ox += 8;
      }
    }
    if (ox + 4 <= p.out_w) {
      span(std::integral_constant<int, 4>{}, ox);
      ox += 4;
    }
    if (ox + 2 <= p.out_w) {
      span(std::integral_constant<int, 2>{}, ox);
      ox += 2;
    }
    if (ox < p.out_w) span(std::integral_constant<int, 1>{}, ox);
  }
}

}  // namespace

bool DepthwiseConv2DRowTapsTakes(const ConvParams& p) {
  return (p.kernel_h == 5 || p.kernel_h == 7) && p.kernel_w == p.kernel_h && p.dilation_h == 1 && p.dilation_w == 1 &&
         p.stride_h == p.stride_w && (p.stride_h == 1 || p.stride_h == 2) && p.depth_multiplier == 1;
}

void DepthwiseConv2DRowTapsAvx512(const ConvParams& p, const float* in_n, const float* filter, const float* bias,
                                  float* out_n, int oy_begin, int oy_end) {
  if (p.kernel_h == 5) {
    if (p.stride_h == 1) RowTapsRows<5, 1>(p, in_n, filter, bias, out_n, oy_begin, oy_end);
    else RowTapsRows<5, 2>(p, in_n, filter, bias, out_n, oy_begin, oy_end);
    return;
  }
  if (p.stride_h == 1) RowTapsRows<7, 1>(p, in_n, filter, bias, out_n, oy_begin, oy_end);
  else RowTapsRows<7, 2>(p, in_n, filter, bias, out_n, oy_begin, oy_end);
}

}  // namespace rill::inference::cpu::x86
