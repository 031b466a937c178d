#include "inference/backend/cpu/kernels/arm64/f32_conv3x3s1_winograd_neon.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "inference/backend/cpu/kernels/arm64/f32_gemm_8x12_neon.h"
#include "inference/backend/cpu/kernels/f32_conv3x3s1_winograd_common.h"

extern "C" {
void rill_f32_winograd_f23_input_neon(const float* src, size_t row_bytes, size_t px_bytes, float* v,
                                      size_t pos_bytes, size_t vectors);
void rill_f32_winograd_f43_input_neon(const float* src, size_t row_bytes, size_t px_bytes, float* v,
                                      size_t pos_bytes, size_t vectors);
void rill_f32_winograd_f23_output_neon(const float* m, size_t pos_bytes, const float* bias, float* out,
                                       size_t row_bytes, size_t px_bytes, size_t vectors, const float* clamp);
void rill_f32_winograd_f43_output_neon(const float* m, size_t pos_bytes, const float* bias, float* out,
                                       size_t row_bytes, size_t px_bytes, size_t vectors, const float* clamp);
}

namespace rill::inference::cpu::arm64 {
namespace {

constexpr int kLanes = 4;

// The activation's clamp bounds (tanh follows the transform).
void ClampOf(FusedActivation act, float* clamp) {
  const float inf = std::numeric_limits<float>::infinity();
  switch (act) {
    case FusedActivation::kRelu: clamp[0] = 0.0f; clamp[1] = inf; return;
    case FusedActivation::kRelu6: clamp[0] = 0.0f; clamp[1] = 6.0f; return;
    case FusedActivation::kReluN1To1: clamp[0] = -1.0f; clamp[1] = 1.0f; return;
    case FusedActivation::kNone:
    case FusedActivation::kTanh: clamp[0] = -inf; clamp[1] = inf; return;
  }
}

// The scalar transforms of the channel tails, the assembly's formulas.
void InputTransform1D(const float (&d)[4], float (&r)[4]) {
  r[0] = d[0] - d[2];
  r[1] = d[1] + d[2];
  r[2] = d[2] - d[1];
  r[3] = d[1] - d[3];
}
void InputTransform1D(const float (&d)[6], float (&r)[6]) {
  r[0] = 4 * d[0] - 5 * d[2] + d[4];
  r[1] = (d[3] + d[4]) - 4 * (d[1] + d[2]);
  r[2] = (d[4] - d[3]) + 4 * (d[1] - d[2]);
  r[3] = (d[4] - d[2]) + 2 * (d[3] - d[1]);
  r[4] = (d[4] - d[2]) - 2 * (d[3] - d[1]);
  r[5] = 4 * d[1] - 5 * d[3] + d[5];
}
void OutputTransform1D(const float (&m)[4], float (&y)[2]) {
  y[0] = m[0] + m[1] + m[2];
  y[1] = m[1] - m[2] - m[3];
}
void OutputTransform1D(const float (&m)[6], float (&y)[4]) {
  const float a = m[1] + m[2], b = m[1] - m[2], c = m[3] + m[4], d = m[3] - m[4];
  y[0] = m[0] + a + c;
  y[1] = b + 2 * d;
  y[2] = a + 4 * c;
  y[3] = b + 8 * d + m[5];
}

// One channel of one tile (strides in floats).
template <int A>
void InputTileScalar(const float* src, size_t row_stride, size_t px_stride, float* v, size_t v_pos) {
  float t[A][A];
  for (int j = 0; j < A; ++j) {
    float col[A], r[A];
    for (int k = 0; k < A; ++k) col[k] = src[k * row_stride + j * px_stride];
    InputTransform1D(col, r);
    for (int i = 0; i < A; ++i) t[i][j] = r[i];
  }
  for (int i = 0; i < A; ++i) {
    float r[A];
    InputTransform1D(t[i], r);
    for (int j = 0; j < A; ++j) v[(i * A + j) * v_pos] = r[j];
  }
}

template <int A>
void OutputTileScalar(const float* mb, size_t m_pos, float bias, const float* clamp, float* out, size_t row_stride,
                      size_t px_stride, int rows, int cols) {
  constexpr int M = A - 2;
  float s[M][A];
  for (int j = 0; j < A; ++j) {
    float col[A], r[M];
    for (int k = 0; k < A; ++k) col[k] = mb[(k * A + j) * m_pos];
    OutputTransform1D(col, r);
    for (int i = 0; i < M; ++i) s[i][j] = r[i];
  }
  for (int i = 0; i < rows; ++i) {
    float y[M];
    OutputTransform1D(s[i], y);
    for (int j = 0; j < cols; ++j) out[i * row_stride + j * px_stride] = std::min(std::max(y[j] + bias, clamp[0]), clamp[1]);
  }
}

// Every channel of one tile: whole vectors in assembly, the tail scalar.
template <int A>
void InputTileAllChannels(const float* src, size_t row_stride, int ic_n, float* v, size_t v_pos) {
  const int vectors = ic_n / kLanes;
  if (vectors > 0) {
    auto* kernel = A == 4 ? rill_f32_winograd_f23_input_neon : rill_f32_winograd_f43_input_neon;
    kernel(src, row_stride * sizeof(float), static_cast<size_t>(ic_n) * sizeof(float), v, v_pos * sizeof(float),
           static_cast<size_t>(vectors));
  }
  for (int c = vectors * kLanes; c < ic_n; ++c) InputTileScalar<A>(src + c, row_stride, ic_n, v + c, v_pos);
}

template <int A>
void InputTransformT(const WinogradPlan& plan, const ConvParams& p, const float* input, int block, int t_begin,
                     int t_end, float* v, float* patch) {
  const int ic_n = p.in_c;
  const size_t v_pos = static_cast<size_t>(plan.tiles_per_block) * ic_n;
  const long long per_image = static_cast<long long>(plan.tiles_h) * plan.tiles_w;
  for (int t = t_begin; t < t_end; ++t) {
    const long long tile = static_cast<long long>(block) * plan.tiles_per_block + t;
    const int n = static_cast<int>(tile / per_image);
    const int rem = static_cast<int>(tile % per_image);
    const int y0 = (rem / plan.tiles_w) * plan.m - p.pad_top, x0 = (rem % plan.tiles_w) * plan.m - p.pad_left;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * ic_n;
    float* vt = v + static_cast<size_t>(t) * ic_n;
    if (y0 >= 0 && x0 >= 0 && y0 + A <= p.in_h && x0 + A <= p.in_w) {
      InputTileAllChannels<A>(in_n + (static_cast<long long>(y0) * p.in_w + x0) * ic_n,
                              static_cast<size_t>(p.in_w) * ic_n, ic_n, vt, v_pos);
      continue;
    }
    // A border tile: its pixels, zeros outside the image, into the patch.
    const size_t row = static_cast<size_t>(A) * ic_n;
    for (int i = 0; i < A; ++i) {
      const int y = y0 + i;
      for (int j = 0; j < A; ++j) {
        const int x = x0 + j;
        float* dst = patch + i * row + static_cast<size_t>(j) * ic_n;
        if (y < 0 || y >= p.in_h || x < 0 || x >= p.in_w) {
          std::memset(dst, 0, sizeof(float) * ic_n);
        } else {
          std::memcpy(dst, in_n + (static_cast<long long>(y) * p.in_w + x) * ic_n, sizeof(float) * ic_n);
        }
      }
    }
    InputTileAllChannels<A>(patch, row, ic_n, vt, v_pos);
  }
}

template <int A>
void OutputTransformT(const WinogradPlan& plan, const ConvParams& p, const float* bias, int block, int t_begin,
                      int t_end, const float* mbuf, float* output) {
  constexpr int M = A - 2;
  auto* kernel = A == 4 ? rill_f32_winograd_f23_output_neon : rill_f32_winograd_f43_output_neon;
  float clamp[2];
  ClampOf(p.activation, clamp);
  const int oc_n = p.out_c;
  const int px = OutPixelStride(p);  // floats between output pixels
  const int vectors = oc_n / kLanes;
  const size_t m_pos = static_cast<size_t>(plan.tiles_per_block) * oc_n;
  const long long per_image = static_cast<long long>(plan.tiles_h) * plan.tiles_w;
  const size_t row_stride = static_cast<size_t>(p.out_w) * px;
  for (int t = t_begin; t < t_end; ++t) {
    const long long tile = static_cast<long long>(block) * plan.tiles_per_block + t;
    const int n = static_cast<int>(tile / per_image);
    const int rem = static_cast<int>(tile % per_image);
    const int oy = (rem / plan.tiles_w) * M, ox = (rem % plan.tiles_w) * M;
    const int rows = std::min(M, p.out_h - oy), cols = std::min(M, p.out_w - ox);
    float* out = output + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * px;
    const float* mt = mbuf + static_cast<size_t>(t) * oc_n;
    if (vectors > 0 && rows == M && cols == M) {
      kernel(mt, m_pos * sizeof(float), bias, out, row_stride * sizeof(float), static_cast<size_t>(px) * sizeof(float),
             static_cast<size_t>(vectors), clamp);
    } else {
      // Cut by the output's edge: each vector's whole tile into scratch.
      alignas(16) float scratch[M * M * kLanes];
      for (int c = 0; c < vectors * kLanes; c += kLanes) {
        kernel(mt + c, m_pos * sizeof(float), bias != nullptr ? bias + c : nullptr, scratch, M * kLanes * sizeof(float),
               kLanes * sizeof(float), 1, clamp);
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) {
            std::memcpy(out + i * row_stride + static_cast<size_t>(j) * px + c, scratch + (i * M + j) * kLanes,
                        kLanes * sizeof(float));
          }
        }
      }
    }
    for (int c = vectors * kLanes; c < oc_n; ++c) {
      OutputTileScalar<A>(mt + c, m_pos, bias != nullptr ? bias[c] : 0.0f, clamp, out + c, row_stride, px, rows, cols);
    }
    if (p.activation == FusedActivation::kTanh) {
      for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
          float* o = out + i * row_stride + static_cast<size_t>(j) * px;
          for (int c = 0; c < oc_n; ++c) o[c] = ApplyActivation(o[c], FusedActivation::kTanh);
        }
      }
    }
  }
}

}  // namespace

void TransformWeightsWinogradNeon(int m, const ConvParams& p, const float* filter, WinogradWeights* out) {
  const size_t a2 = static_cast<size_t>(m + 2) * (m + 2);
  const int oc_n = p.out_c, ic_n = p.in_c;
  std::vector<float> u;
  WinogradTransformFilters(m, p, filter, &u);
  out->m = m;
  out->wide = false;
  out->stride = PackedWeightsFloats12(oc_n, ic_n);
  out->packed.assign(out->stride * a2, 0.0f);
  for (size_t pos = 0; pos < a2; ++pos) {
    PackWeightsNK12(u.data() + pos * oc_n * ic_n, oc_n, ic_n, out->packed.data() + out->stride * pos);
  }
}

void WinogradInputTransformNeon(const WinogradPlan& plan, const ConvParams& p, const float* input, int block,
                                int t_begin, int t_end, float* v, float* patch) {
  if (plan.alpha == 4) {
    InputTransformT<4>(plan, p, input, block, t_begin, t_end, v, patch);
  } else {
    InputTransformT<6>(plan, p, input, block, t_begin, t_end, v, patch);
  }
}

void WinogradMultiplyNeon(const WinogradPlan& plan, const ConvParams& p, const WinogradWeights& w, int block,
                          int pos_begin, int pos_end, const float* v, float* m) {
  const int tiles = WinogradBlockTiles(plan, block);
  const size_t v_pos = static_cast<size_t>(plan.tiles_per_block) * p.in_c;
  const size_t m_pos = static_cast<size_t>(plan.tiles_per_block) * p.out_c;
  for (int pos = pos_begin; pos < pos_end; ++pos) {
    GemmF32Neon(tiles, p.out_c, p.in_c, v + pos * v_pos, p.in_c, w.packed.data() + w.stride * pos, nullptr,
                FusedActivation::kNone, m + pos * m_pos, p.out_c);
  }
}

void WinogradOutputTransformNeon(const WinogradPlan& plan, const ConvParams& p, const float* bias, int block,
                                 int t_begin, int t_end, const float* m, float* output) {
  if (plan.alpha == 4) {
    OutputTransformT<4>(plan, p, bias, block, t_begin, t_end, m, output);
  } else {
    OutputTransformT<6>(plan, p, bias, block, t_begin, t_end, m, output);
  }
}

void WinogradConvNeon(const WinogradPlan& plan, const ConvParams& p, const float* input, const WinogradWeights& w,
                      const float* bias, float* scratch, float* output) {
  float* v = scratch;
  float* m = v + plan.v_floats;
  float* patch = m + plan.m_floats;
  for (int b = 0; b < plan.blocks; ++b) {
    const int tiles = WinogradBlockTiles(plan, b);
    WinogradInputTransformNeon(plan, p, input, b, 0, tiles, v, patch);
    WinogradMultiplyNeon(plan, p, w, b, 0, plan.alpha * plan.alpha, v, m);
    WinogradOutputTransformNeon(plan, p, bias, b, 0, tiles, m, output);
  }
}

}  // namespace rill::inference::cpu::arm64
