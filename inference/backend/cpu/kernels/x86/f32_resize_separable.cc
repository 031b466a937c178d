#include "inference/backend/cpu/kernels/x86/f32_resize_separable.h"

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"

namespace rill::inference::cpu::x86 {
namespace {

// One output pixel's channels [c, c + K * Lanes<V>()): per H tap, the W taps'
// weighted sum in K registers, then that row's share into the accumulators
// (divided by the H divisor when it is not 1, as the reference divides).
template <class V, int K>
RILL_SIMD_INLINE void PixelBlock(const float* in_n, long long row_stride, long long channels, const int* yi,
                                 const float* yw, int ty, float divisor, const int* xi, const float* xw, int tx,
                                 float* o) {
  constexpr int L = simd::Lanes<V>();
  V acc[K];
  for (int k = 0; k < K; ++k) acc[k] = V{};
  for (int i = 0; i < ty; ++i) {
    const float* row = in_n + yi[i] * row_stride;
    V r[K];
    for (int k = 0; k < K; ++k) r[k] = V{};
    for (int j = 0; j < tx; ++j) {
      const float* px = row + xi[j] * channels;
      const V w = simd::Splat<V>(xw[j]);
      for (int k = 0; k < K; ++k) r[k] += w * simd::Load<V>(px + k * L);
    }
    const V w = simd::Splat<V>(yw[i]);
    if (divisor == 1.0f) {
      for (int k = 0; k < K; ++k) acc[k] += r[k] * w;
    } else {
      const V d = simd::Splat<V>(divisor);
      for (int k = 0; k < K; ++k) acc[k] += r[k] * w / d;
    }
  }
  for (int k = 0; k < K; ++k) simd::Store<V>(o + k * L, acc[k]);
}

// Output rows [row_begin, row_end): channels in blocks of 4 vectors of V,
// then single vectors, then 8-lane vectors (below AVX-512's 16), then floats.
template <class V>
RILL_SIMD_INLINE void Rows(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                           const float* in, float* out, int row_begin, int row_end) {
  constexpr int L = simd::Lanes<V>();
  const long long c_n = p.channels;
  const long long row_stride = static_cast<long long>(p.in_w) * c_n;
  for (int r = row_begin; r < row_end; ++r) {
    const int n = r / p.out_h, oy = r % p.out_h;
    const float* in_n = in + static_cast<long long>(n) * p.in_h * row_stride;
    const int* yi = rows.index.data() + static_cast<long long>(oy) * rows.taps;
    const float* yw = rows.weight.data() + static_cast<long long>(oy) * rows.taps;
    const float divisor = rows.divisor[oy];
    float* out_row = out + static_cast<long long>(r) * p.out_w * c_n;
    for (int ox = 0; ox < p.out_w; ++ox) {
      float* o = out_row + ox * c_n;
      if (rows.outside[oy] || cols.outside[ox]) {
        for (long long c = 0; c < c_n; ++c) o[c] = p.extrapolation_value;
        continue;
      }
      const int* xi = cols.index.data() + static_cast<long long>(ox) * cols.taps;
      const float* xw = cols.weight.data() + static_cast<long long>(ox) * cols.taps;
      long long c = 0;
      for (; c + 4 * L <= c_n; c += 4 * L) {
        PixelBlock<V, 4>(in_n + c, row_stride, c_n, yi, yw, rows.taps, divisor, xi, xw, cols.taps, o + c);
      }
      for (; c + L <= c_n; c += L) {
        PixelBlock<V, 1>(in_n + c, row_stride, c_n, yi, yw, rows.taps, divisor, xi, xw, cols.taps, o + c);
      }
      if constexpr (L > 8) {
        for (; c + 8 <= c_n; c += 8) {
          PixelBlock<simd::F8, 1>(in_n + c, row_stride, c_n, yi, yw, rows.taps, divisor, xi, xw, cols.taps, o + c);
        }
      }
      for (; c < c_n; ++c) {
        PixelBlock<float, 1>(in_n + c, row_stride, c_n, yi, yw, rows.taps, divisor, xi, xw, cols.taps, o + c);
      }
    }
  }
}

}  // namespace

__attribute__((target("avx512f"))) void ResizeSeparableRowsAvx512(const ResizeSeparableParams& p,
                                                                  const ResizeTaps& rows, const ResizeTaps& cols,
                                                                  const float* in, float* out, int row_begin,
                                                                  int row_end) {
  Rows<simd::F16>(p, rows, cols, in, out, row_begin, row_end);
}

__attribute__((target("avx2,fma"))) void ResizeSeparableRowsAvx2(const ResizeSeparableParams& p,
                                                                 const ResizeTaps& rows, const ResizeTaps& cols,
                                                                 const float* in, float* out, int row_begin,
                                                                 int row_end) {
  Rows<simd::F8>(p, rows, cols, in, out, row_begin, row_end);
}

void ResizeSeparableRows(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                         const float* in, float* out, int row_begin, int row_end) {
  if (GetCpuFeatures().avx512f) return ResizeSeparableRowsAvx512(p, rows, cols, in, out, row_begin, row_end);
  ResizeSeparableRowsAvx2(p, rows, cols, in, out, row_begin, row_end);
}

}  // namespace rill::inference::cpu::x86
