#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx2.h"

#include <immintrin.h>

#include "inference/backend/cpu/kernels/x86/cpu_features.h"

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
                                                                 FusedActivation act, float* out, int c) {
  const int vec_end = channels / 8 * 8;
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
    if (act == FusedActivation::kTanh) {
      alignas(32) float tmp[8];
      _mm256_store_ps(tmp, acc);
      for (int j = 0; j < 8; ++j) out[c + j] = ApplyActivation(tmp[j], act);
    } else {
      _mm256_storeu_ps(out + c, Activate(acc, act));
    }
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

// The same with AVX-512 over 16-channel blocks; returns the first channel
// it did not compute (the AVX2 path finishes the rest).
template <int K>
__attribute__((target("avx512f"))) inline int InteriorPixel512(const float* in, int in_w, int channels,
                                                                const float* filter, const float* bias,
                                                                FusedActivation act, float* out) {
  if (act == FusedActivation::kTanh) return 0;
  const int vec_end = channels / 16 * 16;
  const __m512 lo = _mm512_set1_ps(act == FusedActivation::kReluN1To1 ? -1.0f : 0.0f);
  const __m512 hi = _mm512_set1_ps(act == FusedActivation::kRelu6 ? 6.0f
                                   : act == FusedActivation::kReluN1To1 ? 1.0f : 3.402823466e38f);
  const bool clamp = act != FusedActivation::kNone;
  int c = 0;
  for (; c < vec_end; c += 16) {
    __m512 acc = bias ? _mm512_loadu_ps(bias + c) : _mm512_setzero_ps();
#pragma GCC unroll 5
    for (int ky = 0; ky < K; ++ky) {
      const float* row = in + static_cast<long long>(ky) * in_w * channels + c;
      const float* f = filter + ky * K * channels + c;
#pragma GCC unroll 5
      for (int kx = 0; kx < K; ++kx) {
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(row + kx * channels), _mm512_loadu_ps(f + kx * channels), acc);
      }
    }
    if (clamp) acc = _mm512_min_ps(_mm512_max_ps(acc, lo), hi);
    _mm512_storeu_ps(out + c, acc);
  }
  return c;
}

}  // namespace

void DepthwiseConv2DAvx2(const ConvParams& p, const float* input, const float* filter, const float* bias,
                         float* output) {
  DepthwiseConv2DAvx2Rows(p, input, filter, bias, output, 0, p.batch * p.out_h);
}

__attribute__((target("avx2,fma"))) void DepthwiseConv2DAvx2Rows(const ConvParams& p, const float* input,
                                                                  const float* filter, const float* bias,
                                                                  float* output, int row_begin, int row_end) {
  const int channels = p.out_c;
  const int vec_end = channels / 8 * 8;
  const bool vector_act = p.activation != FusedActivation::kTanh;
  const bool use512 = GetCpuFeatures().avx512f && channels >= 16;
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
            const int c0 = use512 ? InteriorPixel512<3>(window, p.in_w, channels, filter, bias, p.activation, out) : 0;
            InteriorPixel<3>(window, p.in_w, channels, filter, bias, p.activation, out, c0);
          } else {
            const int c0 = use512 ? InteriorPixel512<5>(window, p.in_w, channels, filter, bias, p.activation, out) : 0;
            InteriorPixel<5>(window, p.in_w, channels, filter, bias, p.activation, out, c0);
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
          if (vector_act) {
            _mm256_storeu_ps(out + c, Activate(acc, p.activation));
          } else {
            alignas(32) float tmp[8];
            _mm256_store_ps(tmp, acc);
            for (int j = 0; j < 8; ++j) out[c + j] = ApplyActivation(tmp[j], p.activation);
          }
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

}  // namespace rill::inference::cpu::x86
