#version 450
// MEAN over any axes: the kept dims and their input strides, the reduced
// dims and their input strides (6-D, unused dims 1). Invocations: outputs.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, reduced, count; int kd[6], ks[6], rd[6], rs[6]; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  const int base = p.x_off + Offset6(i, p.kd, p.ks);
  float acc = 0.0;
  for (int r = 0; r < p.reduced; ++r) acc += LD(x, base + Offset6(r, p.rd, p.rs));
  ST(y, p.y_off + i, acc / float(p.reduced));
}
