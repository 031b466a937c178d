// The loops of the math ops' CPU executions (math_ops.cc) over contiguous
// runs: plain C++ that the compiler vectorizes (this library is built with
// -O3, whose vectorizer takes loops of unknown length, -O2's does not, and
// without errno and floating-point traps; see BUILD.bazel). GELU (erf form)
// runs about 5x faster than through std::erf.
#ifndef RILL_INFERENCE_BACKEND_CPU_OPS_MATH_LOOPS_H_
#define RILL_INFERENCE_BACKEND_CPU_OPS_MATH_LOOPS_H_

#include "inference/ir/ops/math_ops.h"

namespace rill::inference::cpu {

// erf(x) to 5e-7 absolute in arithmetic alone: an odd rational function of x
// clamped to [-4, 4] (erf(4) = 1 - 1.5e-8), the coefficients of the
// approximation Eigen uses for float; NaN stays NaN.
float FastErf(float x);

// out[i] = fn(in[i]) for SQRT, EXP, NEG, RECIPROCAL, ABS, ERF and GELU (erf form,
// through FastErf); false (nothing written) for the other functions.
bool UnaryMathLoop(ir::UnaryFn fn, long long n, const float* in, float* out);
// GELU's tanh form around a tanh kernel: out = sqrt(2/pi) (x + 0.044715 x^3),
// then (after tanh of out) out = 0.5 x (1 + out).
void GeluTanhArgumentLoop(long long n, const float* in, float* out);
void GeluTanhFinishLoop(long long n, const float* in, float* out);

// out = x^p for p = 1, 2, 3 (products) and 0.5 (sqrt, +inf at -inf as
// std::pow); false for other exponents.
bool PowScalarLoop(long long n, const float* x, float p, float* out);

// One LAYER_NORM row of `inner` elements (bias may be null), in float.
void LayerNormRow(long long inner, float epsilon, const float* x, const float* scale, const float* bias, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_OPS_MATH_LOOPS_H_
