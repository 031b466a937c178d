// exp, logistic (sigmoid) and tanh on AVX2 (8 lanes, __m256) and AVX-512
// (16 lanes, __m512) vectors, for kernels' bodies and epilogues. Each is
// always_inline and carries its ISA, so it inlines into entry points of the
// same target ("avx2,fma" or "avx512f"). Both widths run the same IEEE
// operations in the same order, so a lane's result does not depend on the
// width, the lane or its neighbours: kernels may split work anywhere (masked
// tails included) and stay bit-identical across thread counts and ISAs.
//
// Accuracy over the whole float range (tests/inference/x86_math_test):
//   Exp: <= 2 ulp against exp in double; 0 below about -87.3 (results under
//     FLT_MIN, denormal or 0, are within FLT_MIN of the true value), +inf above
//     88.72, NaN in NaN out, Exp(0) == 1 exactly.
//   Sigmoid: 1 / (1 + Exp(-x)), stable for any x: Sigmoid(-100) == 0,
//     Sigmoid(100) == 1, NaN in NaN out.
//   Tanh: odd; |x| < 0.625 an odd polynomial x + x^3 P(x^2) (relative error
//     stays small near 0, Tanh(+-0) == +-0); else 1 - 2 / (Exp(2|x|) + 1)
//     with the sign of x (+-1 from |x| > 9.01, +-inf included).
// Include only from .cc files of kernels/x86 (and their tests).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_MATH_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_MATH_H_

#include <immintrin.h>

// GCC 12's avx512fintrin.h builds shifts, min/max on an undefined
// pass-through operand, which -Wmaybe-uninitialized flags wherever they are
// inlined (a false positive), so in every includer.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86::vmath {

// exp(x) = 2^n * e^r, n = round(x / ln 2), |r| <= ln2 / 2 (+ rounding of n).
// ln 2 = kLn2Hi + kLn2Lo, kLn2Hi with 16 significant bits, so n * kLn2Hi is
// exact for |n| <= 150 (the FMA makes the first step exact anyway).
constexpr float kLog2e = 1.44269502f;     // 0x3fb8aa3b
constexpr float kLn2Hi = 0.693145752f;    // 0x3f317200
constexpr float kLn2Lo = 1.42860677e-6f;  // 0x35bfbe8e
// e^r = 1 + r + r^2 q(r), q of degree 4 fitted to (e^r - 1 - r) / r^2 on
// [-0.354, 0.354] (Chebyshev, mpmath): relative error of e^r 1.2e-8 before
// float rounding.
constexpr float kExpC2 = 0.5f;
constexpr float kExpC3 = 0.166665696f;
constexpr float kExpC4 = 0.0416665454f;
constexpr float kExpC5 = 0.00836438069f;
constexpr float kExpC6 = 0.00139276846f;
// Inputs are clamped to [kExpMin, kExpMax] first: exp(-104) is below the
// smallest denormal and exp(89) above FLT_MAX, so the clamp changes no result
// and keeps n in [-150, 128], which the two-step scale 2^n1 * 2^n2 covers
// (n1, n2 in [-75, 64]) without overflowing or flushing an exponent field.
constexpr float kExpMin = -104.0f;
constexpr float kExpMax = 89.0f;
// tanh(a) = a + a^3 P(a^2) for a < kTanhSmall, P of degree 4 fitted to
// (tanh(a)/a - 1)/a^2 on a^2 in [0, 0.625^2]: relative error 1.7e-8 before
// float rounding. Above it, 1 - 2 / (e^2a + 1) loses nothing to
// cancellation (tanh(0.625) = 0.55).
constexpr float kTanhSmall = 0.625f;
constexpr float kTanhP0 = -0.333333289f;
constexpr float kTanhP1 = 0.133327697f;
constexpr float kTanhP2 = -0.0538509096f;
constexpr float kTanhP3 = 0.020997179f;
constexpr float kTanhP4 = -0.00609671417f;

#define RILL_MATH_AVX2 inline __attribute__((always_inline, target("avx2,fma")))
#define RILL_MATH_AVX512 inline __attribute__((always_inline, target("avx512f")))

// ---- AVX2 -----------------------------------------------------------------

RILL_MATH_AVX2 __m256 Exp(__m256 x) {
  // max/min return their second operand when either is NaN: x stays NaN.
  x = _mm256_min_ps(_mm256_set1_ps(kExpMax), _mm256_max_ps(_mm256_set1_ps(kExpMin), x));
  const __m256 n =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(kExpC6), r, _mm256_set1_ps(kExpC5));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kExpC4));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kExpC3));
  q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(kExpC2));
  const __m256 p = _mm256_add_ps(_mm256_fmadd_ps(q, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  // 2^n as 2^n1 * 2^n2 built in the exponent field (NaN: p is NaN already).
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i n1 = _mm256_srai_epi32(ni, 1);
  const __m256i n2 = _mm256_sub_epi32(ni, n1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

RILL_MATH_AVX2 __m256 Sigmoid(__m256 x) {
  const __m256 e = Exp(_mm256_xor_ps(x, _mm256_set1_ps(-0.0f)));  // exp(-x): inf for x < -89 gives 0
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, e));
}

RILL_MATH_AVX2 __m256 Tanh(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 a = _mm256_andnot_ps(sign_bit, x);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 e = Exp(_mm256_add_ps(a, a));
  const __m256 big = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
  const __m256 u = _mm256_mul_ps(a, a);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kTanhP4), u, _mm256_set1_ps(kTanhP3));
  p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(kTanhP2));
  p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(kTanhP1));
  p = _mm256_fmadd_ps(p, u, _mm256_set1_ps(kTanhP0));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(a, u), p, a);
  // a < kTanhSmall is false for NaN: the exp branch carries it.
  const __m256 y = _mm256_blendv_ps(big, small, _mm256_cmp_ps(a, _mm256_set1_ps(kTanhSmall), _CMP_LT_OQ));
  return _mm256_or_ps(y, _mm256_and_ps(x, sign_bit));
}

// The AVX2 mask of `valid` (0..8) leading lanes, for maskload/maskstore.
RILL_MATH_AVX2 __m256i TailMask(int valid) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// ---- AVX-512 --------------------------------------------------------------

// Exp's reduction: x clamped, *n = round(x / ln 2), returns p = e^r, so
// exp(x) = p * 2^n.
RILL_MATH_AVX512 __m512 ExpReduced(__m512 x, __m512* n) {
  x = _mm512_min_ps(_mm512_set1_ps(kExpMax), _mm512_max_ps(_mm512_set1_ps(kExpMin), x));
  *n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(*n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(*n, _mm512_set1_ps(kLn2Lo), r);
  __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(kExpC6), r, _mm512_set1_ps(kExpC5));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kExpC4));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kExpC3));
  q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kExpC2));
  return _mm512_add_ps(_mm512_fmadd_ps(q, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
}

RILL_MATH_AVX512 __m512 Exp(__m512 x) {
  __m512 n;
  const __m512 p = ExpReduced(x, &n);
  const __m512i ni = _mm512_cvtps_epi32(n);
  const __m512i n1 = _mm512_srai_epi32(ni, 1);
  const __m512i n2 = _mm512_sub_epi32(ni, n1);
  const __m512i bias = _mm512_set1_epi32(127);
  const __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n1, bias), 23));
  const __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(n2, bias), 23));
  return _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
}

// Exp's value with 2^n applied by vscalefps (one instruction for Exp's
// eight): the same n and polynomial, and the same result wherever it is a
// normal float (both scalings are exact there); results under FLT_MIN are
// rounded once here, twice in Exp (within FLT_MIN of the true value either way).
RILL_MATH_AVX512 __m512 ExpScalef(__m512 x) {
  __m512 n;
  const __m512 p = ExpReduced(x, &n);
  return _mm512_scalef_ps(p, n);
}

RILL_MATH_AVX512 __m512 Sigmoid(__m512 x) {
  const __m512i sign_bit = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512 e = Exp(_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), sign_bit)));
  const __m512 one = _mm512_set1_ps(1.0f);
  return _mm512_div_ps(one, _mm512_add_ps(one, e));
}

RILL_MATH_AVX512 __m512 Tanh(__m512 x) {
  const __m512i sign_bit = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(sign_bit, _mm512_castps_si512(x)));
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 e = Exp(_mm512_add_ps(a, a));
  const __m512 big = _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
  const __m512 u = _mm512_mul_ps(a, a);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kTanhP4), u, _mm512_set1_ps(kTanhP3));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kTanhP2));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kTanhP1));
  p = _mm512_fmadd_ps(p, u, _mm512_set1_ps(kTanhP0));
  const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(a, u), p, a);
  const __m512 y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(kTanhSmall), _CMP_LT_OQ), big, small);
  return _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(y), _mm512_and_si512(_mm512_castps_si512(x), sign_bit)));
}

#undef RILL_MATH_AVX2
#undef RILL_MATH_AVX512

}  // namespace rill::inference::cpu::x86::vmath

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_MATH_H_
