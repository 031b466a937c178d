#version 450
// One input of a CONCATENATION into its slice of the output: `outer` rows
// of `chunk` elements written `stride` apart from `offset`.
// Invocations: outer * chunk.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, chunk, stride, offset, act, count; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  const int row = i / p.chunk, k = i % p.chunk;
  ST(y, p.y_off + row * p.stride + p.offset + k, Activate(LD(x, p.x_off + i), p.act));
}
