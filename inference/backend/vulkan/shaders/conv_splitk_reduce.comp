#version 450
// Adds up conv_gemm's split sums and finishes (bias, residual, activation).
// Invocations: out_c * M.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer S { float partial[]; };
layout(std430, binding = 1) readonly buffer B { REAL bias[]; };
layout(std430, binding = 2) readonly buffer R { REAL res[]; };
layout(std430, binding = 3) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int partial_off, splits, res_off, res_c, y_off, out_c, M, act, y_stride; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.out_c * p.M) return;
  const int c = i % p.out_c, m = i / p.out_c;
  float v = LD(bias, c);
  for (int z = 0; z < p.splits; ++z) v += partial[p.partial_off + (z * p.M + m) * p.out_c + c];
  if (c < p.res_c) v += LD(res, p.res_off + m * p.res_c + c);
  ST(y, p.y_off + m * p.y_stride + c, Activate(v, p.act));
}
