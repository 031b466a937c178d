#version 450
// FULLY_CONNECTED: y[r][o] = x[r] . w[:, o] + b[o], weights packed
// [in_dim][units] (neighbouring invocations read neighbouring weights).
// Invocations: units * rows.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) readonly buffer W { REAL w[]; };
layout(std430, binding = 2) readonly buffer B { REAL bias[]; };
layout(std430, binding = 3) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, in_dim, units, act, rows; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.units * p.rows) return;
  const int o = i % p.units, r = i / p.units;
  const int xp = p.x_off + r * p.in_dim;
  float acc = LD(bias, o);
  for (int k = 0; k < p.in_dim; ++k) acc += LD(x, xp + k) * LD(w, k * p.units + o);
  ST(y, p.y_off + i, Activate(acc, p.act));
}
