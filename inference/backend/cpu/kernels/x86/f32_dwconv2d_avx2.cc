#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx2.h"

#include <immintrin.h>

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

// GCC 12's avx512fintrin.h min/max trip -Wmaybe-uninitialized (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {
namespace {

__attribute__((target("avx2,fma"))) inline __m256 Activate(__m256 v, FusedActivation act) {
  switch (act) {
    case FusedActivation::kRelu: return _mm256_max_ps(v, _mm256_setzero_ps());
    case FusedActivation::kRelu6: return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(6.0f));
    case FusedActivation::kReluN1To1:
      return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-1.0f)), _mm256_set1_ps(1.0f));
    default: return v;
  }
}

// An output pixel whose KxK window lies inside the input (stride any,
// dilation 1): no bounds checks, taps unrolled.
template <int K>
__attribute__((target("avx2,fma"))) inline void InteriorPixel(const float* in, int in_w, int channels,
                                                                 const float* filter, const float* bias,
                                                                 FusedActivation act, float* out) {
  const int vec_end = channels / 8 * 8;
  int c = 0;
  for (; c < vec_end; c += 8) {
    __m256 acc = bias ? _mm256_loadu_ps(bias + c) : _mm256_setzero_ps();
#pragma GCC unroll 5
    for (int ky = 0; ky < K; ++ky) {
      const float* row = in + static_cast<long long>(ky) * in_w * channels + c;
      const float* f = filter + ky * K * channels + c;
#pragma GCC unroll 5
      for (int kx = 0; kx < K; ++kx) {
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(row + kx * channels), _mm256_loadu_ps(f + kx * channels), acc);
      }
    }
    _mm256_storeu_ps(out + c, Activate(acc, act));
  }
  for (; c < channels; ++c) {
    float acc = bias ? bias[c] : 0.0f;
    for (int ky = 0; ky < K; ++ky) {
      for (int kx = 0; kx < K; ++kx) {
        acc += in[(static_cast<long long>(ky) * in_w + kx) * channels + c] * filter[(ky * K + kx) * channels + c];
      }
    }
    out[c] = ApplyActivation(acc, act);
  }
}

// One output pixel with bounds checks (borders and a segment's remainder).
// Taps of different rows go to different accumulators so the FMAs do not
// wait on each other's latency.
template <int K, int S>
__attribute__((target("avx512f"), always_inline)) inline void DwPixel512(
    const ConvParams& p, const float* in_n, const __m512* f, __m512 b, __mmask16 m, bool clamp, __m512 lo, __m512 hi,
    int iy0, int ky_begin, int ky_end, int c, int ox, float* out_row) {
  const long long cs = p.out_c;
  const int ix0 = ox * S - p.pad_left;
  int kx_begin = 0, kx_end = K;
  while (kx_begin < kx_end && ix0 + kx_begin < 0) ++kx_begin;
  while (kx_end > kx_begin && ix0 + kx_end - 1 >= p.in_w) --kx_end;
  __m512 acc[K];
  acc[0] = b;
#pragma GCC unroll 5
  for (int ky = 1; ky < K; ++ky) acc[ky] = _mm512_setzero_ps();
#pragma GCC unroll 5
  for (int ky = 0; ky < K; ++ky) {
    if (ky < ky_begin || ky >= ky_end) continue;
    const float* row = in_n + (static_cast<long long>(iy0 + ky) * p.in_w + ix0) * cs + c;
#pragma GCC unroll 5
    for (int kx = 0; kx < K; ++kx) {
      if (kx < kx_begin || kx >= kx_end) continue;
      acc[ky] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, row + kx * cs), f[ky * K + kx], acc[ky]);
    }
  }
#pragma GCC unroll 5
  for (int ky = 1; ky < K; ++ky) acc[0] = _mm512_add_ps(acc[0], acc[ky]);
  if (clamp) acc[0] = _mm512_min_ps(_mm512_max_ps(acc[0], lo), hi);
  _mm512_mask_storeu_ps(out_row + ox * cs + c, m, acc[0]);
}

template <int K>
__attribute__((target("avx512f"), always_inline)) inline void LoadTaps512(const float* filter, long long cs, int c,
                                                                         __mmask16 m, __m512* f) {
#pragma GCC unroll 25
  for (int t = 0; t < K * K; ++t) f[t] = _mm512_maskz_loadu_ps(m, filter + t * cs + c);
}

// R output rows x P output pixels of one 16-channel block, the window inside
// the input: each input column is loaded once and feeds every tap (of every
// output row) that reads it; R*P independent accumulators. kFull: all 16
// lanes are channels, plain loads and stores (masked ones cost more, on AMD
// Zen 4 much more).
template <int K, int S, int P, int R, bool kFull>
__attribute__((target("avx512f"), always_inline)) inline void DwBlock512(const float* base, long long row_stride,
                                                                        long long cs, const __m512* f, __m512 b,
                                                                        __mmask16 m, bool clamp, __m512 lo,
                                                                        __m512 hi, float* out, long long out_stride) {
  constexpr int kCols = (P - 1) * S + K;
  constexpr int kRows = (R - 1) * S + K;
  __m512 acc[R][P];
#pragma GCC unroll 2
  for (int o = 0; o < R; ++o) {
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i) acc[o][i] = b;
  }
#pragma GCC unroll 7
  for (int r = 0; r < kRows; ++r) {
    // One pointer stepped by the channel stride. Left to itself GCC
    // precomputes every column's address once for all channel blocks, keeps
    // them in vector registers (no GPRs left) and moves each to a GPR before
    // its load: a port-0 uop per load that the FMAs need. The empty asm keeps
    // the pointer in a register and the step an add.
    const float* col = base + r * row_stride;
#pragma GCC unroll 19
    for (int j = 0; j < kCols; ++j) {
      const __m512 v = kFull ? _mm512_loadu_ps(col) : _mm512_maskz_loadu_ps(m, col);
      col += cs;
      asm("" : "+r"(col));
#pragma GCC unroll 2
      for (int o = 0; o < R; ++o) {
        const int ky = r - o * S;
        if (ky < 0 || ky >= K) continue;
#pragma GCC unroll 5
        for (int kx = 0; kx < K; ++kx) {
          const int d = j - kx;
          if (d >= 0 && d % S == 0 && d / S < P) acc[o][d / S] = _mm512_fmadd_ps(v, f[ky * K + kx], acc[o][d / S]);
        }
      }
    }
  }
#pragma GCC unroll 2
  for (int o = 0; o < R; ++o) {
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i) {
      __m512 y = acc[o][i];
      if (clamp) y = _mm512_min_ps(_mm512_max_ps(y, lo), hi);
      if (kFull) _mm512_storeu_ps(out + o * out_stride + i * cs, y);
      else _mm512_mask_storeu_ps(out + o * out_stride + i * cs, m, y);
    }
  }
}

// Output pixels [ox_from, ox_to) of `rows` rows with bounds checks, all
// channel blocks.
template <int K, int S>
__attribute__((target("avx512f"))) void DwBorder512(const ConvParams& p, const float* in_n, const float* filter,
                                                    const float* bias, bool clamp, __m512 lo, __m512 hi, int iy0,
                                                    int rows, float* out_row, int ox_from, int ox_to) {
  if (ox_from >= ox_to) return;
  const int channels = p.out_c;
  const long long cs = channels;
  const long long out_stride = static_cast<long long>(p.out_w) * cs;
  __m512 f[K * K];
  for (int c = 0; c < channels; c += 16) {
    const __mmask16 m = simd::LaneMask(channels - c);  // the channels of this block
    LoadTaps512<K>(filter, cs, c, m, f);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
    for (int o = 0; o < rows; ++o) {
      const int iy = iy0 + o * S;
      int kb = 0, ke = K;
      while (kb < ke && iy + kb < 0) ++kb;
      while (ke > kb && iy + ke - 1 >= p.in_h) --ke;
      for (int ox = ox_from; ox < ox_to; ++ox) {
        DwPixel512<K, S>(p, in_n, f, b, m, clamp, lo, hi, iy, kb, ke, c, ox, out_row + o * out_stride);
      }
    }
  }
}

// PP output pixels at column ox of `rows` (1 or 2) rows whose windows lie
// inside the input, every 16-channel block.
template <int K, int S, int PP>
__attribute__((target("avx512f"), always_inline)) inline void DwSpan512(const ConvParams& p, const float* in_n,
                                                                       const float* filter, const float* bias,
                                                                       bool clamp, __m512 lo, __m512 hi, int iy0,
                                                                       int rows, float* out_row, int ox) {
  const int channels = p.out_c;
  const long long cs = channels;
  const long long row_stride = static_cast<long long>(p.in_w) * cs;
  const long long out_stride = static_cast<long long>(p.out_w) * cs;
  const float* base = in_n + (static_cast<long long>(iy0) * p.in_w + (ox * S - p.pad_left)) * cs;
  float* out = out_row + ox * cs;
  __m512 f[K * K];
  for (int c = 0; c < channels; c += 16) {
    const __mmask16 m = simd::LaneMask(channels - c);  // the channels of this block
    LoadTaps512<K>(filter, cs, c, m, f);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(m, bias + c) : _mm512_setzero_ps();
    const bool full = m == static_cast<__mmask16>(0xFFFF);
    if constexpr (K == 3) {
      if (rows == 2) {
        if (full) DwBlock512<K, S, PP, 2, true>(base + c, row_stride, cs, f, b, m, clamp, lo, hi, out + c, out_stride);
        else DwBlock512<K, S, PP, 2, false>(base + c, row_stride, cs, f, b, m, clamp, lo, hi, out + c, out_stride);
        continue;
      }
    }
    if (full) DwBlock512<K, S, PP, 1, true>(base + c, row_stride, cs, f, b, m, clamp, lo, hi, out + c, out_stride);
    else DwBlock512<K, S, PP, 1, false>(base + c, row_stride, cs, f, b, m, clamp, lo, hi, out + c, out_stride);
  }
}

// AVX-512 depthwise rows for 3x3 and 5x5 windows, stride 1 or 2, dilation
// 1. What makes it fast:
//  - P output pixels (of R = 2 rows for 3x3) per step, one accumulator
//    each, every input column loaded once for all the taps that read it:
//    both FMA ports stay busy instead of waiting on one accumulator's
//    latency nine times per pixel;
//  - the walk goes row by row, pixel block by pixel block, all 16-channel
//    blocks of a pixel block in turn, so memory is read in order and whole
//    cache lines are used (a channel-block-outer walk read NHWC tensors
//    with a stride and ran 2.5x slower on the large early layers);
//  - 16-channel blocks with masked loads and stores at the tail; the taps
//    of a channel block are reloaded from L1 per pixel block.
template <int K, int S>
__attribute__((target("avx512f"))) void DwRows512(const ConvParams& p, const float* in_n, const float* filter,
                                                  const float* bias, float* out_n, int oy_begin, int oy_end) {
  constexpr int P = K == 3 ? 8 : 4;
  constexpr bool R2 = K == 3;  // 5x5: 25 filter registers leave no room for two rows
  const long long out_stride = static_cast<long long>(p.out_w) * p.out_c;
  // Output columns whose window lies inside the input horizontally.
  int ox_lo = (p.pad_left + S - 1) / S;
  int ox_hi = p.in_w - K + p.pad_left >= 0 ? (p.in_w - K + p.pad_left) / S + 1 : 0;
  ox_lo = std::min(ox_lo, p.out_w);
  ox_hi = std::max(ox_lo, std::min(ox_hi, p.out_w));
  float lo_s, hi_s;
  const bool clamp = simd::ClampBounds(p.activation, &lo_s, &hi_s);  // tanh comes after, per row
  const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
  for (int oy = oy_begin; oy < oy_end;) {
    const int iy0 = oy * S - p.pad_top;
    const bool full_rows = iy0 >= 0 && iy0 + K - 1 < p.in_h;
    // Two rows at a time where both windows are inside vertically.
    const int rows = (R2 && full_rows && oy + 1 < oy_end && iy0 + S + K - 1 < p.in_h) ? 2 : 1;
    float* out_row = out_n + static_cast<long long>(oy) * out_stride;
    int ox = 0;
    if (full_rows && ox_hi > ox_lo) {
      DwBorder512<K, S>(p, in_n, filter, bias, clamp, lo, hi, iy0, rows, out_row, 0, ox_lo);
      // Interior pixels in blocks of P, then 4, 2, 1: only the true border
      // columns take the per-pixel path (a 7x7 map has 5 interior pixels of 7).
      for (ox = ox_lo; ox + P <= ox_hi; ox += P) {
        DwSpan512<K, S, P>(p, in_n, filter, bias, clamp, lo, hi, iy0, rows, out_row, ox);
      }
      if (P > 4 && ox + 4 <= ox_hi) {
        DwSpan512<K, S, 4>(p, in_n, filter, bias, clamp, lo, hi, iy0, rows, out_row, ox);
        ox += 4;
      }
      if (ox + 2 <= ox_hi) {
        DwSpan512<K, S, 2>(p, in_n, filter, bias, clamp, lo, hi, iy0, rows, out_row, ox);
        ox += 2;
      }
      if (ox + 1 <= ox_hi) {
        DwSpan512<K, S, 1>(p, in_n, filter, bias, clamp, lo, hi, iy0, rows, out_row, ox);
        ox += 1;
      }
    }
    DwBorder512<K, S>(p, in_n, filter, bias, clamp, lo, hi, iy0, rows, out_row, ox, p.out_w);
    oy += rows;
  }
}

using DwRowsFn = void (*)(const ConvParams&, const float*, const float*, const float*, float*, int, int);

DwRowsFn PickDwRows512(const ConvParams& p) {
  // 5x5 and 7x7: f32_dwconv2d_avx512.cc (for 5x5 it beat DwRows512<5, S> by
  // 15-50% per layer on palm_detection_full; 3x3 stays here: two rows per
  // step win there).
  if (DepthwiseConv2DRowTapsTakes(p)) return DepthwiseConv2DRowTapsAvx512;
  if (p.dilation_h != 1 || p.dilation_w != 1 || p.kernel_h != p.kernel_w || p.stride_h != p.stride_w) return nullptr;
  if (p.depth_multiplier != 1) return nullptr;
  if (p.kernel_h == 3 && p.stride_h == 1) return DwRows512<3, 1>;
  if (p.kernel_h == 3 && p.stride_h == 2) return DwRows512<3, 2>;
  return nullptr;
}

}  // namespace

bool DepthwiseConv2DHasAvx512Rows(const ConvParams& p) {
  return GetCpuFeatures().avx512f && PickDwRows512(p) != nullptr;
}

const char* DepthwiseConv2DIsa(const ConvParams& p) {
  if (!GetCpuFeatures().avx512f) return "avx2";
  return DepthwiseConv2DRowTapsTakes(p) ? "avx512_rowtaps" : "avx2";
}

void DepthwiseConv2DAvx2(const ConvParams& p, const float* input, const float* filter, const float* bias,
                         float* output) {
  DepthwiseConv2DAvx2Rows(p, input, filter, bias, output, 0, p.batch * p.out_h);
}

namespace {

// The rows with a clamp-type activation or none (tanh: the caller's).
__attribute__((target("avx2,fma"))) void DwRows(const ConvParams& p, const float* input, const float* filter,
                                                const float* bias, float* output, int row_begin, int row_end) {
  const int channels = p.out_c;
  const int vec_end = channels / 8 * 8;
  if (GetCpuFeatures().avx512f) {
    if (DwRowsFn rows_fn = PickDwRows512(p)) {
      // Row ranges are split per image of the batch.
      for (int row = row_begin; row < row_end;) {
        const int n = row / p.out_h;
        const int oy = row % p.out_h;
        const int oy_end = std::min(p.out_h, oy + (row_end - row));
        rows_fn(p, input + static_cast<long long>(n) * p.in_h * p.in_w * p.in_c, filter, bias,
                output + static_cast<long long>(n) * p.out_h * p.out_w * channels, oy, oy_end);
        row += oy_end - oy;
      }
      return;
    }
  }
  for (int row = row_begin; row < row_end; ++row) {
    const int n = row / p.out_h;
    const int oy = row % p.out_h;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * p.in_c;
    {
      const int iy0 = oy * p.stride_h - p.pad_top;
      int ky_begin = 0, ky_end = p.kernel_h;
      while (ky_begin < ky_end && iy0 + ky_begin * p.dilation_h < 0) ++ky_begin;
      while (ky_end > ky_begin && iy0 + (ky_end - 1) * p.dilation_h >= p.in_h) --ky_end;
      for (int ox = 0; ox < p.out_w; ++ox) {
        const int ix0 = ox * p.stride_w - p.pad_left;
        int kx_begin = 0, kx_end = p.kernel_w;
        while (kx_begin < kx_end && ix0 + kx_begin * p.dilation_w < 0) ++kx_begin;
        while (kx_end > kx_begin && ix0 + (kx_end - 1) * p.dilation_w >= p.in_w) --kx_end;
        float* out = output + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * channels;
        const bool interior = p.dilation_h == 1 && p.dilation_w == 1 && p.kernel_h == p.kernel_w && ky_begin == 0 &&
                              ky_end == p.kernel_h && kx_begin == 0 && kx_end == p.kernel_w;
        if (interior && (p.kernel_h == 3 || p.kernel_h == 5)) {
          const float* window = in_n + (static_cast<long long>(iy0) * p.in_w + ix0) * channels;
          if (p.kernel_h == 3) {
            InteriorPixel<3>(window, p.in_w, channels, filter, bias, p.activation, out);
          } else {
            InteriorPixel<5>(window, p.in_w, channels, filter, bias, p.activation, out);
          }
          continue;
        }
        int c = 0;
        for (; c < vec_end; c += 8) {
          __m256 acc = bias ? _mm256_loadu_ps(bias + c) : _mm256_setzero_ps();
          for (int ky = ky_begin; ky < ky_end; ++ky) {
            const int iy = iy0 + ky * p.dilation_h;
            const float* in_row = in_n + static_cast<long long>(iy) * p.in_w * channels;
            const float* f_row = filter + static_cast<long long>(ky) * p.kernel_w * channels;
            for (int kx = kx_begin; kx < kx_end; ++kx) {
              const int ix = ix0 + kx * p.dilation_w;
              acc = _mm256_fmadd_ps(_mm256_loadu_ps(in_row + static_cast<long long>(ix) * channels + c),
                                    _mm256_loadu_ps(f_row + kx * channels + c), acc);
            }
          }
          _mm256_storeu_ps(out + c, Activate(acc, p.activation));
        }
        for (; c < channels; ++c) {
          float acc = bias ? bias[c] : 0.0f;
          for (int ky = ky_begin; ky < ky_end; ++ky) {
            const int iy = iy0 + ky * p.dilation_h;
            for (int kx = kx_begin; kx < kx_end; ++kx) {
              const int ix = ix0 + kx * p.dilation_w;
              acc += in_n[(static_cast<long long>(iy) * p.in_w + ix) * channels + c] *
                     filter[(ky * p.kernel_w + kx) * channels + c];
            }
          }
          out[c] = ApplyActivation(acc, p.activation);
        }
      }
    }
  }
}

}  // namespace

void DepthwiseConv2DAvx2Rows(const ConvParams& p, const float* input, const float* filter, const float* bias,
                             float* output, int row_begin, int row_end) {
  if (p.activation != FusedActivation::kTanh) {
    DwRows(p, input, filter, bias, output, row_begin, row_end);
    return;
  }
  // tanh: over every 4 output rows once they are written, still in cache
  // (the rows are dense: out_w * out_c floats each).
  ConvParams linear = p;
  linear.activation = FusedActivation::kNone;
  const long long row_floats = static_cast<long long>(p.out_w) * p.out_c;
  const bool avx512 = GetCpuFeatures().avx512f;
  for (int row = row_begin; row < row_end; row += 4) {
    const int end = std::min(row + 4, row_end);
    DwRows(linear, input, filter, bias, output, row, end);
    float* y = output + row * row_floats;
    if (avx512) TanhInPlaceAvx512(y, (end - row) * row_floats);
    else TanhInPlaceAvx2(y, (end - row) * row_floats);
  }
}

}  // namespace rill::inference::cpu::x86
