#version 450
// CONV_2D without groups as an implicit GEMM: M = output pixels, N = output
// channels, K = kh * kw * in_c. A 16x16 work group computes a TM x TN tile
// (specialization constants 0 and 1: 32 or 64 each, tuned per device),
// (TM/16) x (TN/16) per invocation (pixels ty + 16i, channels tx + 16j:
// stores are coalesced along channels), staging 16-deep slices of the
// input patches and of the filter (packed [K][out_c]) in shared memory.
// Split over K: group z sums [z * k_chunk, ...) and, with splits > 1,
// writes raw sums to `partial` [z][M][out_c] for conv_splitk_reduce.
// Groups: (ceil(out_c/TN), ceil(M/TM), splits).
// DW (specialization constant 2) = 1: the fused depthwise block's
// depthwise and project convs in one dispatch. A[m][k] is then the
// depthwise conv of channel k at output pixel m (window kh x kw, strides,
// dilations and pads of the push constants; its weights [kh][kw][in_c] and
// bias in bindings 6 and 7, its activation in act's bits 8 and up), K =
// in_c, and W the 1x1 project filter: the depthwise output never reaches
// memory. Computed per tile of TN output channels, once per column of
// work groups.
#include "common.glsl"
layout(local_size_x = 16, local_size_y = 16) in;
layout(constant_id = 0) const int TM = 64;
layout(constant_id = 1) const int TN = 64;
layout(constant_id = 2) const int DW = 0;
const int TK = 16;
layout(std430, binding = 0) readonly buffer X { REAL x[]; };
layout(std430, binding = 1) readonly buffer W { REAL w[]; };
layout(std430, binding = 2) readonly buffer B { REAL bias[]; };
layout(std430, binding = 3) readonly buffer R { REAL res[]; };
layout(std430, binding = 4) writeonly buffer Y { REAL y[]; };
layout(std430, binding = 5) writeonly buffer S { float partial[]; };
layout(std430, binding = 6) readonly buffer DWW { REAL dw_w[]; };
layout(std430, binding = 7) readonly buffer DWB { REAL dw_b[]; };
layout(push_constant) uniform P {
  int x_off, res_off, res_c, y_off, batch, in_h, in_w, in_c, out_h, out_w, out_c, kh, kw, sh, sw, dh, dw, pt, pl,
      act, k_chunk, splits, partial_off, y_stride;
} p;

#if RILL_VARIANT == 2
#define TILE_T float16_t
#else
#define TILE_T float
#endif
shared TILE_T as[TK * TM];
shared TILE_T bs[TK * TN];

void main() {
  const int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  const int lid = ty * 16 + tx;
  const int n0 = int(gl_WorkGroupID.x) * TN, m0 = int(gl_WorkGroupID.y) * TM;
  const int hw = p.out_h * p.out_w;
  const int M = p.batch * hw, K_all = DW != 0 ? p.in_c : p.kh * p.kw * p.in_c;
  const int k_begin = int(gl_WorkGroupID.z) * p.k_chunk;
  const int K = min(K_all, k_begin + p.k_chunk);
  float acc[TM / 16][TN / 16];
  for (int i = 0; i < TM / 16; ++i)
    for (int j = 0; j < TN / 16; ++j) acc[i][j] = 0.0;
  for (int k0 = k_begin; k0 < K; k0 += TK) {
    // Patches: consecutive invocations take consecutive k (channels of one pixel).
    for (int e = lid; e < TK * TM; e += 256) {
      const int kk = e % TK, mm = e / TK;
      const int m = m0 + mm, k = k0 + kk;
      float v = 0.0;
      if (m < M && k < K) {
        const int n = m / hw, q = m % hw;
        const int oy = q / p.out_w, ox = q % p.out_w;
        if (DW != 0) {
          float s = LD(dw_b, k);
          for (int ky = 0; ky < p.kh; ++ky) {
            const int iy = oy * p.sh - p.pt + ky * p.dh;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int kx = 0; kx < p.kw; ++kx) {
              const int ix = ox * p.sw - p.pl + kx * p.dw;
              if (ix < 0 || ix >= p.in_w) continue;
              s += LD(x, p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.in_c + k) * LD(dw_w, (ky * p.kw + kx) * p.in_c + k);
            }
          }
          v = Activate(s, p.act >> 8);
        } else {
          const int t = k / p.in_c, ic = k % p.in_c;
          const int iy = oy * p.sh - p.pt + (t / p.kw) * p.dh, ix = ox * p.sw - p.pl + (t % p.kw) * p.dw;
          if (iy >= 0 && iy < p.in_h && ix >= 0 && ix < p.in_w) v = LD(x, p.x_off + ((n * p.in_h + iy) * p.in_w + ix) * p.in_c + ic);
        }
      }
      as[kk * TM + mm] = TILE_T(v);
    }
    // Filter: consecutive invocations take consecutive output channels.
    for (int e = lid; e < TK * TN; e += 256) {
      const int nn = e % TN, kb = e / TN;
      const int kf = k0 + kb, c = n0 + nn;
      bs[kb * TN + nn] = TILE_T((kf < K && c < p.out_c) ? LD(w, kf * p.out_c + c) : 0.0);
    }
    barrier();
    for (int kk = 0; kk < TK; ++kk) {
      TILE_T a[TM / 16], b[TN / 16];
      for (int i = 0; i < TM / 16; ++i) a[i] = as[kk * TM + ty + 16 * i];
      for (int j = 0; j < TN / 16; ++j) b[j] = bs[kk * TN + tx + 16 * j];
      for (int i = 0; i < TM / 16; ++i)
        for (int j = 0; j < TN / 16; ++j) acc[i][j] += float(a[i] * b[j]);
    }
    barrier();
  }
  for (int i = 0; i < TM / 16; ++i) {
    const int m = m0 + ty + 16 * i;
    if (m >= M) continue;
    for (int j = 0; j < TN / 16; ++j) {
      const int c = n0 + tx + 16 * j;
      if (c >= p.out_c) continue;
      if (p.splits > 1) {
        partial[p.partial_off + (int(gl_WorkGroupID.z) * M + m) * p.out_c + c] = acc[i][j];
        continue;
      }
      float v = acc[i][j] + LD(bias, c);
      if (c < p.res_c) v += LD(res, p.res_off + m * p.res_c + c);
      ST(y, p.y_off + m * p.y_stride + c, Activate(v, p.act & 255));
    }
  }
}
