#include "inference/backend/cpu/kernels/ref/math.h"

#include <cmath>

#include "inference/backend/cpu/kernels/ref/broadcast.h"

namespace rill::inference::cpu {

void UnaryMathRef(ir::UnaryFn fn, const ir::UnaryMathAttrs& a, long long n, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = ir::ApplyUnary(fn, a, in[i]);
}

void NaryMathRef(ir::NaryFn fn, const std::vector<Shape>& shapes, const std::vector<const float*>& inputs,
                 const Shape& out_shape, float* out) {
  BroadcastParams p;
  // The first input broadcast to the output, then each further one folded in
  // (the accumulator has the output's shape, so it is read where written).
  MakeBroadcastParams(shapes[0], out_shape, &p);
  BroadcastBinary(p, inputs[0], out, out, [](float x, float) { return x; });
  for (size_t k = 1; k < inputs.size(); ++k) {
    MakeBroadcastParams(out_shape, shapes[k], &p);
    BroadcastBinary(p, out, inputs[k], out, [fn](float acc, float x) { return ir::ApplyNary(fn, acc, x); });
  }
  if (fn == ir::NaryFn::kMean) {
    const float count = static_cast<float>(inputs.size());
    const long long n = NumElements(out_shape);
    for (long long i = 0; i < n; ++i) out[i] /= count;
  }
}

void LayerNormRef(long long rows, long long inner, float epsilon, const float* x, const float* scale,
                  const float* bias, float* y) {
  for (long long r = 0; r < rows; ++r) {
    const float* xr = x + r * inner;
    float* yr = y + r * inner;
    double sum = 0.0;
    for (long long i = 0; i < inner; ++i) sum += xr[i];
    const double mean = sum / static_cast<double>(inner);
    double sq = 0.0;
    for (long long i = 0; i < inner; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + epsilon);
    for (long long i = 0; i < inner; ++i) {
      const float v = static_cast<float>((xr[i] - mean) * inv) * scale[i];
      yr[i] = bias != nullptr ? v + bias[i] : v;
    }
  }
}

}  // namespace rill::inference::cpu
