#version 450
// DEPTHWISE_CONV_2D: filter [kh][kw][out_c]; output channel c reads input
// channel c / multiplier. Invocations: out_c * out_w * batch * out_h.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) readonly buffer W { REAL w[]; };
layout(std430, binding = 2) readonly buffer B { REAL bias[]; };
layout(std430, binding = 3) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P {
  int x_off, y_off, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, sh, sw, dh, dw, pt, pl, multiplier, act, batch;
} p;

void main() {
  const int i = int(Gid());
  if (i >= p.out_c * p.out_w * p.batch * p.out_h) return;
  const int c = i % p.out_c;
  const int ox = (i / p.out_c) % p.out_w;
  const int ny = i / (p.out_c * p.out_w);
  const int n = ny / p.out_h, oy = ny % p.out_h;
  const int ic = c / p.multiplier;
  float acc = LD(bias, c);
  for (int ky = 0; ky < p.kh; ++ky) {
    const int iy = oy * p.sh - p.pt + ky * p.dh;
    if (iy < 0 || iy >= p.in_h) continue;
    for (int kx = 0; kx < p.kw; ++kx) {
      const int ix = ox * p.sw - p.pl + kx * p.dw;
      if (ix < 0 || ix >= p.in_w) continue;
      acc += LD(x, p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.in_c + ic) * LD(w, (ky * p.kw + kx) * p.out_c + c);
    }
  }
  ST(y, p.y_off + i, Activate(acc, p.act));
}
