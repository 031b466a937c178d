// Shared by Rill's compute shaders. Tensors are NHWC in storage buffers
// bound whole; every tensor argument is a binding plus an element offset
// (the session's arena). REAL is the storage type: float (RILL_VARIANT 0),
// or float16_t (1: VK_KHR_16bit_storage; 2: also shaderFloat16, which the
// GEMM uses for its tiles and products). Arithmetic is float unless a shader
// says otherwise. LD / ST read and write storage as float.
#if RILL_VARIANT >= 1
#extension GL_EXT_shader_16bit_storage : require
#define REAL float16_t
#else
#define REAL float
#endif
#if RILL_VARIANT == 2
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#define LD(buf, i) float(buf[i])
#define ST(buf, i, v) buf[i] = REAL(v)

// Element-wise shaders: 64 invocations per group, groups over x then y
// (the host splits a count above maxComputeWorkGroupCount[0] into rows).
#define RILL_ELEMENTWISE layout(local_size_x = 64) in;
uint Gid() { return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x; }

// Fused activations (ir::Activation order): none, relu, relu_n1_to_1,
// relu6, tanh.
float Activate(float v, int act) {
  if (act == 1) return max(v, 0.0);
  if (act == 2) return clamp(v, -1.0, 1.0);
  if (act == 3) return clamp(v, 0.0, 6.0);
  if (act == 4) return tanh(v);
  return v;
}

// Offset of output index i (dims outermost first) under strides, 6-D.
int Offset6(int i, int dims[6], int strides[6]) {
  int off = 0;
  for (int d = 5; d >= 0; --d) {
    const int k = i % dims[d];
    i /= dims[d];
    off += k * strides[d];
  }
  return off;
}
