#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd_f23.h"

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"

namespace rill::inference::cpu::x86 {
namespace {

constexpr int kTilesPerBlock = 48;  // GEMM rows per position

int TilesH(const ConvParams& p) { return (p.out_h + 1) / 2; }
int TilesW(const ConvParams& p) { return (p.out_w + 1) / 2; }
long long TotalTiles(const ConvParams& p) { return static_cast<long long>(p.batch) * TilesH(p) * TilesW(p); }

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
    for (int c = 0; c < ic_n; ++c) {
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
    gemm(tiles, oc_n, ic_n, v + pos * v_pos, ic_n, w.packed.data() + w.stride * pos, nullptr, FusedActivation::kNone,
         m + pos * m_pos, oc_n);
  }
  // Output transform: Y = A^T M A, A^T = [[1,1,1,0],[0,1,-1,-1]].
  for (int t = 0; t < tiles; ++t) {
    const long long tile = t0 + t;
    const int n = static_cast<int>(tile / (static_cast<long long>(th) * tw));
    const int rem = static_cast<int>(tile % (static_cast<long long>(th) * tw));
    const int oy = (rem / tw) * 2, ox = (rem % tw) * 2;
    float* out_n = output + static_cast<long long>(n) * p.out_h * p.out_w * oc_n;
    for (int c = 0; c < oc_n; ++c) {
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
          out_n[(static_cast<long long>(oy + i) * p.out_w + ox + j) * oc_n + c] = ApplyActivation(y[i][j] + b, p.activation);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu::x86
