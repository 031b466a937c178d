#version 450
// SOFTMAX along an axis of axis_size elements, `inner` apart.
// Invocations: outer * inner.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, axis_size, inner, count; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  const int base = (i / p.inner) * p.axis_size * p.inner + i % p.inner;
  float m = uintBitsToFloat(0xff800000u);
  for (int k = 0; k < p.axis_size; ++k) m = max(m, LD(x, p.x_off + base + k * p.inner));
  float sum = 0.0;
  for (int k = 0; k < p.axis_size; ++k) sum += exp(LD(x, p.x_off + base + k * p.inner) - m);
  for (int k = 0; k < p.axis_size; ++k) {
    ST(y, p.y_off + base + k * p.inner, exp(LD(x, p.x_off + base + k * p.inner) - m) / sum);
  }
}
