#include "inference/backend/cpu/ops/math_loops.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
namespace {

// Clamp without a branch (min/max), NaN kept by a select after.
inline float ErfOf(float in) {
  const float x = std::min(4.0f, std::max(-4.0f, in));
  const float x2 = x * x;
  float p = -2.72614225801306e-10f;
  p = p * x2 + 2.77068142495902e-08f;
  p = p * x2 - 2.10102402082508e-06f;
  p = p * x2 - 5.69250639462346e-05f;
  p = p * x2 - 7.34990630326855e-04f;
  p = p * x2 - 2.95459980854025e-03f;
  p = p * x2 - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * x2 - 2.13374055278905e-04f;
  q = q * x2 - 1.68282697438203e-03f;
  q = q * x2 - 7.37332916720468e-03f;
  q = q * x2 - 1.42647390514189e-02f;
  const float r = x * p / q;
  return in == in ? r : in;
}

template <typename F>
void Loop(long long n, const float* __restrict in, float* __restrict out, F f) {
  for (long long i = 0; i < n; ++i) out[i] = f(in[i]);
}

// The sum of f(x[i]) in eight lanes (one accumulator would fix the order of
// the additions and keep the loop scalar).
template <typename F>
float LaneSum(const float* x, long long n, F f) {
  constexpr int kLanes = 8;
  float lane[kLanes] = {};
  long long i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lane[l] += f(x[i + l]);
  }
  float sum = 0.0f;
  for (; i < n; ++i) sum += f(x[i]);
  for (int l = 0; l < kLanes; ++l) sum += lane[l];
  return sum;
}

}  // namespace

float FastErf(float x) { return ErfOf(x); }

bool UnaryMathLoop(ir::UnaryFn fn, long long n, const float* in, float* out) {
  switch (fn) {
    case ir::UnaryFn::kSqrt: Loop(n, in, out, [](float x) { return std::sqrt(x); }); return true;
    case ir::UnaryFn::kExp: Loop(n, in, out, [](float x) { return std::exp(x); }); return true;
    case ir::UnaryFn::kNeg: Loop(n, in, out, [](float x) { return -x; }); return true;
    case ir::UnaryFn::kReciprocal: Loop(n, in, out, [](float x) { return 1.0f / x; }); return true;
    case ir::UnaryFn::kAbs: Loop(n, in, out, [](float x) { return std::fabs(x); }); return true;
    case ir::UnaryFn::kErf: Loop(n, in, out, [](float x) { return ErfOf(x); }); return true;
    case ir::UnaryFn::kGelu:
      Loop(n, in, out, [](float x) { return 0.5f * x * (1.0f + ErfOf(x * 0.70710678118654752f)); });
      return true;
    default: return false;
  }
}

void GeluTanhArgumentLoop(long long n, const float* in, float* out) {
  Loop(n, in, out, [](float x) { return 0.7978845608028654f * (x + 0.044715f * x * x * x); });
}

void GeluTanhFinishLoop(long long n, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = 0.5f * in[i] * (1.0f + out[i]);
}

bool PowScalarLoop(long long n, const float* x, float p, float* out) {
  if (p == 2.0f) {
    Loop(n, x, out, [](float v) { return v * v; });
  } else if (p == 3.0f) {
    Loop(n, x, out, [](float v) { return v * v * v; });
  } else if (p == 0.5f) {
    Loop(n, x, out, [](float v) { return v == -INFINITY ? INFINITY : std::sqrt(v); });
  } else if (p == 1.0f) {
    std::copy(x, x + n, out);
  } else {
    return false;
  }
  return true;
}

void LayerNormRow(long long inner, float epsilon, const float* x, const float* scale, const float* bias, float* y) {
  const float mean = LaneSum(x, inner, [](float v) { return v; }) / static_cast<float>(inner);
  const float var = LaneSum(x, inner, [mean](float v) { return (v - mean) * (v - mean); }) / static_cast<float>(inner);
  const float inv = 1.0f / std::sqrt(var + epsilon);
  if (bias != nullptr) {
    for (long long i = 0; i < inner; ++i) y[i] = (x[i] - mean) * inv * scale[i] + bias[i];
  } else {
    for (long long i = 0; i < inner; ++i) y[i] = (x[i] - mean) * inv * scale[i];
  }
}

}  // namespace rill::inference::cpu
