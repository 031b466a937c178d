#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd_f23.h"

#include <immintrin.h>

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu::x86 {
namespace {

constexpr int kTilesPerBlock = 48;  // GEMM rows per position

int TilesH(const ConvParams& p) { return (p.out_h + 1) / 2; }
int TilesW(const ConvParams& p) { return (p.out_w + 1) / 2; }
long long TotalTiles(const ConvParams& p) { return static_cast<long long>(p.batch) * TilesH(p) * TilesW(p); }

// V = B^T d B for 8 channels at once; d holds the 4x4 patch as [16][ic].
__attribute__((target("avx2,fma"))) void InputTransform8(const float* d, int ic_n, int c, float* v, size_t v_pos,
                                                          size_t v_off) {
  __m256 r[4][4];
  for (int j = 0; j < 4; ++j) {
    const __m256 d0 = _mm256_loadu_ps(d + (0 * 4 + j) * ic_n + c);
    const __m256 d1 = _mm256_loadu_ps(d + (1 * 4 + j) * ic_n + c);
    const __m256 d2 = _mm256_loadu_ps(d + (2 * 4 + j) * ic_n + c);
    const __m256 d3 = _mm256_loadu_ps(d + (3 * 4 + j) * ic_n + c);
    r[0][j] = _mm256_sub_ps(d0, d2);
    r[1][j] = _mm256_add_ps(d1, d2);
    r[2][j] = _mm256_sub_ps(d2, d1);
    r[3][j] = _mm256_sub_ps(d1, d3);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(v + (i * 4 + 0) * v_pos + v_off, _mm256_sub_ps(r[i][0], r[i][2]));
    _mm256_storeu_ps(v + (i * 4 + 1) * v_pos + v_off, _mm256_add_ps(r[i][1], r[i][2]));
    _mm256_storeu_ps(v + (i * 4 + 2) * v_pos + v_off, _mm256_sub_ps(r[i][2], r[i][1]));
    _mm256_storeu_ps(v + (i * 4 + 3) * v_pos + v_off, _mm256_sub_ps(r[i][1], r[i][3]));
  }
}

// Y = A^T M A for 8 channels; writes y[4][8] (row-major 2x2 outputs).
__attribute__((target("avx2,fma"))) void OutputTransform8(const float* m, size_t m_pos, size_t m_off,
                                                           const float* bias, float* y) {
  __m256 s0[4], s1[4];
  for (int j = 0; j < 4; ++j) {
    const __m256 a = _mm256_loadu_ps(m + (0 * 4 + j) * m_pos + m_off);
    const __m256 b = _mm256_loadu_ps(m + (1 * 4 + j) * m_pos + m_off);
    const __m256 c = _mm256_loadu_ps(m + (2 * 4 + j) * m_pos + m_off);
    const __m256 d = _mm256_loadu_ps(m + (3 * 4 + j) * m_pos + m_off);
    s0[j] = _mm256_add_ps(_mm256_add_ps(a, b), c);
    s1[j] = _mm256_sub_ps(_mm256_sub_ps(b, c), d);
  }
  const __m256 bv = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
  _mm256_storeu_ps(y + 0, _mm256_add_ps(bv, _mm256_add_ps(_mm256_add_ps(s0[0], s0[1]), s0[2])));
  _mm256_storeu_ps(y + 8, _mm256_add_ps(bv, _mm256_sub_ps(_mm256_sub_ps(s0[1], s0[2]), s0[3])));
  _mm256_storeu_ps(y + 16, _mm256_add_ps(bv, _mm256_add_ps(_mm256_add_ps(s1[0], s1[1]), s1[2])));
  _mm256_storeu_ps(y + 24, _mm256_add_ps(bv, _mm256_sub_ps(_mm256_sub_ps(s1[1], s1[2]), s1[3])));
}

}  // namespace

bool WinogradF23Applies(const ConvParams& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 &&
         p.dilation_w == 1;
}

void TransformWeightsF23(const ConvParams& p, const float* filter, bool avx512, WinogradF23Weights* out) {
  const int oc_n = p.out_c, ic_n = p.in_c;
  std::vector<float> u(static_cast<size_t>(16) * oc_n * ic_n);
  for (int oc = 0; oc < oc_n; ++oc) {
    for (int ic = 0; ic < ic_n; ++ic) {
      float g[3][3];
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) g[y][x] = filter[((static_cast<size_t>(oc) * 3 + y) * 3 + x) * ic_n + ic];
      // t = G g (4x3), G = [[1,0,0],[.5,.5,.5],[.5,-.5,.5],[0,0,1]]
      float t[4][3];
      for (int x = 0; x < 3; ++x) {
        t[0][x] = g[0][x];
        t[1][x] = 0.5f * (g[0][x] + g[1][x] + g[2][x]);
        t[2][x] = 0.5f * (g[0][x] - g[1][x] + g[2][x]);
        t[3][x] = g[2][x];
      }
      // U = t G^T (4x4)
      for (int y = 0; y < 4; ++y) {
        const float r[4] = {t[y][0], 0.5f * (t[y][0] + t[y][1] + t[y][2]), 0.5f * (t[y][0] - t[y][1] + t[y][2]),
                            t[y][2]};
        for (int x = 0; x < 4; ++x) u[(static_cast<size_t>(y * 4 + x) * oc_n + oc) * ic_n + ic] = r[x];
      }
    }
  }
  out->stride = avx512 ? PackedWeightsFloats512(oc_n, ic_n) : PackedWeightsFloats(oc_n, ic_n);
  out->packed.assign(out->stride * 16, 0.0f);
  for (int pos = 0; pos < 16; ++pos) {
    const float* src = u.data() + static_cast<size_t>(pos) * oc_n * ic_n;
    float* dst = out->packed.data() + out->stride * pos;
    if (avx512) PackWeightsNK512(src, oc_n, ic_n, dst);
    else PackWeightsNK(src, oc_n, ic_n, dst);
  }
}

int WinogradF23Blocks(const ConvParams& p) {
  return static_cast<int>((TotalTiles(p) + kTilesPerBlock - 1) / kTilesPerBlock);
}

size_t WinogradF23ScratchFloats(const ConvParams& p) {
  // V: 16 x tiles x in_c, M: 16 x tiles x out_c, one 4x4 input patch row.
  return static_cast<size_t>(16) * kTilesPerBlock * (p.in_c + p.out_c) + static_cast<size_t>(16) * p.in_c;
}

void WinogradF23Block(const ConvParams& p, const float* input, const WinogradF23Weights& w, const float* bias,
                      GemmFn gemm, float* scratch, float* output, int block) {
  const int ic_n = p.in_c, oc_n = p.out_c;
  const int px = OutPixelStride(p);  // floats between output pixels
  const int th = TilesH(p), tw = TilesW(p);
  const long long t0 = static_cast<long long>(block) * kTilesPerBlock;
  const int tiles = static_cast<int>(std::min<long long>(kTilesPerBlock, TotalTiles(p) - t0));
  float* v = scratch;                                                  // [16][tiles][ic]
  float* m = v + static_cast<size_t>(16) * kTilesPerBlock * ic_n;      // [16][tiles][oc]
  float* d = m + static_cast<size_t>(16) * kTilesPerBlock * oc_n;      // [16][ic] input patch
  const size_t v_pos = static_cast<size_t>(kTilesPerBlock) * ic_n;
  const size_t m_pos = static_cast<size_t>(kTilesPerBlock) * oc_n;

  // Input transform: V = B^T d B, B^T = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]].
  for (int t = 0; t < tiles; ++t) {
    const long long tile = t0 + t;
    const int n = static_cast<int>(tile / (static_cast<long long>(th) * tw));
    const int rem = static_cast<int>(tile % (static_cast<long long>(th) * tw));
    const int y0 = (rem / tw) * 2 - p.pad_top, x0 = (rem % tw) * 2 - p.pad_left;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * ic_n;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        float* dst = d + (i * 4 + j) * ic_n;
        const int y = y0 + i, x = x0 + j;
        if (y < 0 || y >= p.in_h || x < 0 || x >= p.in_w) {
          std::fill(dst, dst + ic_n, 0.0f);
        } else {
          std::copy(in_n + (static_cast<long long>(y) * p.in_w + x) * ic_n,
                    in_n + (static_cast<long long>(y) * p.in_w + x + 1) * ic_n, dst);
        }
      }
    }
    const int vec_end = HasAvx2Fma() ? ic_n / 8 * 8 : 0;
    for (int c = 0; c < vec_end; c += 8) InputTransform8(d, ic_n, c, v, v_pos, static_cast<size_t>(t) * ic_n + c);
    for (int c = vec_end; c < ic_n; ++c) {
      float dd[4][4], r[4][4];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) dd[i][j] = d[(i * 4 + j) * ic_n + c];
      for (int j = 0; j < 4; ++j) {  // B^T d
        r[0][j] = dd[0][j] - dd[2][j];
        r[1][j] = dd[1][j] + dd[2][j];
        r[2][j] = dd[2][j] - dd[1][j];
        r[3][j] = dd[1][j] - dd[3][j];
      }
      for (int i = 0; i < 4; ++i) {  // (B^T d) B
        const float a = r[i][0] - r[i][2], b = r[i][1] + r[i][2], e = r[i][2] - r[i][1], f = r[i][1] - r[i][3];
        v[(i * 4 + 0) * v_pos + static_cast<size_t>(t) * ic_n + c] = a;
        v[(i * 4 + 1) * v_pos + static_cast<size_t>(t) * ic_n + c] = b;
        v[(i * 4 + 2) * v_pos + static_cast<size_t>(t) * ic_n + c] = e;
        v[(i * 4 + 3) * v_pos + static_cast<size_t>(t) * ic_n + c] = f;
      }
    }
  }
  // 16 GEMMs: M[pos] = V[pos] x U[pos]^T.
  for (int pos = 0; pos < 16; ++pos) {
    if (!w.half.empty()) {
      GemmF16wAvx512(tiles, oc_n, ic_n, v + pos * v_pos, ic_n, w.half.data() + w.stride * pos, nullptr,
                     FusedActivation::kNone, m + pos * m_pos, oc_n);
      continue;
    }
    gemm(tiles, oc_n, ic_n, v + pos * v_pos, ic_n, w.packed.data() + w.stride * pos, nullptr, FusedActivation::kNone,
         m + pos * m_pos, oc_n);
  }
  // Output transform: Y = A^T M A, A^T = [[1,1,1,0],[0,1,-1,-1]].
  for (int t = 0; t < tiles; ++t) {
    const long long tile = t0 + t;
    const int n = static_cast<int>(tile / (static_cast<long long>(th) * tw));
    const int rem = static_cast<int>(tile % (static_cast<long long>(th) * tw));
    const int oy = (rem / tw) * 2, ox = (rem % tw) * 2;
    float* out_n = output + static_cast<long long>(n) * p.out_h * p.out_w * px;
    const int vec_end = HasAvx2Fma() ? oc_n / 8 * 8 : 0;
    // tanh goes over each output pixel's channels once they are written (the
    // vector tanh); the loops below apply the other activations.
    const bool tanh = p.activation == FusedActivation::kTanh && HasAvx2Fma();
    const FusedActivation act = tanh ? FusedActivation::kNone : p.activation;
    for (int c = 0; c < vec_end; c += 8) {
      float y[4][8];
      OutputTransform8(m, m_pos, static_cast<size_t>(t) * oc_n + c, bias ? bias + c : nullptr, &y[0][0]);
      for (int q = 0; q < 4; ++q) {
        const int i = q / 2, j = q % 2;
        if (oy + i >= p.out_h || ox + j >= p.out_w) continue;
        float* dst = out_n + (static_cast<long long>(oy + i) * p.out_w + ox + j) * px + c;
        for (int l = 0; l < 8; ++l) dst[l] = ApplyActivation(y[q][l], act);
      }
    }
    for (int c = vec_end; c < oc_n; ++c) {
      float mm[4][4];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) mm[i][j] = m[(i * 4 + j) * m_pos + static_cast<size_t>(t) * oc_n + c];
      float s[2][4];
      for (int j = 0; j < 4; ++j) {
        s[0][j] = mm[0][j] + mm[1][j] + mm[2][j];
        s[1][j] = mm[1][j] - mm[2][j] - mm[3][j];
      }
      const float b = bias ? bias[c] : 0.0f;
      const float y[2][2] = {{s[0][0] + s[0][1] + s[0][2], s[0][1] - s[0][2] - s[0][3]},
                             {s[1][0] + s[1][1] + s[1][2], s[1][1] - s[1][2] - s[1][3]}};
      for (int i = 0; i < 2; ++i) {
        if (oy + i >= p.out_h) continue;
        for (int j = 0; j < 2; ++j) {
          if (ox + j >= p.out_w) continue;
          out_n[(static_cast<long long>(oy + i) * p.out_w + ox + j) * px + c] = ApplyActivation(y[i][j] + b, act);
        }
      }
    }
    if (tanh) {
      for (int i = 0; i < 2 && oy + i < p.out_h; ++i) {
        for (int j = 0; j < 2 && ox + j < p.out_w; ++j) {
          TanhInPlaceAvx2(out_n + (static_cast<long long>(oy + i) * p.out_w + ox + j) * px, oc_n);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu::x86
