// Rill's OpenCL kernels. Tensors are NHWC in buffers, or NC4HW4 where the
// backend blocks them (the "NC4HW4" kernels below); every tensor argument
// is a buffer plus an element offset into it (the session's arena). REAL is
// the storage type: float, or half with -DRILL_HALF (the backend's fp16
// mode: half the bytes of activations and weights); arithmetic is float
// either way. Half storage goes through vload_half / vstore_half, which are
// core OpenCL 1.2: no cl_khr_fp16 needed. LD / ST / LD4 read and write
// storage as float; weights are converted to REAL when they are uploaded.
#ifdef RILL_HALF
typedef half REAL;
#define LD(p, i) vload_half((i), (p))
#define ST(v, p, i) vstore_half_rte((v), (i), (p))
#define LD4(i, p) vload_half4((i), (p))
#define ST4(v, i, p) vstore_half4_rte((v), (i), (p))
#else
typedef float REAL;
#define LD(p, i) ((p)[i])
#define ST(v, p, i) ((p)[i] = (v))
#define LD4(i, p) vload4((i), (p))
#define ST4(v, i, p) vstore4((v), (i), (p))
#endif

// Fused activations (ir::Activation order): none, relu, relu_n1_to_1,
// relu6, tanh.
inline float Activate(float v, int act) {
  switch (act) {
    case 1: return fmax(v, 0.0f);
    case 2: return fmin(fmax(v, -1.0f), 1.0f);
    case 3: return fmin(fmax(v, 0.0f), 6.0f);
    case 4: return tanh(v);
  }
  return v;
}
inline float4 Activate4(float4 v, int act) {
  switch (act) {
    case 1: return fmax(v, (float4)(0.0f));
    case 2: return clamp(v, -1.0f, 1.0f);
    case 3: return clamp(v, 0.0f, 6.0f);
    case 4: return tanh(v);
  }
  return v;
}

// Convs write output pixels `y_stride` elements apart (out_c: dense; more:
// a channel slice of a concatenation the memory planner elided).
// CONV_2D, any kernel, stride, dilation, groups. Four output channels per
// work item (the filter is repacked to [out_c/4][kh][kw][in_c/groups][4],
// zero-padded), so one float4 load gives four channels' weights for one
// input value. A fused residual adds its first res_c channels before the
// activation. Global: (ceil(out_c/4), out_w, batch * out_h).
__kernel void conv2d(__global const REAL* x, int x_off, __global const REAL* w, __global const REAL* bias,
                     __global const REAL* res, int res_off, int res_c, __global REAL* y, int y_off, int in_h,
                     int in_w, int in_c, int out_h, int out_w, int out_c, int kh, int kw, int sh, int sw, int dh,
                     int dw, int pt, int pl, int groups, int act, int y_stride) {
  const int oc4 = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  if (oc4 * 4 >= out_c) return;
  const int n = ny / out_h, oy = ny % out_h;
  const int icg = in_c / groups, ocg = out_c / groups;
  const int oc = oc4 * 4;
  float4 acc = (float4)(0.0f);
  // The four channels may straddle groups only when ocg is not a multiple
  // of 4; then each lane reads its own group's inputs.
  const int g0 = oc / ocg;
  const int g3 = min(oc + 3, out_c - 1) / ocg;
  __global const REAL* wp = w + (long)oc4 * kh * kw * icg * 4;
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = oy * sh - pt + ky * dh;
    if (iy < 0 || iy >= in_h) {
      wp += kw * icg * 4;
      continue;
    }
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = ox * sw - pl + kx * dw;
      if (ix < 0 || ix >= in_w) {
        wp += icg * 4;
        continue;
      }
      __global const REAL* xp = x + x_off + (((long)n * in_h + iy) * in_w + ix) * in_c;
      if (g0 == g3) {
        __global const REAL* xg = xp + g0 * icg;
        for (int ic = 0; ic < icg; ++ic) {
          const float v = LD(xg, ic);
          acc += v * LD4(ic, wp);
        }
      } else {
        for (int ic = 0; ic < icg; ++ic) {
          const float4 wv = LD4(ic, wp);
          acc.s0 += LD(xp, (oc / ocg) * icg + ic) * wv.s0;
          acc.s1 += LD(xp, (min(oc + 1, out_c - 1) / ocg) * icg + ic) * wv.s1;
          acc.s2 += LD(xp, (min(oc + 2, out_c - 1) / ocg) * icg + ic) * wv.s2;
          acc.s3 += LD(xp, (min(oc + 3, out_c - 1) / ocg) * icg + ic) * wv.s3;
        }
      }
      wp += icg * 4;
    }
  }
  const long o = (((long)n * out_h + oy) * out_w + ox);
  __global REAL* yp = y + y_off + o * y_stride;
  float r[4] = {acc.s0, acc.s1, acc.s2, acc.s3};
  for (int i = 0; i < 4 && oc + i < out_c; ++i) {
    float v = r[i] + LD(bias, oc + i);
    if (oc + i < res_c) v += LD(res, res_off + o * res_c + oc + i);
    ST(Activate(v, act), yp, oc + i);
  }
}

// CONV_2D without groups as an implicit GEMM: M = output pixels, N =
// output channels, K = kh * kw * in_c. A work group of 16x16 items computes
// a 64x64 tile, 4x4 per item (pixels ty + 16i, channels tx + 16j, so stores
// are coalesced along channels), staging 16-deep slices of the input
// patches and of the filter (packed [K][out_c]) in local memory. Global:
// (ceil(out_c/64) * 16, ceil(M/64) * 16), local (16, 16).
// `narrow_n` > 0: two convs of one input in one launch (the backend's
// paired 1x1 and kxk convs, e.g. a SqueezeNet fire module's expands).
#define TILE 64
#define TILE_K 16
// One staged TILE_K slice's products into an item's 4x4 sums (pixels
// ty + 16i, channels tx + 16j); shared by conv2d_tiled and winograd_gemm.
inline void TileProducts(__local float (*as)[TILE], __local float (*bs)[TILE], int tx, int ty, float acc[4][4]) {
  for (int kk = 0; kk < TILE_K; ++kk) {
    float a[4], b[4];
    for (int i = 0; i < 4; ++i) a[i] = as[kk][ty + 16 * i];
    for (int j = 0; j < 4; ++j) b[j] = bs[kk][tx + 16 * j];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) acc[i][j] = mad(a[i], b[j], acc[i][j]);
  }
}
// Split over K (layers with few output tiles, e.g. 7x7x512: too few work
// groups to fill the device): group z sums K range [z * k_chunk, ...) and,
// with splits > 1, writes its raw sums to `partial` [z][M][out_c] for
// conv_splitk_reduce to add up and finish.
__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void conv2d_tiled(
    __global const REAL* x, int x_off, __global const REAL* w, __global const REAL* bias, __global const REAL* res,
    int res_off, int res_c, __global REAL* y, int y_off, int batch, int in_h, int in_w, int in_c, int out_h, int out_w,
    int out_c, int kh, int kw, int sh, int sw, int dh, int dw, int pt, int pl, int act, int k_chunk, int splits,
    __global float* partial, int partial_off, int y_stride, int narrow_n) {
  __local float as[TILE_K][TILE];
  __local float bs[TILE_K][TILE];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * 16 + tx;
  const int n0 = get_group_id(0) * TILE, m0 = get_group_id(1) * TILE;
  const int hw = out_h * out_w;
  const int M = batch * hw, K_all = kh * kw * in_c;
  int k_begin = get_group_id(2) * k_chunk;
  int K = min(K_all, k_begin + k_chunk);
  // A 1x1 conv paired with this one (its output channels first, narrow_n
  // of them, a multiple of TILE): its filter is the centre tap of the
  // packed filter, so its tiles sum only the centre tap's range of K.
  if (n0 < narrow_n) {
    const int centre = (kh / 2) * kw + kw / 2;
    k_begin = max(k_begin, centre * in_c);
    K = min(K, (centre + 1) * in_c);
  }
  float acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  for (int k0 = k_begin; k0 < K; k0 += TILE_K) {
    for (int r = 0; r < 4; ++r) {
      // Patches: consecutive items take consecutive k (channels of one pixel).
      const int e = lid + 256 * r;
      const int kk = e % TILE_K, mm = e / TILE_K;
      const int m = m0 + mm, k = k0 + kk;
      float v = 0.0f;
      if (m < M && k < K) {
        const int n = m / hw, p = m % hw;
        const int oy = p / out_w, ox = p % out_w;
        const int t = k / in_c, ic = k % in_c;
        const int iy = oy * sh - pt + (t / kw) * dh, ix = ox * sw - pl + (t % kw) * dw;
        if (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w) {
          v = LD(x, x_off + (((long)n * in_h + iy) * in_w + ix) * in_c + ic);
        }
      }
      as[kk][mm] = v;
      // Filter: consecutive items take consecutive output channels.
      const int nn = e % TILE, kb = e / TILE;
      const int kf = k0 + kb, c = n0 + nn;
      bs[kb][nn] = (kf < K && c < out_c) ? LD(w, (long)kf * out_c + c) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    TileProducts(as, bs, tx, ty, acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < 4; ++i) {
    const int m = m0 + ty + 16 * i;
    if (m >= M) continue;
    for (int j = 0; j < 4; ++j) {
      const int c = n0 + tx + 16 * j;
      if (c >= out_c) continue;
      if (splits > 1) {
        partial[partial_off + ((long)get_group_id(2) * M + m) * out_c + c] = acc[i][j];
        continue;
      }
      float v = acc[i][j] + LD(bias, c);
      if (c < res_c) v += LD(res, res_off + (long)m * res_c + c);
      ST(Activate(v, act), y, y_off + (long)m * y_stride + c);
    }
  }
}

// --- Winograd F(2x2, 3x3) ---------------------------------------------------
// A 3x3 stride-1 conv as 16 GEMMs over 2x2 output tiles (2.25x fewer MACs):
// winograd_input writes each tile's transformed 4x4 input patch
// (B^T d B) to v [16][tiles][in_c] (float scratch), winograd_gemm multiplies
// each of the 16 by the transformed filter u [16][in_c][out_c] (G g G^T,
// computed on the host) into m [16][tiles][out_c], winograd_output
// transforms back (A^T m A) and adds bias and residual, activates and
// writes the tile's output pixels. Tiles: batch x ceil(out_h/2) x
// ceil(out_w/2).
// Global: (in_c, tiles).
__kernel void winograd_input(__global const REAL* x, int x_off, __global float* v, int v_off, int in_h, int in_w,
                             int in_c, int tiles_h, int tiles_w, int pt, int pl) {
  const int c = get_global_id(0), t = get_global_id(1);
  const int tiles = get_global_size(1);
  const int n = t / (tiles_h * tiles_w), r = t % (tiles_h * tiles_w);
  const int y0 = (r / tiles_w) * 2 - pt, x0 = (r % tiles_w) * 2 - pl;
  float d[4][4];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const int iy = y0 + i, ix = x0 + j;
      d[i][j] = (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w)
                    ? LD(x, x_off + (((long)n * in_h + iy) * in_w + ix) * in_c + c)
                    : 0.0f;
    }
  }
  // B^T d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3; then the same on columns.
  float b[4][4];
  for (int j = 0; j < 4; ++j) {
    b[0][j] = d[0][j] - d[2][j];
    b[1][j] = d[1][j] + d[2][j];
    b[2][j] = d[2][j] - d[1][j];
    b[3][j] = d[1][j] - d[3][j];
  }
  __global float* vp = v + v_off + (long)t * in_c + c;
  const long plane = (long)tiles * in_c;
  for (int i = 0; i < 4; ++i) {
    vp[(i * 4 + 0) * plane] = b[i][0] - b[i][2];
    vp[(i * 4 + 1) * plane] = b[i][1] + b[i][2];
    vp[(i * 4 + 2) * plane] = b[i][2] - b[i][1];
    vp[(i * 4 + 3) * plane] = b[i][1] - b[i][3];
  }
}

// The 16 GEMMs: m[z] = v[z] (tiles x in_c) * u[z] (in_c x out_c), z the
// group's third index; conv2d_tiled's 64x64 tiles and 16x16 items.
// Global: (ceil(out_c/64) * 16, ceil(tiles/64) * 16, 16), local (16, 16, 1).
__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void winograd_gemm(
    __global const float* v, int v_off, __global const REAL* u, __global float* m, int m_off, int tiles, int in_c,
    int out_c) {
  __local float as[TILE_K][TILE];
  __local float bs[TILE_K][TILE];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * 16 + tx;
  const int n0 = get_group_id(0) * TILE, m0 = get_group_id(1) * TILE, z = get_group_id(2);
  __global const float* vz = v + v_off + (long)z * tiles * in_c;
  __global const REAL* uz = u + (long)z * in_c * out_c;
  float acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  for (int k0 = 0; k0 < in_c; k0 += TILE_K) {
    for (int r = 0; r < 4; ++r) {
      const int e = lid + 256 * r;
      const int kk = e % TILE_K, mm = e / TILE_K;
      const int row = m0 + mm, k = k0 + kk;
      as[kk][mm] = (row < tiles && k < in_c) ? vz[(long)row * in_c + k] : 0.0f;
      const int nn = e % TILE, kb = e / TILE;
      const int kf = k0 + kb, c = n0 + nn;
      bs[kb][nn] = (kf < in_c && c < out_c) ? LD(uz, (long)kf * out_c + c) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    TileProducts(as, bs, tx, ty, acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  __global float* mz = m + m_off + (long)z * tiles * out_c;
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + ty + 16 * i;
    if (row >= tiles) continue;
    for (int j = 0; j < 4; ++j) {
      const int c = n0 + tx + 16 * j;
      if (c < out_c) mz[(long)row * out_c + c] = acc[i][j];
    }
  }
}

// A^T m A per tile and output channel: rows m0 + m1 + m2, m1 - m2 - m3;
// then bias, the residual's first res_c channels, the activation. Output
// pixels y_stride apart. Global: (out_c, tiles).
__kernel void winograd_output(__global const float* m, int m_off, __global const REAL* bias, __global const REAL* res,
                              int res_off, int res_c, __global REAL* y, int y_off, int out_h, int out_w, int out_c,
                              int tiles_h, int tiles_w, int act, int y_stride) {
  const int c = get_global_id(0), t = get_global_id(1);
  const int tiles = get_global_size(1);
  const int n = t / (tiles_h * tiles_w), r = t % (tiles_h * tiles_w);
  const int oy0 = (r / tiles_w) * 2, ox0 = (r % tiles_w) * 2;
  __global const float* mp = m + m_off + (long)t * out_c + c;
  const long plane = (long)tiles * out_c;
  float a[2][4];
  for (int j = 0; j < 4; ++j) {
    const float m0 = mp[(0 * 4 + j) * plane], m1 = mp[(1 * 4 + j) * plane];
    const float m2 = mp[(2 * 4 + j) * plane], m3 = mp[(3 * 4 + j) * plane];
    a[0][j] = m0 + m1 + m2;
    a[1][j] = m1 - m2 - m3;
  }
  const float b = LD(bias, c);
  for (int i = 0; i < 2; ++i) {
    const int oy = oy0 + i;
    if (oy >= out_h) break;
    const float out[2] = {a[i][0] + a[i][1] + a[i][2], a[i][1] - a[i][2] - a[i][3]};
    for (int j = 0; j < 2; ++j) {
      const int ox = ox0 + j;
      if (ox >= out_w) break;
      const long p = ((long)n * out_h + oy) * out_w + ox;
      float val = out[j] + b;
      if (c < res_c) val += LD(res, res_off + p * res_c + c);
      ST(Activate(val, act), y, y_off + p * y_stride + c);
    }
  }
}

// Adds up conv2d_tiled's split sums and finishes (bias, residual,
// activation). Global: (out_c, M).
__kernel void conv_splitk_reduce(__global const float* partial, int partial_off, int splits, __global const REAL* bias,
                                 __global const REAL* res, int res_off, int res_c, __global REAL* y, int y_off,
                                 int out_c, int M, int act, int y_stride) {
  const int c = get_global_id(0), m = get_global_id(1);
  if (c >= out_c || m >= M) return;
  float v = LD(bias, c);
  for (int z = 0; z < splits; ++z) v += partial[partial_off + ((long)z * M + m) * out_c + c];
  if (c < res_c) v += LD(res, res_off + (long)m * res_c + c);
  ST(Activate(v, act), y, y_off + (long)m * y_stride + c);
}

// DEPTHWISE_CONV_2D: filter [kh][kw][out_c], out channel c reads input
// channel c / multiplier. Global: (out_c, out_w, batch * out_h).
__kernel void depthwise_conv2d(__global const REAL* x, int x_off, __global const REAL* w, __global const REAL* bias,
                               __global REAL* y, int y_off, int in_h, int in_w, int in_c, int out_h, int out_w,
                               int out_c, int kh, int kw, int sh, int sw, int dh, int dw, int pt, int pl,
                               int multiplier, int act) {
  const int c = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  if (c >= out_c) return;
  const int n = ny / out_h, oy = ny % out_h;
  const int ic = c / multiplier;
  float acc = LD(bias, c);
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = oy * sh - pt + ky * dh;
    if (iy < 0 || iy >= in_h) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = ox * sw - pl + kx * dw;
      if (ix < 0 || ix >= in_w) continue;
      acc += LD(x, x_off + (((long)n * in_h + iy) * in_w + ix) * in_c + ic) * LD(w, (ky * kw + kx) * out_c + c);
    }
  }
  ST(Activate(acc, act), y, y_off + (((long)n * out_h + oy) * out_w + ox) * out_c + c);
}

// --- NC4HW4 ------------------------------------------------------------------
// Tensors the backend stores channel-blocked (TensorLayout::channel_block 4)
// are [n][ceil(c/4)][h][w][4], the channels past c zero. The kernels below
// read and write either layout, told per tensor (`*_nc4`: 1 blocked, 0
// NHWC), so where an NC4HW4 tensor meets an NHWC one the kernel on the
// boundary converts as it reads or writes: no conversion pass.
// Element (n, y, x, c) of an h x w x ch tensor, c a multiple of 4 where
// blocked; NHWC pixels `stride` elements apart (ch, or a concatenation's).
inline long At4(int nc4, int n, int y, int x, int c, int h, int w, int ch, int stride) {
  return nc4 ? ((((long)n * ((ch + 3) >> 2) + (c >> 2)) * h + y) * w + x) * 4
             : (((long)n * h + y) * w + x) * stride + c;
}
// Channels c .. c + 3 (c a multiple of 4) of one pixel; zero past ch.
inline float4 Load4(__global const REAL* p, int off, int nc4, int n, int y, int x, int c, int h, int w, int ch) {
  __global const REAL* q = p + off + At4(nc4, n, y, x, c, h, w, ch, ch);
  if (nc4 || c + 4 <= ch) return LD4(0, q);
  float4 v = (float4)(LD(q, 0), 0.0f, 0.0f, 0.0f);
  if (c + 1 < ch) v.s1 = LD(q, 1);
  if (c + 2 < ch) v.s2 = LD(q, 2);
  return v;
}
// Writes channels c .. c + 3 of one pixel: those below ch, and zeros in a
// blocked tensor's padding.
inline void Store4(float4 v, __global REAL* p, int off, int nc4, int n, int y, int x, int c, int h, int w, int ch,
                   int stride) {
  __global REAL* q = p + off + At4(nc4, n, y, x, c, h, w, ch, stride);
  if (c + 4 > ch) {
    if (c + 1 >= ch) v.s1 = 0.0f;
    if (c + 2 >= ch) v.s2 = 0.0f;
    v.s3 = 0.0f;
  }
  if (nc4 || c + 4 <= ch) {
    ST4(v, 0, q);
    return;
  }
  ST(v.s0, q, 0);
  if (c + 1 < ch) ST(v.s1, q, 1);
  if (c + 2 < ch) ST(v.s2, q, 2);
}

// DEPTHWISE_CONV_2D with multiplier 1, four channels per work item (filter
// packed [ceil(c/4)][kh][kw][4], bias to whole blocks, zeros past c).
// Global: (out_w, batch * out_h, ceil(c/4)): neighbouring items take
// neighbouring pixels of one channel block (what makes NC4HW4 pay).
__kernel void depthwise_nc4(__global const REAL* x, int x_off, int x_nc4, __global const REAL* w,
                            __global const REAL* bias, __global REAL* y, int y_off, int y_nc4, int in_h, int in_w,
                            int ch, int out_h, int out_w, int kh, int kw, int sh, int sw, int dh, int dw, int pt,
                            int pl, int act) {
  const int ox = get_global_id(0), ny = get_global_id(1), c4 = get_global_id(2);
  const int n = ny / out_h, oy = ny % out_h;
  float4 acc = LD4(c4, bias);
  __global const REAL* wp = w + (long)c4 * kh * kw * 4;
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = oy * sh - pt + ky * dh;
    if (iy < 0 || iy >= in_h) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = ox * sw - pl + kx * dw;
      if (ix < 0 || ix >= in_w) continue;
      acc = mad(Load4(x, x_off, x_nc4, n, iy, ix, c4 * 4, in_h, in_w, ch), LD4(ky * kw + kx, wp), acc);
    }
  }
  Store4(Activate4(acc, act), y, y_off, y_nc4, n, oy, ox, c4 * 4, out_h, out_w, ch, ch);
}

// A 1x1 conv (stride 1, no padding, no groups) as four output channels of
// two pixels per work item (filter packed [ceil(out_c/4)][in_c rounded up
// to 4][4]: per input channel one float4 of its weights to the four
// outputs; bias to whole blocks). A fused residual adds its first res_c
// channels before the activation. NHWC output pixels are y_stride apart.
// Global: (ceil(hw / 2), ceil(out_c / 4), batch).
__kernel void pointwise_nc4(__global const REAL* x, int x_off, int x_nc4, __global const REAL* w,
                            __global const REAL* bias, __global const REAL* res, int res_off, int res_nc4, int res_c,
                            __global REAL* y, int y_off, int y_nc4, int hw, int in_c, int out_c, int act,
                            int y_stride) {
  const int p = get_global_id(0) * 2, oc4 = get_global_id(1), n = get_global_id(2);
  if (p >= hw) return;
  const bool two = p + 1 < hw;
  const int ic4s = (in_c + 3) >> 2;
  float4 a0 = LD4(oc4, bias), a1 = a0;
  __global const REAL* wp = w + (long)oc4 * ic4s * 16;
  for (int ic4 = 0; ic4 < ic4s; ++ic4) {
    const float4 x0 = Load4(x, x_off, x_nc4, n, 0, p, ic4 * 4, 1, hw, in_c);
    const float4 x1 = two ? Load4(x, x_off, x_nc4, n, 0, p + 1, ic4 * 4, 1, hw, in_c) : (float4)(0.0f);
    const float4 w0 = LD4(0, wp), w1 = LD4(1, wp), w2 = LD4(2, wp), w3 = LD4(3, wp);
    a0 = mad((float4)(x0.s0), w0, a0);
    a0 = mad((float4)(x0.s1), w1, a0);
    a0 = mad((float4)(x0.s2), w2, a0);
    a0 = mad((float4)(x0.s3), w3, a0);
    a1 = mad((float4)(x1.s0), w0, a1);
    a1 = mad((float4)(x1.s1), w1, a1);
    a1 = mad((float4)(x1.s2), w2, a1);
    a1 = mad((float4)(x1.s3), w3, a1);
    wp += 16;
  }
  if (oc4 * 4 < res_c) {
    a0 += Load4(res, res_off, res_nc4, n, 0, p, oc4 * 4, 1, hw, res_c);
    if (two) a1 += Load4(res, res_off, res_nc4, n, 0, p + 1, oc4 * 4, 1, hw, res_c);
  }
  Store4(Activate4(a0, act), y, y_off, y_nc4, n, 0, p, oc4 * 4, 1, hw, out_c, y_stride);
  if (two) Store4(Activate4(a1, act), y, y_off, y_nc4, n, 0, p + 1, oc4 * 4, 1, hw, out_c, y_stride);
}

// TRANSPOSE_CONV_2D: each output gathers the input pixels whose taps land
// on it. Filter [out_c][kh][kw][in_c/groups]. Global: (out_c, out_w, batch * out_h).
__kernel void transpose_conv2d(__global const REAL* x, int x_off, __global const REAL* w, __global const REAL* bias,
                               __global REAL* y, int y_off, int in_h, int in_w, int in_c, int out_h, int out_w,
                               int out_c, int kh, int kw, int sh, int sw, int pt, int pl, int groups, int act) {
  const int oc = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  if (oc >= out_c) return;
  const int n = ny / out_h, oy = ny % out_h;
  const int icg = in_c / groups, ocg = out_c / groups;
  const int g = oc / ocg;
  float acc = 0.0f;
  for (int ky = 0; ky < kh; ++ky) {
    const int ty = oy + pt - ky;
    if (ty < 0 || ty % sh != 0) continue;
    const int iy = ty / sh;
    if (iy >= in_h) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int tx = ox + pl - kx;
      if (tx < 0 || tx % sw != 0) continue;
      const int ix = tx / sw;
      if (ix >= in_w) continue;
      __global const REAL* xp = x + x_off + (((long)n * in_h + iy) * in_w + ix) * in_c + g * icg;
      __global const REAL* wp = w + (((long)oc * kh + ky) * kw + kx) * icg;
      for (int ic = 0; ic < icg; ++ic) acc += LD(xp, ic) * LD(wp, ic);
    }
  }
  ST(Activate(acc + LD(bias, oc), act), y, y_off + (((long)n * out_h + oy) * out_w + ox) * out_c + oc);
}

// FULLY_CONNECTED: y[r][o] = x[r] . w[:, o] + b[o], the weights packed
// [in_dim][units] so that neighbouring items read neighbouring weights.
// Global: (units, rows).
__kernel void fully_connected(__global const REAL* x, int x_off, __global const REAL* w, __global const REAL* bias,
                              __global REAL* y, int y_off, int in_dim, int units, int act) {
  const int o = get_global_id(0);
  const int r = get_global_id(1);
  if (o >= units) return;
  __global const REAL* xp = x + x_off + (long)r * in_dim;
  float acc = LD(bias, o);
  for (int k = 0; k < in_dim; ++k) acc += LD(xp, k) * LD(w, (long)k * units + o);
  ST(Activate(acc, act), y, y_off + (long)r * units + o);
}

// Up to 6-D index arithmetic: `dims` are the output's dims (outermost
// first); returns the offset of output index `i` under `strides`.
inline long Offset6(long i, __constant const int* dims, __constant const int* strides) {
  long off = 0;
  for (int d = 5; d >= 0; --d) {
    const int k = (int)(i % dims[d]);
    i /= dims[d];
    off += (long)k * strides[d];
  }
  return off;
}

// Binary ops with numpy broadcasting (ir ADD, SUB, MUL, DIV, PRELU): shape
// holds dims[6], a_strides[6], b_strides[6]. Global: (out elements).
__kernel void binary(__global const REAL* a, int a_off, __global const REAL* b, int b_off, __global REAL* y,
                     int y_off, __constant const int* shape, int op, int act, int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const float u = LD(a, a_off + Offset6(i, shape, shape + 6));
  const float v = LD(b, b_off + Offset6(i, shape, shape + 12));
  float r;
  switch (op) {
    case 0: r = u + v; break;
    case 1: r = u - v; break;
    case 2: r = u * v; break;
    case 3: r = u / v; break;
    default: r = u >= 0.0f ? u : u * v; break;  // PRELU
  }
  ST(Activate(r, act), y, y_off + i);
}

// One-input activations: op 0 relu, 1 relu6, 2 hard_swish, 3 logistic,
// 4 leaky_relu(alpha), 5 clamp(alpha, beta), 6 hard_sigmoid(alpha, beta),
// 7 silu, 8 tanh. Global: (elements).
__kernel void unary(__global const REAL* x, int x_off, __global REAL* y, int y_off, int op, float alpha, float beta,
                    int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const float v = LD(x, x_off + i);
  float r;
  switch (op) {
    case 0: r = fmax(v, 0.0f); break;
    case 1: r = fmin(fmax(v, 0.0f), 6.0f); break;
    case 2: r = v * fmin(fmax(v + 3.0f, 0.0f), 6.0f) / 6.0f; break;
    case 3: r = 1.0f / (1.0f + exp(-v)); break;
    case 4: r = v >= 0.0f ? v : alpha * v; break;
    case 5: r = fmin(fmax(v, alpha), beta); break;
    case 6: r = fmax(0.0f, fmin(1.0f, alpha * v + beta)); break;
    case 7: r = v / (1.0f + exp(-v)); break;
    default: r = tanh(v); break;
  }
  ST(r, y, y_off + i);
}

// MAX_POOL_2D (is_max) and AVERAGE_POOL_2D (the mean of the window's taps
// inside the input). Global: (channels, out_w, batch * out_h).
__kernel void pool2d(__global const REAL* x, int x_off, __global REAL* y, int y_off, int in_h, int in_w, int channels,
                     int out_h, int out_w, int kh, int kw, int sh, int sw, int pt, int pl, int is_max, int act) {
  const int c = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  if (c >= channels) return;
  const int n = ny / out_h, oy = ny % out_h;
  const int y0 = max(oy * sh - pt, 0), y1 = min(oy * sh - pt + kh, in_h);
  const int x0 = max(ox * sw - pl, 0), x1 = min(ox * sw - pl + kw, in_w);
  float acc = is_max ? -INFINITY : 0.0f;
  int count = 0;
  for (int iy = y0; iy < y1; ++iy) {
    for (int ix = x0; ix < x1; ++ix) {
      const float v = LD(x, x_off + (((long)n * in_h + iy) * in_w + ix) * channels + c);
      acc = is_max ? fmax(acc, v) : acc + v;
      ++count;
    }
  }
  if (!is_max) acc = count > 0 ? acc / count : 0.0f;
  ST(Activate(acc, act), y, y_off + (((long)n * out_h + oy) * out_w + ox) * channels + c);
}

// MEAN over any axes: `shape` holds the kept dims[6] and their input
// strides[6], then the reduced dims[6] and their input strides[6]
// (unused dims are 1). Global: (output elements).
__kernel void mean(__global const REAL* x, int x_off, __global REAL* y, int y_off, __constant const int* shape,
                   int reduced, int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const long base = x_off + Offset6(i, shape, shape + 6);
  float acc = 0.0f;
  for (int r = 0; r < reduced; ++r) acc += LD(x, base + Offset6(r, shape + 12, shape + 18));
  ST((acc / reduced), y, y_off + i);
}

// MEAN with many reduced elements per output (a global average pool): one
// work group of MEAN_GROUP items per output element, each item summing every
// MEAN_GROUP-th reduced element, then a tree in local memory. One item per
// output with a serial loop kept too few items busy (SqueezeNet's 1000
// outputs of 169 took 135 us on an H200). Global: (output elements x
// MEAN_GROUP), local: (MEAN_GROUP).
#define MEAN_GROUP 64
__kernel void mean_group(__global const REAL* x, int x_off, __global REAL* y, int y_off,
                         __constant const int* shape, int reduced, int count) {
  const int i = get_group_id(0);
  const int lid = get_local_id(0);
  __local float part[MEAN_GROUP];
  float acc = 0.0f;
  if (i < count) {
    const long base = x_off + Offset6(i, shape, shape + 6);
    for (int r = lid; r < reduced; r += MEAN_GROUP) acc += LD(x, base + Offset6(r, shape + 12, shape + 18));
  }
  part[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = MEAN_GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) part[lid] += part[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0 && i < count) ST((part[0] / reduced), y, y_off + i);
}

// A strided view copied out (TRANSPOSE, SLICE, PAD's interior, the copies of
// RESHAPE): output index i reads input at start + Offset6(i, dims, strides).
// With `pad` set, shape[12..17] are the pad-before per dim and
// shape[18..23] the input dims: outputs outside the input get `value`.
// Global: (output elements).
__kernel void gather_view(__global const REAL* x, int x_off, __global REAL* y, int y_off,
                          __constant const int* shape, int start, int pad, float value, int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  if (!pad) {
    ST(LD(x, x_off + start + Offset6(i, shape, shape + 6)), y, y_off + i);
    return;
  }
  long rest = i, off = 0;
  bool inside = true;
  for (int d = 5; d >= 0; --d) {
    const int k = (int)(rest % shape[d]) - shape[12 + d];
    rest /= shape[d];
    inside = inside && k >= 0 && k < shape[18 + d];
    off += (long)k * shape[6 + d];
  }
  ST(inside ? LD(x, x_off + off) : value, y, y_off + i);
}

// One input of a CONCATENATION into its slice of the output: `outer` rows of
// `chunk` elements, written `stride` apart starting at `offset`.
// Global: (outer * chunk).
__kernel void concat_slice(__global const REAL* x, int x_off, __global REAL* y, int y_off, int chunk, int stride,
                           int offset, int act, int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const int row = i / chunk, k = i % chunk;
  ST(Activate(LD(x, x_off + i), act), y, y_off + (long)row * stride + offset + k);
}

// SOFTMAX along an axis of `axis_size` elements, `inner` apart.
// Global: (outer * inner).
__kernel void softmax(__global const REAL* x, int x_off, __global REAL* y, int y_off, int axis_size, int inner,
                      int count) {
  const int i = get_global_id(0);
  if (i >= count) return;
  const long base = (long)(i / inner) * axis_size * inner + i % inner;
  float m = -INFINITY;
  for (int k = 0; k < axis_size; ++k) m = fmax(m, LD(x, x_off + base + (long)k * inner));
  float sum = 0.0f;
  for (int k = 0; k < axis_size; ++k) sum += exp(LD(x, x_off + base + (long)k * inner) - m);
  for (int k = 0; k < axis_size; ++k) {
    ST((exp(LD(x, x_off + base + (long)k * inner) - m) / sum), y, y_off + base + (long)k * inner);
  }
}

// Resize by per-axis tap tables (computed on the host from the reference
// kernels' coordinate rules): output row oy reads rows[oy*taps+t] with
// weight rw[oy*taps+t] (index -1: outside the input, the output is
// `outside`). Bilinear: 2 taps, nearest: 1. Global: (channels, out_w, batch * out_h).
__kernel void resize_taps(__global const REAL* x, int x_off, __global REAL* y, int y_off,
                          __global const int* rows, __global const float* rw, __global const int* cols,
                          __global const float* cw, int taps, int in_h, int in_w, int channels, int out_h, int out_w,
                          float outside) {
  const int c = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  if (c >= channels) return;
  const int n = ny / out_h, oy = ny % out_h;
  float acc = 0.0f;
  bool out = false;
  for (int ty = 0; ty < taps; ++ty) {
    const int iy = rows[oy * taps + ty];
    out = out || iy < 0;
    float row = 0.0f;
    for (int tx = 0; tx < taps; ++tx) {
      const int ix = cols[ox * taps + tx];
      out = out || ix < 0;
      if (iy >= 0 && ix >= 0) {
        row += cw[ox * taps + tx] * LD(x, x_off + (((long)n * in_h + iy) * in_w + ix) * channels + c);
      }
    }
    acc += rw[oy * taps + ty] * row;
  }
  ST((out ? outside : acc), y, y_off + (((long)n * out_h + oy) * out_w + ox) * channels + c);
}

// RESIZE_BICUBIC and antialiased resizes: th taps along H, tw along W per
// output index, summed along W, then along H as r * weight / divisor[oy]
// (the reference kernel's order); a tap-0 index of -1 marks an output that
// is `outside`. Global: (channels, out_w, batch * out_h).
__kernel void resize_separable(__global const REAL* x, int x_off, __global REAL* y, int y_off,
                               __global const int* rows, __global const float* rw, int th, __global const int* cols,
                               __global const float* cw, int tw, __global const float* divisor, int in_h, int in_w,
                               int channels, int out_h, int out_w, float outside) {
  const int c = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  if (c >= channels) return;
  const int n = ny / out_h, oy = ny % out_h;
  const long o = y_off + (((long)n * out_h + oy) * out_w + ox) * channels + c;
  if (rows[oy * th] < 0 || cols[ox * tw] < 0) {
    ST(outside, y, o);
    return;
  }
  float acc = 0.0f;
  for (int ty = 0; ty < th; ++ty) {
    const long row = x_off + ((long)n * in_h + rows[oy * th + ty]) * in_w * channels + c;
    float r = 0.0f;
    for (int tx = 0; tx < tw; ++tx) r += cw[ox * tw + tx] * LD(x, row + (long)cols[ox * tw + tx] * channels);
    acc += r * rw[oy * th + ty] / divisor[oy];
  }
  ST(acc, y, o);
}

// DEPTH_TO_SPACE (TFLite's DCR order). Global: (out_c, out_w, batch * out_h).
__kernel void depth_to_space(__global const REAL* x, int x_off, __global REAL* y, int y_off, int in_h, int in_w,
                             int in_c, int block) {
  const int c = get_global_id(0);
  const int ox = get_global_id(1);
  const int ny = get_global_id(2);
  const int out_c = in_c / (block * block), out_h = in_h * block, out_w = in_w * block;
  if (c >= out_c) return;
  const int n = ny / out_h, oy = ny % out_h;
  const int iy = oy / block, dy = oy % block, ix = ox / block, dx = ox % block;
  ST(LD(x, x_off + (((long)n * in_h + iy) * in_w + ix) * in_c + (dy * block + dx) * out_c + c), y,
     y_off + (((long)n * out_h + oy) * out_w + ox) * out_c + c);
}

// Dense tensors between float host memory and REAL device storage (the fp16
// mode's transfers go through a float staging buffer).
__kernel void to_real(__global const float* x, __global REAL* y, int y_off, int count) {
  const int i = get_global_id(0);
  if (i < count) ST(x[i], y, y_off + i);  // x: float staging
}
__kernel void to_float(__global const REAL* x, int x_off, __global float* y, int count) {
  const int i = get_global_id(0);
  if (i < count) y[i] = LD(x, x_off + i);  // y: float staging
}
