#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

#include <immintrin.h>

#include <limits>

#include "inference/backend/cpu/kernels/x86/f32_math.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"

// GCC 12's avx512fintrin.h builds min/max on _mm512_undefined_ps(), which
// -Wmaybe-uninitialized flags inside inlined intrinsics (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {

// ---- LOGISTIC, tanh -------------------------------------------------------

__attribute__((target("avx2,fma"))) void LogisticAvx2(long long n, const float* in, float* out) {
  long long i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, vmath::Sigmoid(_mm256_loadu_ps(in + i)));
  if (i < n) {
    const __m256i m = vmath::TailMask(static_cast<int>(n - i));
    _mm256_maskstore_ps(out + i, m, vmath::Sigmoid(_mm256_maskload_ps(in + i, m)));
  }
}

__attribute__((target("avx512f"))) void LogisticAvx512(long long n, const float* in, float* out) {
  long long i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, vmath::Sigmoid(_mm512_loadu_ps(in + i)));
  if (i < n) {
    const __mmask16 m = simd::LaneMask(static_cast<int>(n - i));
    _mm512_mask_storeu_ps(out + i, m, vmath::Sigmoid(_mm512_maskz_loadu_ps(m, in + i)));
  }
}

__attribute__((target("avx2,fma"))) void SiluAvx2(long long n, const float* in, float* out) {
  long long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(x, vmath::Sigmoid(x)));
  }
  if (i < n) {
    const __m256i m = vmath::TailMask(static_cast<int>(n - i));
    const __m256 x = _mm256_maskload_ps(in + i, m);
    _mm256_maskstore_ps(out + i, m, _mm256_mul_ps(x, vmath::Sigmoid(x)));
  }
}

__attribute__((target("avx512f"))) void SiluAvx512(long long n, const float* in, float* out) {
  long long i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(in + i);
    _mm512_storeu_ps(out + i, _mm512_mul_ps(x, vmath::Sigmoid(x)));
  }
  if (i < n) {
    const __mmask16 m = simd::LaneMask(static_cast<int>(n - i));
    const __m512 x = _mm512_maskz_loadu_ps(m, in + i);
    _mm512_mask_storeu_ps(out + i, m, _mm512_mul_ps(x, vmath::Sigmoid(x)));
  }
}

__attribute__((target("avx2,fma"))) void TanhInPlaceAvx2(float* x, long long n) {
  long long i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, vmath::Tanh(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i m = vmath::TailMask(static_cast<int>(n - i));
    _mm256_maskstore_ps(x + i, m, vmath::Tanh(_mm256_maskload_ps(x + i, m)));
  }
}

__attribute__((target("avx512f"))) void TanhInPlaceAvx512(float* x, long long n) {
  long long i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, vmath::Tanh(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = simd::LaneMask(static_cast<int>(n - i));
    _mm512_mask_storeu_ps(x + i, m, vmath::Tanh(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

// ---- GELU ------------------------------------------------------------------

namespace {

// erf(x) for x clamped to [-4, 4]: x P(x^2) / Q(x^2) (math_loops.cc's FastErf).
constexpr float kErfP[7] = {-2.72614225801306e-10f, 2.77068142495902e-08f, -2.10102402082508e-06f,
                            -5.69250639462346e-05f, -7.34990630326855e-04f, -2.95459980854025e-03f,
                            -1.60960333262415e-02f};
constexpr float kErfQ[5] = {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
                            -7.37332916720468e-03f, -1.42647390514189e-02f};

__attribute__((always_inline, target("avx2,fma"))) inline __m256 Gelu8(__m256 in) {
  const __m256 t = _mm256_mul_ps(in, _mm256_set1_ps(0.70710678118654752f));
  const __m256 x = _mm256_min_ps(_mm256_set1_ps(4.0f), _mm256_max_ps(_mm256_set1_ps(-4.0f), t));
  const __m256 x2 = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(kErfP[0]);
  for (int i = 1; i < 7; ++i) p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(kErfP[i]));
  __m256 q = _mm256_set1_ps(kErfQ[0]);
  for (int i = 1; i < 5; ++i) q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(kErfQ[i]));
  const __m256 erf = _mm256_div_ps(_mm256_mul_ps(x, p), q);
  const __m256 half_x = _mm256_mul_ps(in, _mm256_set1_ps(0.5f));
  const __m256 y = _mm256_fmadd_ps(half_x, erf, half_x);
  // NaN in, NaN out (min/max above would have clamped it).
  return _mm256_blendv_ps(y, in, _mm256_cmp_ps(in, in, _CMP_UNORD_Q));
}

__attribute__((always_inline, target("avx512f"))) inline __m512 Gelu16(__m512 in) {
  const __m512 t = _mm512_mul_ps(in, _mm512_set1_ps(0.70710678118654752f));
  const __m512 x = _mm512_min_ps(_mm512_set1_ps(4.0f), _mm512_max_ps(_mm512_set1_ps(-4.0f), t));
  const __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(kErfP[0]);
  for (int i = 1; i < 7; ++i) p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(kErfP[i]));
  __m512 q = _mm512_set1_ps(kErfQ[0]);
  for (int i = 1; i < 5; ++i) q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(kErfQ[i]));
  const __m512 erf = _mm512_div_ps(_mm512_mul_ps(x, p), q);
  const __m512 half_x = _mm512_mul_ps(in, _mm512_set1_ps(0.5f));
  const __m512 y = _mm512_fmadd_ps(half_x, erf, half_x);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(in, in, _CMP_UNORD_Q), y, in);
}

}  // namespace

__attribute__((target("avx2,fma"))) void GeluAvx2(long long n, const float* in, float* out) {
  long long i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Gelu8(_mm256_loadu_ps(in + i)));
  if (i < n) {
    const __m256i m = vmath::TailMask(static_cast<int>(n - i));
    _mm256_maskstore_ps(out + i, m, Gelu8(_mm256_maskload_ps(in + i, m)));
  }
}

__attribute__((target("avx512f"))) void GeluAvx512(long long n, const float* in, float* out) {
  long long i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, Gelu16(_mm512_loadu_ps(in + i)));
  if (i < n) {
    const __mmask16 m = simd::LaneMask(static_cast<int>(n - i));
    _mm512_mask_storeu_ps(out + i, m, Gelu16(_mm512_maskz_loadu_ps(m, in + i)));
  }
}

// ---- SOFTMAX --------------------------------------------------------------
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Across the lanes of a vector: halves folded down to one float.
inline float ReduceMax4(__m128 m) {
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}
inline float ReduceAdd4(__m128 s) {
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}
__attribute__((target("avx2,fma"))) inline float ReduceMax(__m256 v) {
  return ReduceMax4(_mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}
__attribute__((target("avx2,fma"))) inline float ReduceAdd(__m256 v) {
  return ReduceAdd4(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}
// (Halves by a generic shuffle: GCC 12's cast and extract intrinsics trip
// -Wuninitialized on their undefined pass-through operand.)
__attribute__((target("avx512f"))) inline __m256 Half(__m512 v, int upper) {
  const simd::F16 w = (simd::F16)v;
  return upper ? (__m256)__builtin_shufflevector(w, w, 8, 9, 10, 11, 12, 13, 14, 15)
               : (__m256)__builtin_shufflevector(w, w, 0, 1, 2, 3, 4, 5, 6, 7);
}
__attribute__((target("avx512f"))) inline float ReduceMax(__m512 v) {
  const __m256 h = _mm256_max_ps(Half(v, 0), Half(v, 1));
  return ReduceMax4(_mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}
__attribute__((target("avx512f"))) inline float ReduceAdd(__m512 v) {
  const __m256 h = _mm256_add_ps(Half(v, 0), Half(v, 1));
  return ReduceAdd4(_mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}

// One contiguous row of n floats: max, exp(x - max) stored and summed, then
// divided by the sum (SoftmaxRef's steps; the sum in 8 lanes, then across).
__attribute__((target("avx2,fma"))) void SoftmaxRowAvx2(int n, const float* x, float* y) {
  const int full = n / 8 * 8;
  const __m256i tail = vmath::TailMask(n - full);
  __m256 mx = _mm256_set1_ps(kNegInf);
  for (int i = 0; i < full; i += 8) mx = _mm256_max_ps(mx, _mm256_loadu_ps(x + i));
  if (full < n) {
    mx = _mm256_max_ps(mx, _mm256_blendv_ps(mx, _mm256_maskload_ps(x + full, tail), _mm256_castsi256_ps(tail)));
  }
  const __m256 max_v = _mm256_set1_ps(ReduceMax(mx));
  __m256 sum = _mm256_setzero_ps();
  for (int i = 0; i < full; i += 8) {
    const __m256 e = vmath::Exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), max_v));
    _mm256_storeu_ps(y + i, e);
    sum = _mm256_add_ps(sum, e);
  }
  if (full < n) {
    const __m256 e = _mm256_and_ps(vmath::Exp(_mm256_sub_ps(_mm256_maskload_ps(x + full, tail), max_v)),
                                   _mm256_castsi256_ps(tail));
    _mm256_maskstore_ps(y + full, tail, e);
    sum = _mm256_add_ps(sum, e);
  }
  const __m256 sum_v = _mm256_set1_ps(ReduceAdd(sum));
  for (int i = 0; i < full; i += 8) _mm256_storeu_ps(y + i, _mm256_div_ps(_mm256_loadu_ps(y + i), sum_v));
  if (full < n) {
    _mm256_maskstore_ps(y + full, tail, _mm256_div_ps(_mm256_maskload_ps(y + full, tail), sum_v));
  }
}

__attribute__((target("avx512f"))) void SoftmaxRowAvx512(int n, const float* x, float* y) {
  const int full = n / 16 * 16;
  const __mmask16 tail = simd::LaneMask(n - full);
  __m512 mx = _mm512_set1_ps(kNegInf);
  for (int i = 0; i < full; i += 16) mx = _mm512_max_ps(mx, _mm512_loadu_ps(x + i));
  if (full < n) mx = _mm512_mask_max_ps(mx, tail, mx, _mm512_maskz_loadu_ps(tail, x + full));
  const __m512 max_v = _mm512_set1_ps(ReduceMax(mx));
  __m512 sum = _mm512_setzero_ps();
  for (int i = 0; i < full; i += 16) {
    const __m512 e = vmath::Exp(_mm512_sub_ps(_mm512_loadu_ps(x + i), max_v));
    _mm512_storeu_ps(y + i, e);
    sum = _mm512_add_ps(sum, e);
  }
  if (full < n) {
    const __m512 e = vmath::Exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, x + full), max_v));
    _mm512_mask_storeu_ps(y + full, tail, e);
    sum = _mm512_mask_add_ps(sum, tail, sum, e);
  }
  const __m512 sum_v = _mm512_set1_ps(ReduceAdd(sum));
  for (int i = 0; i < full; i += 16) _mm512_storeu_ps(y + i, _mm512_div_ps(_mm512_loadu_ps(y + i), sum_v));
  if (full < n) _mm512_mask_storeu_ps(y + full, tail, _mm512_div_ps(_mm512_maskz_loadu_ps(tail, y + full), sum_v));
}

// Softmax vectors along a strided axis: up to kColumns neighbours, lane l
// of x[a * stride + l] (l < valid) each its own softmax. Each pass (max,
// exp-and-sum, divide) walks the axis with the block's maxima and sums in a
// stack buffer: with one vector per pass the axis's lines, `stride` floats
// apart (4 KiB for 1024 columns), fought over one L1 set and the second and
// third passes read L2 (axis 64 x 1024 columns on the AMD VM: AVX-512 107 ->
// 32 us, AVX2 145 -> 40 us with the unmasked moves below). Each lane does the
// same operations in the same order as with one vector per pass.
constexpr int kColumns = 256;

// Vector v of a column block: unmasked but for a partial last vector
// (vmaskmovps stores are microcoded on AMD: 2x slower here when every
// vector used them).
__attribute__((target("avx2,fma"))) inline __m256 Load8(const float* p, int v, int partial, __m256i tail) {
  return v == partial ? _mm256_maskload_ps(p + 8 * v, tail) : _mm256_loadu_ps(p + 8 * v);
}
__attribute__((target("avx2,fma"))) inline void Store8(float* p, int v, int partial, __m256i tail, __m256 value) {
  if (v == partial) _mm256_maskstore_ps(p + 8 * v, tail, value);
  else _mm256_storeu_ps(p + 8 * v, value);
}

__attribute__((target("avx2,fma"))) void SoftmaxColumnsAvx2(int axis_size, long long stride, int valid,
                                                            const float* x, float* y) {
  alignas(32) float mx_buf[kColumns], sum_buf[kColumns];
  const int vectors = (valid + 7) / 8;
  const int partial = valid % 8 ? vectors - 1 : vectors;
  const __m256i tail = vmath::TailMask(valid % 8);
  for (int v = 0; v < vectors; ++v) _mm256_store_ps(mx_buf + 8 * v, Load8(x, v, partial, tail));
  for (int a = 1; a < axis_size; ++a) {
    const float* xa = x + a * stride;
    for (int v = 0; v < vectors; ++v) {
      _mm256_store_ps(mx_buf + 8 * v, _mm256_max_ps(_mm256_load_ps(mx_buf + 8 * v), Load8(xa, v, partial, tail)));
    }
  }
  for (int v = 0; v < vectors; ++v) _mm256_store_ps(sum_buf + 8 * v, _mm256_setzero_ps());
  for (int a = 0; a < axis_size; ++a) {
    const float* xa = x + a * stride;
    float* ya = y + a * stride;
    for (int v = 0; v < vectors; ++v) {
      const __m256 e = vmath::Exp(_mm256_sub_ps(Load8(xa, v, partial, tail), _mm256_load_ps(mx_buf + 8 * v)));
      Store8(ya, v, partial, tail, e);
      _mm256_store_ps(sum_buf + 8 * v, _mm256_add_ps(_mm256_load_ps(sum_buf + 8 * v), e));
    }
  }
  for (int a = 0; a < axis_size; ++a) {
    float* ya = y + a * stride;
    for (int v = 0; v < vectors; ++v) {
      Store8(ya, v, partial, tail, _mm256_div_ps(Load8(ya, v, partial, tail), _mm256_load_ps(sum_buf + 8 * v)));
    }
  }
}

__attribute__((target("avx512f"))) void SoftmaxColumnsAvx512(int axis_size, long long stride, int valid,
                                                              const float* x, float* y) {
  alignas(64) float mx_buf[kColumns], sum_buf[kColumns];
  const int vectors = (valid + 15) / 16;
  const __mmask16 last = simd::LaneMask(valid - (vectors - 1) * 16);
  auto mask = [&](int v) { return v == vectors - 1 ? last : static_cast<__mmask16>(0xFFFF); };
  for (int v = 0; v < vectors; ++v) _mm512_store_ps(mx_buf + 16 * v, _mm512_maskz_loadu_ps(mask(v), x + 16 * v));
  for (int a = 1; a < axis_size; ++a) {
    const float* xa = x + a * stride;
    for (int v = 0; v < vectors; ++v) {
      _mm512_store_ps(mx_buf + 16 * v,
                      _mm512_max_ps(_mm512_load_ps(mx_buf + 16 * v), _mm512_maskz_loadu_ps(mask(v), xa + 16 * v)));
    }
  }
  for (int v = 0; v < vectors; ++v) _mm512_store_ps(sum_buf + 16 * v, _mm512_setzero_ps());
  for (int a = 0; a < axis_size; ++a) {
    const float* xa = x + a * stride;
    float* ya = y + a * stride;
    for (int v = 0; v < vectors; ++v) {
      const __m512 e =
          vmath::Exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask(v), xa + 16 * v), _mm512_load_ps(mx_buf + 16 * v)));
      _mm512_mask_storeu_ps(ya + 16 * v, mask(v), e);
      _mm512_store_ps(sum_buf + 16 * v, _mm512_add_ps(_mm512_load_ps(sum_buf + 16 * v), e));
    }
  }
  for (int a = 0; a < axis_size; ++a) {
    float* ya = y + a * stride;
    for (int v = 0; v < vectors; ++v) {
      const __m512 e = _mm512_maskz_loadu_ps(mask(v), ya + 16 * v);
      _mm512_mask_storeu_ps(ya + 16 * v, mask(v), _mm512_div_ps(e, _mm512_load_ps(sum_buf + 16 * v)));
    }
  }
}

template <class Row, class Columns>
void Softmax(long long outer, int axis_size, long long inner, const float* in, float* out, long long begin,
             long long end, Row row, Columns columns) {
  const long long plane = static_cast<long long>(axis_size) * inner;
  if (inner == 1) {
    for (long long o = begin; o < end; ++o) row(axis_size, in + o * plane, out + o * plane);
    return;
  }
  for (long long j = begin; j < end;) {
    const long long o = j / inner, i = j % inner;
    const long long run = end - j < inner - i ? end - j : inner - i;
    for (long long l = 0; l < run; l += kColumns) {
      const int valid = static_cast<int>(run - l < kColumns ? run - l : kColumns);
      const long long offset = o * plane + i + l;
      columns(axis_size, inner, valid, in + offset, out + offset);
    }
    j += run;
  }
}

}  // namespace

void SoftmaxAvx2(long long outer, int axis_size, long long inner, const float* in, float* out, long long begin,
                 long long end) {
  Softmax(outer, axis_size, inner, in, out, begin, end, SoftmaxRowAvx2, SoftmaxColumnsAvx2);
}

void SoftmaxAvx512(long long outer, int axis_size, long long inner, const float* in, float* out, long long begin,
                   long long end) {
  Softmax(outer, axis_size, inner, in, out, begin, end, SoftmaxRowAvx512, SoftmaxColumnsAvx512);
}

}  // namespace rill::inference::cpu::x86
