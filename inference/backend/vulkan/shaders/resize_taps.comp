#version 450
// Resize by per-axis tap tables (computed on the host by the reference
// kernels' coordinate rules): output row oy reads rows[oy*taps+t] with
// weight rw[oy*taps+t] (-1: outside the input, the output is `outside`).
// Bilinear: 2 taps, nearest: 1. Invocations: channels * out_w * batch * out_h.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(std430, binding = 2) readonly buffer Rows { int rows[]; };
layout(std430, binding = 3) readonly buffer Rw { float rw[]; };
layout(std430, binding = 4) readonly buffer Cols { int cols[]; };
layout(std430, binding = 5) readonly buffer Cw { float cw[]; };
layout(push_constant) uniform P { int x_off, y_off, taps, in_h, in_w, channels, out_h, out_w; float outside; int batch; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.channels * p.out_w * p.batch * p.out_h) return;
  const int c = i % p.channels;
  const int ox = (i / p.channels) % p.out_w;
  const int ny = i / (p.channels * p.out_w);
  const int n = ny / p.out_h, oy = ny % p.out_h;
  float acc = 0.0;
  bool out_ = false;
  for (int ty = 0; ty < p.taps; ++ty) {
    const int iy = rows[oy * p.taps + ty];
    out_ = out_ || iy < 0;
    float row = 0.0;
    for (int tx = 0; tx < p.taps; ++tx) {
      const int ix = cols[ox * p.taps + tx];
      out_ = out_ || ix < 0;
      if (iy >= 0 && ix >= 0) row += cw[ox * p.taps + tx] * LD(x, p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.channels + c);
    }
    acc += rw[oy * p.taps + ty] * row;
  }
  ST(y, p.y_off + i, out_ ? p.outside : acc);
}
