#include "inference/backend/cpu/kernels/x86/f32_conv2d_sliding.h"

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/f32_simd.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu::x86 {
namespace {

using simd::F16;
using simd::F8;

struct Geometry {
  const ConvParams* p;
  const float* in_row0;  // input image of this row's batch
  const float* w;        // first packed block of this group
  size_t block_stride;   // floats between packed blocks
  int ky0, ky1, iy0;     // valid ky range; input row of ky = 0
};

// R pixels starting at output column ox (input column ix0 for kx = 0) x NB
// channel blocks; taps kx in [kx0, kx1). `valid` lanes of the last block are
// stored.
template <class V, int R, int NB>
RILL_SIMD_INLINE void Tile(const Geometry& g, const float* bias, int ix0,
                           int kx0, int kx1, float* out, int valid) {
  constexpr int L = simd::Lanes<V>();
  const ConvParams& p = *g.p;
  const int ic_n = p.in_c;
  const size_t px = static_cast<size_t>(InPixelStride(p));
  V acc[R][NB];
#pragma GCC unroll 16
  for (int b = 0; b < NB; ++b) {
    const V bv = bias ? simd::Load<V>(bias + b * L) : V{};
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r][b] = bv;
  }
  const size_t px_step = static_cast<size_t>(p.stride_w) * px;
  // Without horizontal dilation (and with pixels in_c apart: not a group's
  // slice of a wider tensor) the taps (kx, ic) of one kernel row are
  // contiguous in both the NHWC input and the packed filter: one loop of
  // (kx1 - kx0) * in_c steps instead of a short in_c loop per kx (3 steps
  // for a first layer).
  const bool fuse = p.dilation_w == 1 && px == static_cast<size_t>(ic_n);
  const int kx_steps = fuse ? 1 : kx1 - kx0;
  const int c_steps = fuse ? (kx1 - kx0) * ic_n : ic_n;
  for (int ky = g.ky0; ky < g.ky1; ++ky) {
    const float* xrow =
        g.in_row0 +
        static_cast<size_t>(g.iy0 + ky * p.dilation_h) * p.in_w * px;
    for (int step = 0; step < kx_steps; ++step) {
      const int kx = kx0 + step;
      const float* x =
          xrow + static_cast<size_t>(ix0 + kx * p.dilation_w) * px;
      const float* w =
          g.w + static_cast<size_t>(ky * p.kernel_w + kx) * ic_n * L;
      for (int c = 0; c < c_steps; ++c) {
        V wv[NB];
#pragma GCC unroll 16
        for (int b = 0; b < NB; ++b)
          wv[b] = simd::Load<V>(w + b * g.block_stride +
                                static_cast<size_t>(c) * L);
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
          const V xv = simd::Broadcast<V>(x + r * px_step + c);
#pragma GCC unroll 16
          for (int b = 0; b < NB; ++b) acc[r][b] += xv * wv[b];
        }
      }
    }
  }
  const size_t out_px = static_cast<size_t>(OutPixelStride(p));
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int b = 0; b < NB; ++b) {
      const V y = simd::Clamp(acc[r][b], p.activation);
      float* o = out + r * out_px + b * L;
      if (b < NB - 1 || valid == L) {
        simd::Store(o, y);
      } else {
        float tmp[L];
        simd::Store(tmp, y);
        for (int l = 0; l < valid; ++l) o[l] = tmp[l];
      }
    }
  }
}

template <class V, int NB>
RILL_SIMD_INLINE void RowGroup(const Geometry& g, const float* bias,
                               float* out_row, int valid) {
  constexpr int R = 12 / NB;
  const ConvParams& p = *g.p;
  // Output columns whose whole window lies inside the input.
  int x_lo = 0;
  while (x_lo < p.out_w && x_lo * p.stride_w - p.pad_left < 0) ++x_lo;
  int x_hi = x_lo;
  while (x_hi < p.out_w &&
         x_hi * p.stride_w - p.pad_left + (p.kernel_w - 1) * p.dilation_w <
             p.in_w)
    ++x_hi;
  const size_t out_px = static_cast<size_t>(OutPixelStride(p));
  auto edge = [&](int ox) __attribute__((always_inline)) {
    const int ix0 = ox * p.stride_w - p.pad_left;
    int kx0 = 0, kx1 = p.kernel_w;
    while (kx0 < kx1 && ix0 + kx0 * p.dilation_w < 0) ++kx0;
    while (kx1 > kx0 && ix0 + (kx1 - 1) * p.dilation_w >= p.in_w) --kx1;
    Tile<V, 1, NB>(g, bias, ix0, kx0, kx1, out_row + ox * out_px, valid);
  };
  for (int ox = 0; ox < x_lo; ++ox) edge(ox);
  int ox = x_lo;
  for (; ox + R <= x_hi; ox += R) {
    Tile<V, R, NB>(g, bias, ox * p.stride_w - p.pad_left, 0, p.kernel_w,
                   out_row + ox * out_px, valid);
  }
  for (; ox < x_hi; ++ox)
    Tile<V, 1, NB>(g, bias, ox * p.stride_w - p.pad_left, 0, p.kernel_w,
                   out_row + ox * out_px, valid);
  for (ox = std::max(x_hi, x_lo); ox < p.out_w; ++ox) edge(ox);
}

template <class V>
RILL_SIMD_INLINE void RowsT(const ConvParams& p, const float* input,
                            const float* packed, const float* bias,
                            float* output, int row_begin, int row_end) {
  constexpr int L = simd::Lanes<V>();
  const int blocks = (p.out_c + L - 1) / L;
  const size_t block_stride =
      static_cast<size_t>(p.kernel_h) * p.kernel_w * p.in_c * L;
  for (int row = row_begin; row < row_end; ++row) {
    const int n = row / p.out_h, oy = row % p.out_h;
    Geometry g;
    g.p = &p;
    g.in_row0 = input + static_cast<size_t>(n) * p.in_h * p.in_w * InPixelStride(p);
    g.block_stride = block_stride;
    g.iy0 = oy * p.stride_h - p.pad_top;
    g.ky0 = 0;
    g.ky1 = p.kernel_h;
    while (g.ky0 < g.ky1 && g.iy0 + g.ky0 * p.dilation_h < 0) ++g.ky0;
    while (g.ky1 > g.ky0 && g.iy0 + (g.ky1 - 1) * p.dilation_h >= p.in_h)
      --g.ky1;
    const size_t out_px = static_cast<size_t>(OutPixelStride(p));
    float* out_row =
        output + (static_cast<size_t>(n) * p.out_h + oy) * p.out_w * out_px;
    for (int b = 0; b < blocks;) {
      const int nb = std::min(3, blocks - b);
      const int valid = std::min(L, p.out_c - (b + nb - 1) * L);
      g.w = packed + b * block_stride;
      // Bias may be shorter than the padded blocks: copy the group's part.
      alignas(64) float bias_buf[3 * L] = {};
      const float* bias_g = nullptr;
      if (bias) {
        for (int c = b * L; c < std::min(p.out_c, (b + nb) * L); ++c)
          bias_buf[c - b * L] = bias[c];
        bias_g = bias_buf;
      }
      if (nb == 3)
        RowGroup<V, 3>(g, bias_g, out_row + b * L, valid);
      else if (nb == 2)
        RowGroup<V, 2>(g, bias_g, out_row + b * L, valid);
      else
        RowGroup<V, 1>(g, bias_g, out_row + b * L, valid);
      b += nb;
    }
    if (p.activation == FusedActivation::kTanh) {
      // One call per row when pixels are dense, else per pixel.
      const bool dense = out_px == static_cast<size_t>(p.out_c);
      for (int x = 0; x < (dense ? 1 : p.out_w); ++x) {
        const long long count = dense ? static_cast<long long>(p.out_w) * p.out_c : p.out_c;
        if (L == 16) TanhInPlaceAvx512(out_row + x * out_px, count);
        else TanhInPlaceAvx2(out_row + x * out_px, count);
      }
    }
  }
}

__attribute__((target("avx512f"), flatten)) void RowsAvx512(
    const ConvParams& p, const float* input, const float* packed,
    const float* bias, float* output, int row_begin, int row_end) {
  RowsT<F16>(p, input, packed, bias, output, row_begin, row_end);
}
__attribute__((target("avx2,fma"), flatten)) void RowsAvx2(
    const ConvParams& p, const float* input, const float* packed,
    const float* bias, float* output, int row_begin, int row_end) {
  RowsT<F8>(p, input, packed, bias, output, row_begin, row_end);
}

}  // namespace

size_t SlidingPackedFloats(const ConvParams& p, int lanes) {
  const size_t blocks = static_cast<size_t>((p.out_c + lanes - 1) / lanes);
  return blocks * p.kernel_h * p.kernel_w * p.in_c * lanes;
}

void PackSlidingWeights(const ConvParams& p, const float* filter, int lanes,
                        float* packed) {
  const int blocks = (p.out_c + lanes - 1) / lanes;
  const size_t taps = static_cast<size_t>(p.kernel_h) * p.kernel_w * p.in_c;
  for (int b = 0; b < blocks; ++b) {
    for (size_t t = 0; t < taps; ++t) {
      for (int l = 0; l < lanes; ++l) {
        const int oc = b * lanes + l;
        packed[(b * taps + t) * lanes + l] =
            oc < p.out_c ? filter[static_cast<size_t>(oc) * taps + t] : 0.0f;
      }
    }
  }
}

void Conv2DSlidingRows(const ConvParams& p, const float* input,
                       const float* packed, const float* bias, bool avx512,
                       float* output, int row_begin, int row_end) {
  if (avx512)
    RowsAvx512(p, input, packed, bias, output, row_begin, row_end);
  else
    RowsAvx2(p, input, packed, bias, output, row_begin, row_end);
}

}  // namespace rill::inference::cpu::x86
