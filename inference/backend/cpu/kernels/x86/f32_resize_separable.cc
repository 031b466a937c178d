#include "inference/backend/cpu/kernels/x86/f32_resize_separable.h"

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"

namespace rill::inference::cpu::x86 {
namespace {

static_assert(sizeof(int) == sizeof(float), "row tags share the scratch's floats");

// Floats of one cached row, rounded up to whole 64-byte lines.
long long CachedRowFloats(const ResizeSeparableParams& p) {
  return (static_cast<long long>(p.out_w) * p.channels + 15) / 16 * 16;
}

// Channels [c, c + K * Lanes<V>()) of one output pixel of a row resampled
// along W: the weighted sum of its W taps' pixels.
template <class V, int K>
RILL_SIMD_INLINE void WBlock(const float* row, long long channels, const int* xi, const float* xw, int tx, float* o) {
  constexpr int L = simd::Lanes<V>();
  V r[K];
  for (int k = 0; k < K; ++k) r[k] = V{};
  for (int j = 0; j < tx; ++j) {
    const float* px = row + xi[j] * channels;
    const V w = simd::Splat<V>(xw[j]);
    for (int k = 0; k < K; ++k) r[k] += w * simd::Load<V>(px + k * L);
  }
  for (int k = 0; k < K; ++k) simd::Store<V>(o + k * L, r[k]);
}

// The last `rem` (< the vector's lanes) channels of WBlock, in one masked
// vector: a pixel of 3 channels takes one FMA per tap, not three.
__attribute__((target("avx512f"))) inline void WTail(const float* row, long long channels, const int* xi,
                                                     const float* xw, int tx, float* o, int rem, simd::F16*) {
  const __mmask16 mask = simd::LaneMask(rem);
  __m512 r = _mm512_setzero_ps();
  for (int j = 0; j < tx; ++j) {
    r = _mm512_fmadd_ps(_mm512_set1_ps(xw[j]), _mm512_maskz_loadu_ps(mask, row + xi[j] * channels), r);
  }
  _mm512_mask_storeu_ps(o, mask, r);
}
__attribute__((target("avx2,fma"))) inline void WTail(const float* row, long long channels, const int* xi,
                                                    const float* xw, int tx, float* o, int rem, simd::F8*) {
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256 r = _mm256_setzero_ps();
  for (int j = 0; j < tx; ++j) {
    r = _mm256_fmadd_ps(_mm256_set1_ps(xw[j]), _mm256_maskload_ps(row + xi[j] * channels, mask), r);
  }
  _mm256_maskstore_ps(o, mask, r);
}

// Input row `row` resampled along W into `dst` (out_w * channels floats).
template <class V>
RILL_SIMD_INLINE void ResampleW(const ResizeSeparableParams& p, const ResizeTaps& cols, const float* row, float* dst) {
  constexpr int L = simd::Lanes<V>();
  const long long c_n = p.channels;
  for (int ox = 0; ox < p.out_w; ++ox) {
    const int* xi = cols.index.data() + static_cast<long long>(ox) * cols.taps;
    const float* xw = cols.weight.data() + static_cast<long long>(ox) * cols.taps;
    float* o = dst + ox * c_n;
    long long c = 0;
    for (; c + 4 * L <= c_n; c += 4 * L) WBlock<V, 4>(row + c, c_n, xi, xw, cols.taps, o + c);
    for (; c + L <= c_n; c += L) WBlock<V, 1>(row + c, c_n, xi, xw, cols.taps, o + c);
    if (c < c_n) WTail(row + c, c_n, xi, xw, cols.taps, o + c, static_cast<int>(c_n - c), static_cast<V*>(nullptr));
  }
}

// Floats [e, e + K * Lanes<V>()) of an output row: its H taps' cached rows
// (cached + slot[i] * slot_floats) weighted, and divided by the H divisor
// when it is not 1, as the reference divides.
template <class V, int K>
RILL_SIMD_INLINE void HBlock(const float* cached, long long slot_floats, const int* slot, const float* yw, int ty,
                             float divisor, long long e, float* o) {
  constexpr int L = simd::Lanes<V>();
  V acc[K];
  for (int k = 0; k < K; ++k) acc[k] = V{};
  if (divisor == 1.0f) {
    for (int i = 0; i < ty; ++i) {
      const float* src = cached + slot[i] * slot_floats + e;
      const V w = simd::Splat<V>(yw[i]);
      for (int k = 0; k < K; ++k) acc[k] += simd::Load<V>(src + k * L) * w;
    }
  } else {
    const V d = simd::Splat<V>(divisor);
    for (int i = 0; i < ty; ++i) {
      const float* src = cached + slot[i] * slot_floats + e;
      const V w = simd::Splat<V>(yw[i]);
      for (int k = 0; k < K; ++k) acc[k] += simd::Load<V>(src + k * L) * w / d;
    }
  }
  for (int k = 0; k < K; ++k) simd::Store<V>(o + e + k * L, acc[k]);
}

template <class V>
RILL_SIMD_INLINE void Rows(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                           const float* in, float* out, int row_begin, int row_end, float* scratch) {
  constexpr int L = simd::Lanes<V>();
  const long long c_n = p.channels;
  const long long in_row = static_cast<long long>(p.in_w) * c_n;
  const long long out_row = static_cast<long long>(p.out_w) * c_n;
  const int ty = rows.taps;
  // The cache: slot s holds input row tag[s] (n * in_h + y) resampled along
  // W. An output row's H taps are consecutive input rows (clamped at the
  // edges), so slot y % taps never holds two rows one output row needs.
  int* tag = reinterpret_cast<int*>(scratch);
  int* slot = tag + ty;  // the slots of the output row's H taps
  float* cached = scratch + (2 * ty + 15) / 16 * 16;
  const long long slot_floats = CachedRowFloats(p);
  for (int s = 0; s < ty; ++s) tag[s] = -1;
  for (int r = row_begin; r < row_end; ++r) {
    const int n = r / p.out_h, oy = r % p.out_h;
    float* o = out + static_cast<long long>(r) * out_row;
    if (rows.outside[oy]) {
      for (long long e = 0; e < out_row; ++e) o[e] = p.extrapolation_value;
      continue;
    }
    const int* yi = rows.index.data() + static_cast<long long>(oy) * ty;
    for (int i = 0; i < ty; ++i) {
      slot[i] = yi[i] % ty;
      const int want = n * p.in_h + yi[i];
      if (tag[slot[i]] != want) {
        ResampleW<V>(p, cols, in + static_cast<long long>(want) * in_row, cached + slot[i] * slot_floats);
        tag[slot[i]] = want;
      }
    }
    const float* yw = rows.weight.data() + static_cast<long long>(oy) * ty;
    const float divisor = rows.divisor[oy];
    long long e = 0;
    for (; e + 4 * L <= out_row; e += 4 * L) HBlock<V, 4>(cached, slot_floats, slot, yw, ty, divisor, e, o);
    for (; e + L <= out_row; e += L) HBlock<V, 1>(cached, slot_floats, slot, yw, ty, divisor, e, o);
    if constexpr (L > 8) {
      for (; e + 8 <= out_row; e += 8) HBlock<simd::F8, 1>(cached, slot_floats, slot, yw, ty, divisor, e, o);
    }
    for (; e < out_row; ++e) HBlock<float, 1>(cached, slot_floats, slot, yw, ty, divisor, e, o);
    for (int ox = 0; ox < p.out_w; ++ox) {
      if (!cols.outside[ox]) continue;
      for (long long c = 0; c < c_n; ++c) o[ox * c_n + c] = p.extrapolation_value;
    }
  }
}

}  // namespace

size_t ResizeSeparableScratchFloats(const ResizeSeparableParams& p, const ResizeTaps& rows) {
  return static_cast<size_t>((2 * rows.taps + 15) / 16 * 16 + rows.taps * CachedRowFloats(p));
}

__attribute__((target("avx512f"))) void ResizeSeparableRowsAvx512(const ResizeSeparableParams& p,
                                                                  const ResizeTaps& rows, const ResizeTaps& cols,
                                                                  const float* in, float* out, int row_begin,
                                                                  int row_end, float* scratch) {
  Rows<simd::F16>(p, rows, cols, in, out, row_begin, row_end, scratch);
}

__attribute__((target("avx2,fma"))) void ResizeSeparableRowsAvx2(const ResizeSeparableParams& p,
                                                                 const ResizeTaps& rows, const ResizeTaps& cols,
                                                                 const float* in, float* out, int row_begin,
                                                                 int row_end, float* scratch) {
  Rows<simd::F8>(p, rows, cols, in, out, row_begin, row_end, scratch);
}

void ResizeSeparableRows(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                         const float* in, float* out, int row_begin, int row_end, float* scratch) {
  if (GetCpuFeatures().avx512f) return ResizeSeparableRowsAvx512(p, rows, cols, in, out, row_begin, row_end, scratch);
  ResizeSeparableRowsAvx2(p, rows, cols, in, out, row_begin, row_end, scratch);
}

}  // namespace rill::inference::cpu::x86
