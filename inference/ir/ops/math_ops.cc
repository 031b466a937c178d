// Descriptors, shape functions and scalar functions of the math and
// normalization ops (math_ops.h).
#include "inference/ir/ops/math_ops.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status UnaryShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  return c.SetOut(c.In(0));
}

// Numpy broadcasting of every input.
Status NaryShape(ShapeContext& c, int min_inputs, int max_inputs) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(min_inputs, max_inputs));
  Shape out;
  for (size_t k = 0; k < c.node().inputs.size(); ++k) {
    const Shape& s = c.In(k);
    if (s.size() > 6) return c.Error("broadcasting supports rank <= 6");
    Shape next(std::max(out.size(), s.size()));
    const size_t rank = next.size();
    for (size_t i = 0; i < rank; ++i) {
      const int da = i < rank - out.size() ? 1 : out[i - (rank - out.size())];
      const int db = i < rank - s.size() ? 1 : s[i - (rank - s.size())];
      if (da != db && da != 1 && db != 1) {
        return c.Error("shapes " + ShapeToString(out) + " and " + ShapeToString(s) + " do not broadcast");
      }
      next[i] = da == 1 ? db : da;
    }
    out = next;
  }
  return c.SetOut(out);
}

Status LayerNormShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  const auto* a = c.node().attrs_as<LayerNormAttrs>();
  if (a == nullptr) return c.Error("missing LayerNormAttrs");
  const Shape& x = c.In(0);
  const int rank = static_cast<int>(x.size());
  const int axis = a->axis < 0 ? a->axis + rank : a->axis;
  if (axis < 0 || axis >= rank) {
    return c.Error("axis " + std::to_string(a->axis) + " out of range for " + ShapeToString(x));
  }
  for (size_t k = 1; k < c.node().inputs.size(); ++k) {
    if (c.node().inputs[k] < 0) continue;  // no bias
    const Shape& s = c.In(k);
    bool ok = static_cast<int>(s.size()) <= rank;
    for (size_t i = 0; ok && i < s.size(); ++i) {
      const int d = rank - static_cast<int>(s.size()) + static_cast<int>(i);
      ok = d >= axis ? s[i] == x[d] : s[i] == 1;
    }
    if (!ok) {
      return c.Error(std::string(k == 1 ? "scale " : "bias ") + ShapeToString(s) +
                     " does not match the normalized dims of " + ShapeToString(x) + " from axis " +
                     std::to_string(axis));
    }
  }
  return c.SetOut(x);
}

const char* const kUnaryNames[kNumUnaryFns] = {"SQRT", "EXP", "LOG",  "NEG",      "RECIPROCAL", "ABS", "TANH",
                                               "ERF",  "SOFTPLUS", "MISH", "ELU", "SELU", "GELU",
                                               "SIN",  "COS",      "FLOOR", "CEIL", "ROUND",
                                               "SIGN", "SOFTSIGN", "TAN", "ASIN", "ACOS", "ATAN",
                                               "SINH", "COSH", "ASINH", "ACOSH", "ATANH", "CELU",
                                               "THRESHOLDED_RELU", "SHRINK", "IS_NAN", "IS_INF"};
const char* const kNaryNames[kNumNaryFns] = {"POW", "MINIMUM", "MAXIMUM", "ADD_N", "MEAN_N"};

Status PowShape(ShapeContext& c) { return NaryShape(c, 2, 2); }
Status VariadicShape(ShapeContext& c) { return NaryShape(c, 1, 1 << 20); }

struct Ids {
  OpType unary[kNumUnaryFns];
  OpType nary[kNumNaryFns];
};

const Ids& AllIds() {
  static const Ids ids = [] {
    Ids r;
    for (int i = 0; i < kNumUnaryFns; ++i) r.unary[i] = RegisterOp({OpType::kRegisteredOp, kUnaryNames[i], UnaryShape});
    for (int i = 0; i < kNumNaryFns; ++i) {
      r.nary[i] = RegisterOp({OpType::kRegisteredOp, kNaryNames[i], i == 0 ? PowShape : VariadicShape});
    }
    return r;
  }();
  return ids;
}

float Softplus(float x) { return std::max(x, 0.0f) + std::log1p(std::exp(-std::fabs(x))); }

// Every op is registered when the library loads, so that names resolve
// before any importer asks for them.
const bool kRegistered = (AllIds(), LayerNormOp(), true);

}  // namespace

OpType UnaryMathOp(UnaryFn fn) { return AllIds().unary[static_cast<int>(fn)]; }
OpType NaryMathOp(NaryFn fn) { return AllIds().nary[static_cast<int>(fn)]; }

OpType LayerNormOp() {
  static const OpType type = RegisterOp({OpType::kRegisteredOp, "LAYER_NORM", LayerNormShape});
  return type;
}

bool IsUnaryMathOp(OpType type, UnaryFn* fn) {
  const Ids& ids = AllIds();
  for (int i = 0; i < kNumUnaryFns; ++i) {
    if (ids.unary[i] == type) {
      if (fn != nullptr) *fn = static_cast<UnaryFn>(i);
      return true;
    }
  }
  return false;
}

bool IsNaryMathOp(OpType type, NaryFn* fn) {
  const Ids& ids = AllIds();
  for (int i = 0; i < kNumNaryFns; ++i) {
    if (ids.nary[i] == type) {
      if (fn != nullptr) *fn = static_cast<NaryFn>(i);
      return true;
    }
  }
  return false;
}

float ApplyUnary(UnaryFn fn, const UnaryMathAttrs& a, float x) {
  switch (fn) {
    case UnaryFn::kSqrt: return std::sqrt(x);
    case UnaryFn::kExp: return std::exp(x);
    case UnaryFn::kLog: return std::log(x);
    case UnaryFn::kNeg: return -x;
    case UnaryFn::kReciprocal: return 1.0f / x;
    case UnaryFn::kAbs: return std::fabs(x);
    case UnaryFn::kTanh: return std::tanh(x);
    case UnaryFn::kErf: return std::erf(x);
    case UnaryFn::kSoftplus: return Softplus(x);
    case UnaryFn::kMish: return x * std::tanh(Softplus(x));
    case UnaryFn::kElu: return x >= 0.0f ? x : a.alpha * (std::exp(x) - 1.0f);
    case UnaryFn::kSin: return std::sin(x);
    case UnaryFn::kCos: return std::cos(x);
    case UnaryFn::kFloor: return std::floor(x);
    case UnaryFn::kCeil: return std::ceil(x);
    case UnaryFn::kRound: return std::nearbyint(x);  // the default rounding: halves to even
    case UnaryFn::kSelu: return a.gamma * (x > 0.0f ? x : a.alpha * (std::exp(x) - 1.0f));
    case UnaryFn::kSign: return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x;  // 0, -0 and NaN as they are
    case UnaryFn::kSoftsign: return x / (1.0f + std::fabs(x));
    case UnaryFn::kTan: return std::tan(x);
    case UnaryFn::kAsin: return std::asin(x);
    case UnaryFn::kAcos: return std::acos(x);
    case UnaryFn::kAtan: return std::atan(x);
    case UnaryFn::kSinh: return std::sinh(x);
    case UnaryFn::kCosh: return std::cosh(x);
    case UnaryFn::kAsinh: return std::asinh(x);
    case UnaryFn::kAcosh: return std::acosh(x);
    case UnaryFn::kAtanh: return std::atanh(x);
    case UnaryFn::kCelu: return std::max(x, 0.0f) + std::min(0.0f, a.alpha * (std::exp(x / a.alpha) - 1.0f));
    case UnaryFn::kThresholdedRelu: return x > a.alpha ? x : 0.0f;
    case UnaryFn::kShrink: return x < -a.alpha ? x + a.gamma : x > a.alpha ? x - a.gamma : 0.0f;
    case UnaryFn::kIsNan: return std::isnan(x) ? 1.0f : 0.0f;
    case UnaryFn::kIsInf:
      return (std::isinf(x) && ((x < 0 && a.alpha != 0.0f) || (x > 0 && a.gamma != 0.0f))) ? 1.0f : 0.0f;
    case UnaryFn::kGelu:
      if (a.tanh_approximation) {
        constexpr float kSqrt2OverPi = 0.7978845608028654f;
        return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
      }
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  }
  return x;
}

float ApplyNary(NaryFn fn, float acc, float x) {
  switch (fn) {
    case NaryFn::kPow: return std::pow(acc, x);
    case NaryFn::kMin: return std::isnan(acc) || std::isnan(x) ? NAN : std::min(acc, x);
    case NaryFn::kMax: return std::isnan(acc) || std::isnan(x) ? NAN : std::max(acc, x);
    case NaryFn::kSum:
    case NaryFn::kMean: return acc + x;
  }
  return acc;
}

}  // namespace rill::inference::ir
