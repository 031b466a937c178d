#include "inference/backend/cpu/kernels/x86/f32_transpose_conv2d.h"

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"

namespace rill::inference::cpu::x86 {
namespace {

// Columns of one group's GEMM: every (ky, kx, output channel of the group).
int GroupColumns(const ConvParams& p) { return p.kernel_h * p.kernel_w * (p.out_c / p.groups); }

// Floats between two groups' packed matrices (room for either panel width).
size_t GroupStride(const ConvParams& p) {
  return static_cast<size_t>((GroupColumns(p) + 31) / 32) * 32 * static_cast<size_t>(p.in_c / p.groups);
}

// Adds n floats of `src` into `dst`.
void AddInto(const float* src, float* dst, int n) {
  for (int i = 0; i < n; ++i) dst[i] += src[i];
}

void Pack(const float* w, int n, int k, bool avx512, float* dst) {
  if (avx512) {
    PackWeightsNK512(w, n, k, dst);
  } else {
    PackWeightsNK(w, n, k, dst);
  }
}

// The tiling case: one packed [kw * out_c, in_c] matrix per kernel row
// (column kx * out_c + oc is filter[oc][ky][kx][:]), RowStride floats apart,
// then the bias repeated kw times.
size_t RowStride(const ConvParams& p) {
  return static_cast<size_t>((p.kernel_w * p.out_c + 31) / 32) * 32 * static_cast<size_t>(p.in_c);
}

}  // namespace

bool TransposeConvTiles(const ConvParams& p) {
  return p.groups == 1 && p.stride_h == p.kernel_h && p.stride_w == p.kernel_w && p.pad_top == 0 &&
         p.pad_left == 0 && p.out_h == p.in_h * p.stride_h && p.out_w == p.in_w * p.stride_w;
}

void PackTransposeConvWeights(const ConvParams& p, const float* filter, const float* bias, bool avx512,
                              std::vector<float>* packed) {
  const int cog = p.out_c / p.groups, cig = p.in_c / p.groups;
  const int taps = p.kernel_h * p.kernel_w;
  if (TransposeConvTiles(p)) {
    const int n = p.kernel_w * p.out_c;
    packed->assign(RowStride(p) * p.kernel_h + n, 0.0f);
    std::vector<float> w(static_cast<size_t>(n) * p.in_c);
    for (int ky = 0; ky < p.kernel_h; ++ky) {
      for (int kx = 0; kx < p.kernel_w; ++kx) {
        for (int oc = 0; oc < p.out_c; ++oc) {
          const float* src = filter + (static_cast<size_t>(oc) * taps + ky * p.kernel_w + kx) * p.in_c;
          std::copy(src, src + p.in_c, w.begin() + (static_cast<size_t>(kx) * p.out_c + oc) * p.in_c);
        }
      }
      Pack(w.data(), n, p.in_c, avx512, packed->data() + RowStride(p) * ky);
    }
    float* b = packed->data() + RowStride(p) * p.kernel_h;
    for (int i = 0; i < n; ++i) b[i] = bias ? bias[i % p.out_c] : 0.0f;
    return;
  }
  const int n = GroupColumns(p);
  packed->assign(GroupStride(p) * p.groups, 0.0f);
  // Column (tap * cog + oc) of group g is filter[g * cog + oc][tap][:].
  std::vector<float> w(static_cast<size_t>(n) * cig);
  for (int g = 0; g < p.groups; ++g) {
    for (int tap = 0; tap < taps; ++tap) {
      for (int oc = 0; oc < cog; ++oc) {
        const float* src = filter + (static_cast<size_t>(g * cog + oc) * taps + tap) * cig;
        std::copy(src, src + cig, w.begin() + (static_cast<size_t>(tap) * cog + oc) * cig);
      }
    }
    Pack(w.data(), n, cig, avx512, packed->data() + GroupStride(p) * g);
  }
}

size_t TransposeConvScratchFloats(const ConvParams& p) {
  return TransposeConvTiles(p) ? 0 : static_cast<size_t>(p.in_w) * GroupColumns(p);
}

void TransposeConv2DRows(const ConvParams& p, const float* input, const float* packed, const float* bias,
                         GemmFn gemm, float* scratch, float* output, int row_begin, int row_end) {
  const int cog = p.out_c / p.groups, cig = p.in_c / p.groups;
  const int n_cols = GroupColumns(p);
  const long long out_row = static_cast<long long>(p.out_w) * p.out_c;
  const long long in_row = static_cast<long long>(p.in_w) * p.in_c;
  if (TransposeConvTiles(p)) {
    // Output row oy is input row oy / kh times kernel row oy % kh: in_w
    // pixels x (kw x out_c) columns, contiguous in the output.
    const int n = p.kernel_w * p.out_c;
    const float* tiled_bias = packed + RowStride(p) * p.kernel_h;
    for (int r = row_begin; r < row_end; ++r) {
      const int img = r / p.out_h, oy = r % p.out_h;
      const float* x = input + (static_cast<long long>(img) * p.in_h + oy / p.kernel_h) * in_row;
      gemm(p.in_w, n, p.in_c, x, p.in_c, packed + RowStride(p) * (oy % p.kernel_h), tiled_bias, p.activation,
           output + r * out_row, n);
    }
    return;
  }
  for (int r = row_begin; r < row_end; ++r) {  // bias first
    float* y = output + r * out_row;
    for (int ox = 0; ox < p.out_w; ++ox) {
      for (int oc = 0; oc < p.out_c; ++oc) y[static_cast<long long>(ox) * p.out_c + oc] = bias ? bias[oc] : 0.0f;
    }
  }
  // The band's rows image by image: input rows iy reach output rows
  // iy * stride - pad_top + ky, ky in [0, kh).
  for (int r0 = row_begin; r0 < row_end;) {
    const int n = r0 / p.out_h;
    const int oy_lo = r0 % p.out_h;
    const int oy_hi = std::min(p.out_h, oy_lo + (row_end - r0));
    r0 += oy_hi - oy_lo;
    // First and last input rows with a tap in [oy_lo, oy_hi).
    const int lo_num = oy_lo + p.pad_top - p.kernel_h + 1;
    const int iy_lo = std::max(0, lo_num <= 0 ? 0 : (lo_num + p.stride_h - 1) / p.stride_h);
    const int iy_hi = std::min(p.in_h - 1, (oy_hi - 1 + p.pad_top) / p.stride_h);
    for (int iy = iy_lo; iy <= iy_hi; ++iy) {
      const float* x = input + (static_cast<long long>(n) * p.in_h + iy) * in_row;
      for (int g = 0; g < p.groups; ++g) {
        // scratch[ix][tap * cog + oc]: input pixel ix's contribution to tap.
        gemm(p.in_w, n_cols, cig, x + g * cig, p.in_c, packed + GroupStride(p) * g, nullptr, FusedActivation::kNone,
             scratch, n_cols);
        for (int ky = 0; ky < p.kernel_h; ++ky) {
          const int oy = iy * p.stride_h - p.pad_top + ky;
          if (oy < oy_lo || oy >= oy_hi) continue;
          float* y = output + (static_cast<long long>(n) * p.out_h + oy) * out_row + g * cog;
          for (int ix = 0; ix < p.in_w; ++ix) {
            const float* c = scratch + static_cast<long long>(ix) * n_cols + ky * p.kernel_w * cog;
            for (int kx = 0; kx < p.kernel_w; ++kx) {
              const int ox = ix * p.stride_w - p.pad_left + kx;
              if (ox < 0 || ox >= p.out_w) continue;
              AddInto(c + kx * cog, y + static_cast<long long>(ox) * p.out_c, cog);
            }
          }
        }
      }
    }
  }
  if (p.activation == FusedActivation::kNone) return;
  float* y = output + static_cast<long long>(row_begin) * out_row;
  const long long count = static_cast<long long>(row_end - row_begin) * out_row;
  for (long long i = 0; i < count; ++i) y[i] = ApplyActivation(y[i], p.activation);
}

}  // namespace rill::inference::cpu::x86
