// Math and normalization ops (registered ops with typed attributes;
// docs/design.md, "How to add an op"). All take and give float32.
//
// Unary, elementwise (output shape = input shape), one op per function:
//   SQRT, EXP, LOG, NEG, RECIPROCAL, ABS, TANH, ERF, SIN, COS, FLOOR, CEIL,
//   ROUND (halves to even), SIGN (-1, 0, 1), SOFTSIGN x / (1 + |x|), TAN,
//   ASIN, ACOS, ATAN, SINH, COSH, ASINH, ACOSH, ATANH,
//   CELU       max(0, x) + min(0, alpha * (exp(x / alpha) - 1)),
//   THRESHOLDED_RELU  x > alpha ? x : 0,
//   SHRINK     x < -alpha ? x + gamma : x > alpha ? x - gamma : 0 (ONNX's
//              lambd and bias),
//   IS_NAN, IS_INF  1 or 0 (the engine's booleans); IS_INF counts -inf
//              where alpha != 0 and +inf where gamma != 0 (ONNX's
//              detect_negative, detect_positive),
//   SOFTPLUS   log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)),
//   MISH       x * tanh(softplus(x)),
//   ELU        x >= 0 ? x : alpha * (exp(x) - 1),
//   SELU       gamma * (x > 0 ? x : alpha * (exp(x) - 1)),
//   GELU       0.5 x (1 + erf(x / sqrt(2))), or with tanh_approximation
//              0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
//   IEEE results at the edges, as ONNX Runtime: SQRT and LOG of negatives
//   are NaN, LOG(0) is -inf, RECIPROCAL(0) is +-inf.
// Broadcasting (numpy rules, rank <= 6):
//   POW (x, exponent): std::pow elementwise; exponents 1, 2, 3 and 0.5 give
//     x, x*x, x*x*x and sqrt(x) (as ONNX Runtime's scalar fast paths).
//   MINIMUM, MAXIMUM, ADD_N, MEAN_N: 1..N inputs (ONNX Min, Max, Sum, Mean).
// Normalization:
//   LAYER_NORM (x, scale[, bias]): over the axes [axis, rank) of x,
//   y = (x - mean) / sqrt(variance + epsilon) * scale + bias, variance the
//   mean of (x - mean)^2; scale and bias hold one value per normalized
//   element (any shape of that many elements whose dims, right-aligned,
//   match x's normalized dims and are 1 elsewhere).
#ifndef RILL_INFERENCE_IR_OPS_MATH_OPS_H_
#define RILL_INFERENCE_IR_OPS_MATH_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

enum class UnaryFn {
  kSqrt,
  kExp,
  kLog,
  kNeg,
  kReciprocal,
  kAbs,
  kTanh,
  kErf,
  kSoftplus,
  kMish,
  kElu,
  kSelu,
  kGelu,
  kSin,
  kCos,
  kFloor,
  kCeil,
  kRound,
  kSign,
  kSoftsign,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kCelu,
  kThresholdedRelu,
  kShrink,
  kIsNan,
  kIsInf,
};
constexpr int kNumUnaryFns = static_cast<int>(UnaryFn::kIsInf) + 1;

// ELU's, CELU's and THRESHOLDED_RELU's alpha; SELU's alpha and gamma;
// SHRINK's lambd (alpha) and bias (gamma); GELU's approximation.
struct UnaryMathAttrs : TypedAttrs {
  float alpha = 1.0f;
  float gamma = 1.0f;
  bool tanh_approximation = false;
};

enum class NaryFn { kPow, kMin, kMax, kSum, kMean };
constexpr int kNumNaryFns = static_cast<int>(NaryFn::kMean) + 1;

struct LayerNormAttrs : TypedAttrs {
  int axis = -1;  // negative: counted from the end
  float epsilon = 1e-5f;
};

OpType UnaryMathOp(UnaryFn fn);
OpType NaryMathOp(NaryFn fn);
OpType LayerNormOp();
// Whether `type` is one of the ops above, and which.
bool IsUnaryMathOp(OpType type, UnaryFn* fn);
bool IsNaryMathOp(OpType type, NaryFn* fn);

// The functions themselves, shared by kernels, constant folding and tests.
float ApplyUnary(UnaryFn fn, const UnaryMathAttrs& a, float x);
float ApplyNary(NaryFn fn, float acc, float x);  // MEAN_N: the sum (divide after)

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_MATH_OPS_H_
