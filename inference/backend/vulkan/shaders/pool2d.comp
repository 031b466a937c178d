#version 450
// MAX_POOL_2D (is_max) and AVERAGE_POOL_2D (the mean of the window's taps
// inside the input). Invocations: channels * out_w * batch * out_h.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P {
  int x_off, y_off, in_h, in_w, channels, out_h, out_w, kh, kw, sh, sw, pt, pl, is_max, act, batch;
} p;

void main() {
  const int i = int(Gid());
  if (i >= p.channels * p.out_w * p.batch * p.out_h) return;
  const int c = i % p.channels;
  const int ox = (i / p.channels) % p.out_w;
  const int ny = i / (p.channels * p.out_w);
  const int n = ny / p.out_h, oy = ny % p.out_h;
  const int y0 = max(oy * p.sh - p.pt, 0), y1 = min(oy * p.sh - p.pt + p.kh, p.in_h);
  const int x0 = max(ox * p.sw - p.pl, 0), x1 = min(ox * p.sw - p.pl + p.kw, p.in_w);
  float acc = p.is_max != 0 ? uintBitsToFloat(0xff800000u) : 0.0;
  int count = 0;
  for (int iy = y0; iy < y1; ++iy) {
    for (int ix = x0; ix < x1; ++ix) {
      const float v = LD(x, p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.channels + c);
      acc = p.is_max != 0 ? max(acc, v) : acc + v;
      ++count;
    }
  }
  if (p.is_max == 0) acc = count > 0 ? acc / float(count) : 0.0;
  ST(y, p.y_off + i, Activate(acc, p.act));
}
