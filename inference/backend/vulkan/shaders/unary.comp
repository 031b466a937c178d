#version 450
// One-input activations: op 0 relu, 1 relu6, 2 hard_swish, 3 logistic,
// 4 leaky_relu(alpha), 5 clamp(alpha, beta), 6 hard_sigmoid(alpha, beta),
// 7 silu. Invocations: elements.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P { int x_off, y_off, op; float alpha, beta; int count; } p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  const float v = LD(x, p.x_off + i);
  float r;
  if (p.op == 0) r = max(v, 0.0);
  else if (p.op == 1) r = clamp(v, 0.0, 6.0);
  else if (p.op == 2) r = v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
  else if (p.op == 3) r = 1.0 / (1.0 + exp(-v));
  else if (p.op == 4) r = v >= 0.0 ? v : p.alpha * v;
  else if (p.op == 5) r = min(max(v, p.alpha), p.beta);
  else if (p.op == 6) r = max(0.0, min(1.0, p.alpha * v + p.beta));
  else r = v / (1.0 + exp(-v));
  ST(y, p.y_off + i, r);
}
