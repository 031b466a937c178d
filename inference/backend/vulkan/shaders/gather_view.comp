#version 450
// A strided view copied out (TRANSPOSE, SLICE, PAD, RESHAPE's copies):
// output index i reads input start + Offset6(i, dims, strides). With `pad`,
// `before` holds the pad before each dim and `in_dims` the input's dims:
// outputs outside the input get `value`. Invocations: outputs.
#include "common.glsl"
RILL_ELEMENTWISE
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) writeonly buffer Y { REAL y[]; };
layout(push_constant) uniform P {
  int x_off, y_off, start, pad; float value; int count; int dims[6], strides[6], before[6], in_dims[6];
} p;

void main() {
  const int i = int(Gid());
  if (i >= p.count) return;
  if (p.pad == 0) {
    ST(y, p.y_off + i, LD(x, p.x_off + p.start + Offset6(i, p.dims, p.strides)));
    return;
  }
  int rest = i, off = 0;
  bool inside = true;
  for (int d = 5; d >= 0; --d) {
    const int k = rest % p.dims[d] - p.before[d];
    rest /= p.dims[d];
    inside = inside && k >= 0 && k < p.in_dims[d];
    off += k * p.strides[d];
  }
  ST(y, p.y_off + i, inside ? LD(x, p.x_off + off) : p.value);
}
