#include "inference/backend/cpu/kernels/arm64/f32_conv2d_gemm_neon.h"

#include <algorithm>
#include <cstring>

#include "inference/backend/cpu/kernels/arm64/f32_gemm_8x12_neon.h"
#include "inference/backend/cpu/kernels/ref/dequantize.h"

namespace rill::inference::cpu::arm64 {
namespace {

// Rows per GEMM call at most (a multiple of the 8-row tile): the tile of A
// stays in L2 while the weight panels stream past it.
constexpr int kRowTile = 96;
// Output channels per tile: a multiple of the 12-column panel.
constexpr int kColGroup = 96;
// Tiles a layer splits into at least, so small late layers keep every
// thread busy.
constexpr int kMinTiles = 8;

long long GemmRows(const ConvParams& p) { return static_cast<long long>(p.batch) * p.out_h * p.out_w; }
int GroupOutC(const ConvParams& p) { return p.out_c / p.groups; }
int GroupK(const ConvParams& p) { return p.kernel_h * p.kernel_w * (p.in_c / p.groups); }
int GroupColGroups(const ConvParams& p) { return (GroupOutC(p) + kColGroup - 1) / kColGroup; }
int ColGroups(const ConvParams& p) { return p.groups * GroupColGroups(p); }
size_t GroupStride(const ConvParams& p) { return PackedWeightsFloats12(GroupOutC(p), GroupK(p)); }

void ColGroupStart(const ConvParams& p, int cg, int* group, int* col) {
  *group = cg / GroupColGroups(p);
  *col = (cg % GroupColGroups(p)) * kColGroup;
}

int RowTile(const ConvParams& p) {
  const long long rows = GemmRows(p);
  const int want_row_tiles = (kMinTiles + ColGroups(p) - 1) / ColGroups(p);
  long long rt = (rows + want_row_tiles - 1) / want_row_tiles;
  rt = (rt + kGemmMr - 1) / kGemmMr * kGemmMr;
  return static_cast<int>(std::max<long long>(2 * kGemmMr, std::min<long long>(kRowTile, rt)));
}

bool Pointwise(const ConvParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.in_h == p.out_h && p.in_w == p.out_w;
}

template <typename W, typename Run>
void Tile(const ConvParams& p, const float* input, const W* packed, float* scratch, int tile, Run run) {
  const int k = GroupK(p);
  const long long rows = GemmRows(p);
  const int rt = RowTile(p);
  const long long r0 = static_cast<long long>(tile / ColGroups(p)) * rt;
  const int m = static_cast<int>(std::min<long long>(rows - r0, rt));
  int g = 0, c0 = 0;
  ColGroupStart(p, tile % ColGroups(p), &g, &c0);
  const int n = std::min(kColGroup, GroupOutC(p) - c0);
  const int n0 = g * GroupOutC(p) + c0;
  const int icg = p.in_c / p.groups;
  const int ic0 = g * icg;
  const W* w = packed + GroupStride(p) * g + static_cast<size_t>(c0) * k;
  const int in_px = InPixelStride(p);
  if (Pointwise(p)) {
    run(m, n, k, input + r0 * in_px + ic0, in_px, w, r0, n0);
    return;
  }
  const size_t row_bytes = static_cast<size_t>(icg) * sizeof(float);
  for (int i = 0; i < m; ++i) {
    const long long r = r0 + i;
    const int ox = static_cast<int>(r % p.out_w);
    const int oy = static_cast<int>((r / p.out_w) % p.out_h);
    const int b = static_cast<int>(r / (static_cast<long long>(p.out_w) * p.out_h));
    float* dst = scratch + static_cast<size_t>(i) * k;
    const float* in_n = input + static_cast<long long>(b) * p.in_h * p.in_w * in_px + ic0;
    for (int ky = 0; ky < p.kernel_h; ++ky) {
      const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      for (int kx = 0; kx < p.kernel_w; ++kx) {
        const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        float* d = dst + (ky * p.kernel_w + kx) * icg;
        if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) {
          std::memset(d, 0, row_bytes);
        } else {
          std::memcpy(d, in_n + (static_cast<long long>(iy) * p.in_w + ix) * in_px, row_bytes);
        }
      }
    }
  }
  run(m, n, k, scratch, k, w, r0, n0);
}

// A residual (absent a fused-residual GEMM) added after the GEMM, then the
// activation: the GEMM ran without it.
void AddResidual(const ConvParams& p, const float* residual, int res_c, long long r0, int m, int n0, int n,
                 float* output) {
  const int ldc = OutPixelStride(p);
  for (int i = 0; i < m; ++i) {
    float* y = output + (r0 + i) * ldc;
    for (int j = n0; j < n0 + n; ++j) {
      const float v = y[j] + (j < res_c ? residual[(r0 + i) * res_c + j] : 0.0f);
      y[j] = ApplyActivation(v, p.activation);
    }
  }
}

}  // namespace

size_t ConvGemmScratchFloats(const ConvParams& p) {
  return Pointwise(p) ? 0 : static_cast<size_t>(kRowTile) * GroupK(p);
}

int ConvGemmTiles(const ConvParams& p) {
  const int rt = RowTile(p);
  return static_cast<int>((GemmRows(p) + rt - 1) / rt) * ColGroups(p);
}

void ConvGemmTileWindow(const ConvParams& p, int tile, long long* row_begin, long long* row_end, int* col_begin,
                        int* col_end) {
  const int rt = RowTile(p);
  *row_begin = static_cast<long long>(tile / ColGroups(p)) * rt;
  *row_end = std::min(GemmRows(p), *row_begin + rt);
  int g = 0, col = 0;
  ColGroupStart(p, tile % ColGroups(p), &g, &col);
  *col_begin = g * GroupOutC(p) + col;
  *col_end = g * GroupOutC(p) + std::min(GroupOutC(p), col + kColGroup);
}

void PackConvGemm(const ConvParams& p, const float* filter, int nr, std::vector<float>* packed) {
  const int n = GroupOutC(p), k = GroupK(p);
  packed->assign(GroupStride(p) * p.groups, 0.0f);
  for (int g = 0; g < p.groups; ++g) {
    PackWeightsNK12(filter + static_cast<size_t>(g) * n * k, n, k, packed->data() + GroupStride(p) * g);
  }
}

void PackConvGemmHalf(const ConvParams& p, const float* filter, std::vector<uint16_t>* packed) {
  const int n = GroupOutC(p), k = GroupK(p);
  packed->assign(GroupStride(p) * p.groups, 0);
  for (int g = 0; g < p.groups; ++g) {
    PackWeightsNK12Half(filter + static_cast<size_t>(g) * n * k, n, k, packed->data() + GroupStride(p) * g);
  }
}

void ConvGemmTile(const ConvParams& p, const GemmKernels& gemm, const float* input, const float* packed,
                  const float* bias, float* scratch, float* output, int tile, const float* residual, int res_c) {
  const int ldc = OutPixelStride(p);
  Tile(p, input, packed, scratch, tile,
       [&](int m, int n, int k, const float* a, int lda, const float* w, long long r0, int n0) {
         const bool res = residual != nullptr && n0 < res_c;
         gemm.gemm(m, n, k, a, lda, w, bias ? bias + n0 : nullptr, res ? FusedActivation::kNone : p.activation,
                   output + r0 * ldc + n0, ldc);
         if (res) AddResidual(p, residual, res_c, r0, m, n0, n, output);
       });
}

void ConvGemmTileF16(const ConvParams& p, const float* input, const uint16_t* packed, const float* bias,
                     float* scratch, float* output, int tile, const float* residual, int res_c) {
  const int ldc = OutPixelStride(p);
  Tile(p, input, packed, scratch, tile,
       [&](int m, int n, int k, const float* a, int lda, const uint16_t* w, long long r0, int n0) {
         const bool res = residual != nullptr && n0 < res_c;
         GemmF16Neon(m, n, k, a, lda, w, bias ? bias + n0 : nullptr, res ? FusedActivation::kNone : p.activation,
                     output + r0 * ldc + n0, ldc);
         if (res) AddResidual(p, residual, res_c, r0, m, n0, n, output);
       });
}

}  // namespace rill::inference::cpu::arm64
