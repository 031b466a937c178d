#version 450
// MEAN over many elements per output (a global average pool): one work
// group of 64 per output, each invocation summing a strided share, then a
// tree in shared memory. Same push constants as mean.comp.
// Groups: outputs (over x, then y).
#include "common.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, reduced, count; int kd[6], ks[6], rd[6], rs[6]; } p;
shared float partial[64];

void main() {
  const int i = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  const int lid = int(gl_LocalInvocationID.x);
  float acc = 0.0;
  if (i < p.count) {
    const int base = p.x_off + Offset6(i, p.kd, p.ks);
    for (int r = lid; r < p.reduced; r += 64) acc += LD(x, base + Offset6(r, p.rd, p.rs));
  }
  partial[lid] = acc;
  barrier();
  for (int s = 32; s > 0; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    barrier();
  }
  if (lid == 0 && i < p.count) ST(y, p.y_off + i, partial[0] / float(p.reduced));
}
