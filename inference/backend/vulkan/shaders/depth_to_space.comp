#version 450
// DEPTH_TO_SPACE (TFLite's DCR order). Invocations: output elements.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, in_h, in_w, in_c, block, count; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  const int out_c = p.in_c / (p.block * p.block), out_h = p.in_h * p.block, out_w = p.in_w * p.block;
  const int c = i % out_c;
  const int ox = (i / out_c) % out_w;
  const int ny = i / (out_c * out_w);
  const int n = ny / out_h, oy = ny % out_h;
  const int iy = oy / p.block, dy = oy % p.block, ix = ox / p.block, dx = ox % p.block;
  ST(y, p.y_off + i, LD(x, p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.in_c + (dy * p.block + dx) * out_c + c));
}
