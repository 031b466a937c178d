#version 450
// CONV_2D, any kernel, stride, dilation, groups: four output channels per
// invocation (filter packed [out_c/4][kh][kw][in_c/groups][4], zero-padded).
// A fused residual adds its first res_c channels before the activation;
// outputs are written y_stride elements apart per pixel (a channel slice of
// an elided concatenation). Invocations: ceil(out_c/4) * out_w * batch * out_h.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) readonly buffer W { REAL w[]; };
layout(std430, binding = 2) readonly buffer B { REAL bias[]; };
layout(std430, binding = 3) readonly buffer R { REAL res[]; };
layout(std430, binding = 4) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P {
  int x_off, res_off, res_c, y_off, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, sh, sw, dh, dw, pt, pl, groups,
      act, y_stride, batch;
} p;

void main() {
  const int oc4s = (p.out_c + 3) / 4;
  const int i = int(Gid());
  if (i >= oc4s * p.out_w * p.batch * p.out_h) return;
  const int oc4 = i % oc4s;
  const int ox = (i / oc4s) % p.out_w;
  const int ny = i / (oc4s * p.out_w);
  const int n = ny / p.out_h, oy = ny % p.out_h;
  const int icg = p.in_c / p.groups, ocg = p.out_c / p.groups;
  const int oc = oc4 * 4;
  int g[4];
  for (int j = 0; j < 4; ++j) g[j] = min(oc + j, p.out_c - 1) / ocg;
  vec4 acc = vec4(0.0);
  int wp = oc4 * p.kh * p.kw * icg * 4;
  for (int ky = 0; ky < p.kh; ++ky) {
    const int iy = oy * p.sh - p.pt + ky * p.dh;
    if (iy < 0 || iy >= p.in_h) {
      wp += p.kw * icg * 4;
      continue;
    }
    for (int kx = 0; kx < p.kw; ++kx) {
      const int ix = ox * p.sw - p.pl + kx * p.dw;
      if (ix < 0 || ix >= p.in_w) {
        wp += icg * 4;
        continue;
      }
      const int xp = p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.in_c;
      if (g[0] == g[3]) {
        const int xg = xp + g[0] * icg;
        for (int ic = 0; ic < icg; ++ic) {
          const float v = LD(x, xg + ic);
          const int q = wp + ic * 4;
          acc += v * vec4(LD(w, q), LD(w, q + 1), LD(w, q + 2), LD(w, q + 3));
        }
      } else {
        for (int ic = 0; ic < icg; ++ic) {
          const int q = wp + ic * 4;
          acc.x += LD(x, xp + g[0] * icg + ic) * LD(w, q);
          acc.y += LD(x, xp + g[1] * icg + ic) * LD(w, q + 1);
          acc.z += LD(x, xp + g[2] * icg + ic) * LD(w, q + 2);
          acc.w += LD(x, xp + g[3] * icg + ic) * LD(w, q + 3);
        }
      }
      wp += icg * 4;
    }
  }
  const int o = (n * p.out_h + oy) * p.out_w + ox;
  const int yp = p.y_off + o * p.y_stride;
  for (int j = 0; j < 4 && oc + j < p.out_c; ++j) {
    float v = acc[j] + LD(bias, oc + j);
    if (oc + j < p.res_c) v += LD(res, p.res_off + o * p.res_c + oc + j);
    ST(y, yp + oc + j, Activate(v, p.act));
  }
}
