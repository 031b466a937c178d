#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd.h"

#include <algorithm>
#include <cstring>

#include "inference/backend/cpu/kernels/f32_conv3x3s1_winograd_common.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu::x86 {
namespace {

using simd::F16;
using simd::F8;
using simd::Load;
using simd::Store;

// 1-D input transforms r = B^T d, factored to share sums.
template <class V>
RILL_SIMD_INLINE void InputTransform1D(const V (&d)[4], V (&r)[4]) {
  // B^T rows: [1,0,-1,0] [0,1,1,0] [0,-1,1,0] [0,1,0,-1]
  r[0] = d[0] - d[2];
  r[1] = d[1] + d[2];
  r[2] = d[2] - d[1];
  r[3] = d[1] - d[3];
}
template <class V>
RILL_SIMD_INLINE void InputTransform1D(const V (&d)[6], V (&r)[6]) {
  // B^T rows: [4,0,-5,0,1,0] [0,-4,-4,1,1,0] [0,4,-4,-1,1,0] [0,-2,-1,2,1,0]
  // [0,2,-1,-2,1,0] [0,4,0,-5,0,1]
  const V a = d[3] + d[4], b = d[1] + d[2], c = d[4] - d[3], e = d[1] - d[2];
  const V f = d[4] - d[2], g = d[3] - d[1];
  r[0] = d[0] * 4.0f - d[2] * 5.0f + d[4];
  r[1] = a - b * 4.0f;
  r[2] = c + e * 4.0f;
  r[3] = f + g * 2.0f;
  r[4] = f - g * 2.0f;
  r[5] = d[1] * 4.0f - d[3] * 5.0f + d[5];
}
template <class V>
RILL_SIMD_INLINE void InputTransform1D(const V (&d)[8], V (&r)[8]) {
  const V s12 = d[2] + d[6] - d[4] * 4.25f, s34 = d[1] + d[5] - d[3] * 4.25f;
  const V s56 = d[2] * 0.25f - d[4] * 1.25f + d[6],
          s78 = d[1] * 0.5f - d[3] * 2.5f + d[5] * 2.0f;
  const V s9 = d[2] * 4.0f - d[4] * 5.0f + d[6],
          s10 = d[1] * 2.0f - d[3] * 2.5f + d[5] * 0.5f;
  r[0] = d[0] - d[6] + (d[4] - d[2]) * 5.25f;
  r[1] = s12 + s34;
  r[2] = s12 - s34;
  r[3] = s56 + s78;
  r[4] = s56 - s78;
  r[5] = s9 + s10;
  r[6] = s9 - s10;
  r[7] = d[7] - d[1] + (d[3] - d[5]) * 5.25f;
}

// 1-D output transforms y = A^T m.
template <class V>
RILL_SIMD_INLINE void OutputTransform1D(const V (&m)[4], V (&y)[2]) {
  // A^T rows: [1,1,1,0] [0,1,-1,-1]
  y[0] = m[0] + m[1] + m[2];
  y[1] = m[1] - m[2] - m[3];
}
template <class V>
RILL_SIMD_INLINE void OutputTransform1D(const V (&m)[6], V (&y)[4]) {
  const V a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
  y[0] = m[0] + a + c;
  y[1] = b + d * 2.0f;
  y[2] = a + c * 4.0f;
  y[3] = b + d * 8.0f + m[5];
}
template <class V>
RILL_SIMD_INLINE void OutputTransform1D(const V (&m)[8], V (&y)[6]) {
  const V a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4],
          e = m[5] + m[6], f = m[5] - m[6];
  y[0] = m[0] + a + c + e;
  y[1] = b + d * 2.0f + f * 0.5f;
  y[2] = a + c * 4.0f + e * 0.25f;
  y[3] = b + d * 8.0f + f * 0.125f;
  y[4] = a + c * 16.0f + e * 0.0625f;
  y[5] = b + d * 32.0f + f * 0.03125f + m[7];
}

// V = B^T d B for one tile and Lanes<V>() channels starting at `src`.
template <int A, class V>
RILL_SIMD_INLINE void InputTile(const float* src, size_t row_stride,
                                size_t px_stride, float* v, size_t v_pos) {
  V t[A][A];
#pragma GCC unroll 16
  for (int j = 0; j < A; ++j) {
    V col[A], r[A];
#pragma GCC unroll 16
    for (int k = 0; k < A; ++k)
      col[k] = Load<V>(src + k * row_stride + j * px_stride);
    InputTransform1D(col, r);
#pragma GCC unroll 16
    for (int i = 0; i < A; ++i) t[i][j] = r[i];
  }
#pragma GCC unroll 16
  for (int i = 0; i < A; ++i) {
    V r[A];
    InputTransform1D(t[i], r);
#pragma GCC unroll 16
    for (int j = 0; j < A; ++j) Store(v + (i * A + j) * v_pos, r[j]);
  }
}

template <int A, class V>
RILL_SIMD_INLINE void OutputTile(const float* mb, size_t m_pos,
                                 const float* bias, FusedActivation act,
                                 float* out, size_t row_stride,
                                 size_t px_stride, int rows, int cols) {
  constexpr int M = A - 2;
  V s[M][A];
#pragma GCC unroll 16
  for (int j = 0; j < A; ++j) {
    V col[A], r[M];
#pragma GCC unroll 16
    for (int k = 0; k < A; ++k) col[k] = Load<V>(mb + (k * A + j) * m_pos);
    OutputTransform1D(col, r);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) s[i][j] = r[i];
  }
  const V b = bias ? Load<V>(bias) : V{};
#pragma GCC unroll 16
  for (int i = 0; i < rows; ++i) {
    V y[M];
    OutputTransform1D(s[i], y);
#pragma GCC unroll 16
    for (int j = 0; j < cols; ++j)
      Store(out + i * row_stride + j * px_stride, simd::Clamp(y[j] + b, act));
  }
}

template <int A, class Wide>
RILL_SIMD_INLINE void InputTileAllChannels(const float* src, size_t row_stride,
                                           int ic_n, float* v, size_t v_pos) {
  int c = 0;
  for (; c + simd::Lanes<Wide>() <= ic_n; c += simd::Lanes<Wide>())
    InputTile<A, Wide>(src + c, row_stride, ic_n, v + c, v_pos);
  if (simd::Lanes<Wide>() > 8) {
    for (; c + 8 <= ic_n; c += 8)
      InputTile<A, F8>(src + c, row_stride, ic_n, v + c, v_pos);
  }
  for (; c < ic_n; ++c)
    InputTile<A, float>(src + c, row_stride, ic_n, v + c, v_pos);
}

template <int A, class Wide>
RILL_SIMD_INLINE void InputTransformT(const WinogradPlan& plan,
                                      const ConvParams& p, const float* input,
                                      int block, int t_begin, int t_end,
                                      float* v, float* patch) {
  const int ic_n = p.in_c;
  const size_t v_pos = static_cast<size_t>(plan.tiles_per_block) * ic_n;
  const long long per_image =
      static_cast<long long>(plan.tiles_h) * plan.tiles_w;
  for (int t = t_begin; t < t_end; ++t) {
    const long long tile =
        static_cast<long long>(block) * plan.tiles_per_block + t;
    const int n = static_cast<int>(tile / per_image);
    const int rem = static_cast<int>(tile % per_image);
    const int y0 = (rem / plan.tiles_w) * plan.m - p.pad_top,
              x0 = (rem % plan.tiles_w) * plan.m - p.pad_left;
    const float* in_n =
        input + static_cast<long long>(n) * p.in_h * p.in_w * ic_n;
    float* vt = v + static_cast<size_t>(t) * ic_n;
    if (y0 >= 0 && x0 >= 0 && y0 + A <= p.in_h && x0 + A <= p.in_w) {
      InputTileAllChannels<A, Wide>(
          in_n + (static_cast<long long>(y0) * p.in_w + x0) * ic_n,
          static_cast<size_t>(p.in_w) * ic_n, ic_n, vt, v_pos);
      continue;
    }
    const size_t row = static_cast<size_t>(A) * ic_n;
#pragma GCC unroll 16
    for (int i = 0; i < A; ++i) {
      const int y = y0 + i;
#pragma GCC unroll 16
      for (int j = 0; j < A; ++j) {
        const int x = x0 + j;
        float* dst = patch + i * row + static_cast<size_t>(j) * ic_n;
        if (y < 0 || y >= p.in_h || x < 0 || x >= p.in_w) {
          std::memset(dst, 0, sizeof(float) * ic_n);
        } else {
          std::memcpy(dst,
                      in_n + (static_cast<long long>(y) * p.in_w + x) * ic_n,
                      sizeof(float) * ic_n);
        }
      }
    }
    InputTileAllChannels<A, Wide>(patch, row, ic_n, vt, v_pos);
  }
}

template <int A, class Wide>
RILL_SIMD_INLINE void OutputTransformT(const WinogradPlan& plan,
                                       const ConvParams& p, const float* bias,
                                       int block, int t_begin, int t_end,
                                       const float* mbuf, float* output) {
  constexpr int M = A - 2;
  const int oc_n = p.out_c;
  const int px = OutPixelStride(p);  // floats between output pixels
  const size_t m_pos = static_cast<size_t>(plan.tiles_per_block) * oc_n;
  const long long per_image =
      static_cast<long long>(plan.tiles_h) * plan.tiles_w;
  const size_t row_stride = static_cast<size_t>(p.out_w) * px;
  for (int t = t_begin; t < t_end; ++t) {
    const long long tile =
        static_cast<long long>(block) * plan.tiles_per_block + t;
    const int n = static_cast<int>(tile / per_image);
    const int rem = static_cast<int>(tile % per_image);
    const int oy = (rem / plan.tiles_w) * M, ox = (rem % plan.tiles_w) * M;
    const int rows = std::min(M, p.out_h - oy),
              cols = std::min(M, p.out_w - ox);
    float* out =
        output +
        ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * px;
    const float* mt = mbuf + static_cast<size_t>(t) * oc_n;
    int c = 0;
    for (; c + simd::Lanes<Wide>() <= oc_n; c += simd::Lanes<Wide>()) {
      OutputTile<A, Wide>(mt + c, m_pos, bias ? bias + c : nullptr,
                          p.activation, out + c, row_stride, px, rows, cols);
    }
    if (simd::Lanes<Wide>() > 8) {
      for (; c + 8 <= oc_n; c += 8) {
        OutputTile<A, F8>(mt + c, m_pos, bias ? bias + c : nullptr,
                          p.activation, out + c, row_stride, px, rows, cols);
      }
    }
    for (; c < oc_n; ++c) {
      OutputTile<A, float>(mt + c, m_pos, bias ? bias + c : nullptr,
                           p.activation, out + c, row_stride, px, rows, cols);
    }
    if (p.activation == FusedActivation::kTanh) {
      for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
          float* o = out + i * row_stride + static_cast<size_t>(j) * px;
          if (simd::Lanes<Wide>() == 16) TanhInPlaceAvx512(o, oc_n);
          else TanhInPlaceAvx2(o, oc_n);
        }
      }
    }
  }
}

// The variants by input tile side: 4 (F(2,3)), 6 (F(4,3)), 8 (F(6,3)).
#define RILL_WINOGRAD_BY_ALPHA(alpha, CALL) \
  switch (alpha) {                          \
    case 4: CALL(4); break;                 \
    case 6: CALL(6); break;                 \
    default: CALL(8); break;                \
  }

__attribute__((target("avx512f"))) void InputTransformAvx512(
    const WinogradPlan& plan, const ConvParams& p, const float* input,
    int block, int t_begin, int t_end, float* v, float* patch) {
#define RILL_CALL(A) InputTransformT<A, F16>(plan, p, input, block, t_begin, t_end, v, patch)
  RILL_WINOGRAD_BY_ALPHA(plan.alpha, RILL_CALL)
#undef RILL_CALL
}
__attribute__((target("avx2,fma"))) void InputTransformAvx2(
    const WinogradPlan& plan, const ConvParams& p, const float* input,
    int block, int t_begin, int t_end, float* v, float* patch) {
#define RILL_CALL(A) InputTransformT<A, F8>(plan, p, input, block, t_begin, t_end, v, patch)
  RILL_WINOGRAD_BY_ALPHA(plan.alpha, RILL_CALL)
#undef RILL_CALL
}
__attribute__((target("avx512f"))) void OutputTransformAvx512(
    const WinogradPlan& plan, const ConvParams& p, const float* bias, int block,
    int t_begin, int t_end, const float* mbuf, float* output) {
#define RILL_CALL(A) OutputTransformT<A, F16>(plan, p, bias, block, t_begin, t_end, mbuf, output)
  RILL_WINOGRAD_BY_ALPHA(plan.alpha, RILL_CALL)
#undef RILL_CALL
}
__attribute__((target("avx2,fma"))) void OutputTransformAvx2(
    const WinogradPlan& plan, const ConvParams& p, const float* bias, int block,
    int t_begin, int t_end, const float* mbuf, float* output) {
#define RILL_CALL(A) OutputTransformT<A, F8>(plan, p, bias, block, t_begin, t_end, mbuf, output)
  RILL_WINOGRAD_BY_ALPHA(plan.alpha, RILL_CALL)
#undef RILL_CALL
}
#undef RILL_WINOGRAD_BY_ALPHA

}  // namespace

void TransformWeightsWinograd(int m, const ConvParams& p, const float* filter,
                              bool avx512, WinogradWeights* out) {
  const int alpha = m + 2;
  const int oc_n = p.out_c, ic_n = p.in_c;
  const size_t a2 = static_cast<size_t>(alpha) * alpha;
  std::vector<float> u;
  WinogradTransformFilters(m, p, filter, &u);
  out->m = m;
  out->wide = avx512;
  out->stride = avx512 ? PackedWeightsFloats512(oc_n, ic_n)
                       : PackedWeightsFloats(oc_n, ic_n);
  out->packed.assign(out->stride * a2, 0.0f);
  for (size_t pos = 0; pos < a2; ++pos) {
    const float* src = u.data() + pos * oc_n * ic_n;
    float* dst = out->packed.data() + out->stride * pos;
    if (avx512)
      PackWeightsNK512(src, oc_n, ic_n, dst);
    else
      PackWeightsNK(src, oc_n, ic_n, dst);
  }
}

void WinogradInputTransform(const WinogradPlan& plan, const ConvParams& p,
                            const float* input, bool avx512, int block,
                            int t_begin, int t_end, float* v, float* patch) {
  if (avx512)
    InputTransformAvx512(plan, p, input, block, t_begin, t_end, v, patch);
  else
    InputTransformAvx2(plan, p, input, block, t_begin, t_end, v, patch);
}

void ToBf16Panels(const ConvParams& p, WinogradWeights* w) {
  const int a2 = (w->m + 2) * (w->m + 2);
  w->bf16_stride = PackedWeightsBf16(p.out_c, p.in_c);
  w->bf16.assign(w->bf16_stride * a2, Bf16{0});
  for (int pos = 0; pos < a2; ++pos) {
    PanelsToBf16(w->packed.data() + w->stride * pos, p.out_c, p.in_c, w->bf16.data() + w->bf16_stride * pos);
  }
  std::vector<float>().swap(w->packed);
}

void WinogradMultiply(const WinogradPlan& plan, const ConvParams& p,
                      const WinogradWeights& w, GemmFn gemm, int block,
                      int pos_begin, int pos_end, const float* v, float* mbuf) {
  const int tiles = WinogradBlockTiles(plan, block);
  const size_t v_pos = static_cast<size_t>(plan.tiles_per_block) * p.in_c;
  const size_t m_pos = static_cast<size_t>(plan.tiles_per_block) * p.out_c;
  for (int pos = pos_begin; pos < pos_end; ++pos) {
    if (!w.bf16.empty()) {
      GemmBf16Avx512(tiles, p.out_c, p.in_c, v + pos * v_pos, p.in_c, w.bf16.data() + w.bf16_stride * pos, nullptr,
                     FusedActivation::kNone, mbuf + pos * m_pos, p.out_c);
      continue;
    }
    if (!w.half.empty()) {
      GemmF16wAvx512(tiles, p.out_c, p.in_c, v + pos * v_pos, p.in_c, w.half.data() + w.stride * pos, nullptr,
                     FusedActivation::kNone, mbuf + pos * m_pos, p.out_c);
      continue;
    }
    gemm(tiles, p.out_c, p.in_c, v + pos * v_pos, p.in_c,
         w.packed.data() + w.stride * pos, nullptr, FusedActivation::kNone,
         mbuf + pos * m_pos, p.out_c);
  }
}

void WinogradOutputTransform(const WinogradPlan& plan, const ConvParams& p,
                             const float* bias, bool avx512, int block,
                             int t_begin, int t_end, const float* mbuf,
                             float* output) {
  if (avx512)
    OutputTransformAvx512(plan, p, bias, block, t_begin, t_end, mbuf, output);
  else
    OutputTransformAvx2(plan, p, bias, block, t_begin, t_end, mbuf, output);
}

void WinogradConv(const WinogradPlan& plan, const ConvParams& p,
                  const float* input, const WinogradWeights& w,
                  const float* bias, GemmFn gemm, float* scratch,
                  float* output) {
  float* v = scratch;
  float* mbuf = v + plan.v_floats;
  float* patch = mbuf + plan.m_floats;
  for (int b = 0; b < plan.blocks; ++b) {
    const int tiles = WinogradBlockTiles(plan, b);
    WinogradInputTransform(plan, p, input, w.wide, b, 0, tiles, v, patch);
    WinogradMultiply(plan, p, w, gemm, b, 0, plan.alpha * plan.alpha, v, mbuf);
    WinogradOutputTransform(plan, p, bias, w.wide, b, 0, tiles, mbuf, output);
  }
}

}  // namespace rill::inference::cpu::x86
