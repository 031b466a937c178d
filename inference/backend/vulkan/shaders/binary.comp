#version 450
// ADD, SUB, MUL, DIV, PRELU with numpy broadcasting: the output's dims and
// each operand's strides (0 where broadcast), the rank padded to 6.
// Invocations: output elements.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer A { REAL a[]; };
layout(std430, binding = 1) readonly buffer Bv { REAL b[]; };
layout(std430, binding = 2) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int a_off, b_off, y_off, op, act, count; int dims[6], as_[6], bs_[6]; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  const float u = LD(a, p.a_off + Offset6(i, p.dims, p.as_));
  const float v = LD(b, p.b_off + Offset6(i, p.dims, p.bs_));
  float r;
  if (p.op == 0) r = u + v;
  else if (p.op == 1) r = u - v;
  else if (p.op == 2) r = u * v;
  else if (p.op == 3) r = u / v;
  else r = u >= 0.0 ? u : u * v;  // PRELU
  ST(y, p.y_off + i, Activate(r, p.act));
}
