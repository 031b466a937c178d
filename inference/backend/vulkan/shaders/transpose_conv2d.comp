#version 450
// TRANSPOSE_CONV_2D: each output gathers the input pixels whose taps land
// on it. Filter [out_c][kh][kw][in_c/groups].
// Invocations: out_c * out_w * batch * out_h.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) readonly buffer W { REAL w[]; };
layout(std430, binding = 2) readonly buffer B { REAL bias[]; };
layout(std430, binding = 3) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P {
  int x_off, y_off, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, sh, sw, pt, pl, groups, act, batch;
} p;

void main() {
  const int i = int(Gid());
  if (i >= p.out_c * p.out_w * p.batch * p.out_h) return;
  const int oc = i % p.out_c;
  const int ox = (i / p.out_c) % p.out_w;
  const int ny = i / (p.out_c * p.out_w);
  const int n = ny / p.out_h, oy = ny % p.out_h;
  const int icg = p.in_c / p.groups, ocg = p.out_c / p.groups;
  const int g = oc / ocg;
  float acc = 0.0;
  for (int ky = 0; ky < p.kh; ++ky) {
    const int ty = oy + p.pt - ky;
    if (ty < 0 || ty % p.sh != 0) continue;
    const int iy = ty / p.sh;
    if (iy >= p.in_h) continue;
    for (int kx = 0; kx < p.kw; ++kx) {
      const int tx = ox + p.pl - kx;
      if (tx < 0 || tx % p.sw != 0) continue;
      const int ix = tx / p.sw;
      if (ix >= p.in_w) continue;
      const int xp = p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.in_c + g * icg;
      const int wp = ((oc * p.kh + ky) * p.kw + kx) * icg;
      for (int ic = 0; ic < icg; ++ic) acc += LD(x, xp + ic) * LD(w, wp + ic);
    }
  }
  ST(y, p.y_off + i, Activate(acc + LD(bias, oc), p.act));
}
