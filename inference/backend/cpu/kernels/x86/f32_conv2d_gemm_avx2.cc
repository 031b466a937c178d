#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "inference/backend/cpu/kernels/ref/dequantize.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"

namespace rill::inference::cpu::x86 {
namespace {

// Rows per GEMM call at most: the tile of A (rows x K) stays in L2 while
// every weight panel streams past it.
constexpr int kRowTile = 96;
// Output channels per tile: a multiple of every microkernel's panel width
// (16 for AVX2, 32 for AVX-512), so a column group starts on a panel.
constexpr int kColGroup = 128;
// Tiles a layer should split into at least, so that small late layers
// (7x7 or 14x14 pixels, one row tile) still keep every thread busy.
constexpr int kMinTiles = 8;

long long GemmRows(const ConvParams& p) { return static_cast<long long>(p.batch) * p.out_h * p.out_w; }
// Output channels and GEMM depth of one channel group.
int GroupOutC(const ConvParams& p) { return p.out_c / p.groups; }
int GroupK(const ConvParams& p) { return p.kernel_h * p.kernel_w * (p.in_c / p.groups); }
// Column groups per channel group, and in all.
int GroupColGroups(const ConvParams& p) { return (GroupOutC(p) + kColGroup - 1) / kColGroup; }
int ColGroups(const ConvParams& p) { return p.groups * GroupColGroups(p); }

// Where column group `cg` starts: its channel group, and its first column
// within that group.
void ColGroupStart(const ConvParams& p, int cg, int* group, int* col) {
  *group = cg / GroupColGroups(p);
  *col = (cg % GroupColGroups(p)) * kColGroup;
}

// Rows per tile: kRowTile, or fewer (a multiple of 6, the microkernel's
// rows) when that is what it takes to reach kMinTiles tiles.
int RowTile(const ConvParams& p) {
  const long long rows = GemmRows(p);
  const int groups = ColGroups(p);
  const int want_row_tiles = (kMinTiles + groups - 1) / groups;
  long long rt = (rows + want_row_tiles - 1) / want_row_tiles;
  rt = (rt + 5) / 6 * 6;
  return static_cast<int>(std::max<long long>(12, std::min<long long>(kRowTile, rt)));
}

// Row tiles, and rows [*r0, *r1) of row tile `i`: the rows' 6-row units
// (the microkernel's) in near-equal tiles of at most RowTile(p), the last
// tile taking the rows past the last whole unit (a 16x16 map is 8 tiles of
// 30-36 rows, not 7 of 36 and one of 4, which left one thread of two 4 tiles
// of 36 rows against the other's 3 of 36 and the 4). Each output's sum does
// not depend on its tile.
long long RowTiles(const ConvParams& p) {
  const int rt = RowTile(p);
  return (GemmRows(p) + rt - 1) / rt;
}
void TileRows(const ConvParams& p, long long i, long long* r0, long long* r1) {
  const long long rows = GemmRows(p), tiles = RowTiles(p), units = (rows + 5) / 6;
  *r0 = std::min(rows, 6 * (units * i / tiles));
  *r1 = i + 1 == tiles ? rows : std::min(rows, 6 * (units * (i + 1) / tiles));
}

}  // namespace

void PackGemmWeights(const float* w, int n, int k, bool avx512, std::vector<float>* packed) {
  if (avx512) {
    packed->assign(PackedWeightsFloats512(n, k), 0.0f);
    PackWeightsNK512(w, n, k, packed->data());
  } else {
    packed->assign(PackedWeightsFloats(n, k), 0.0f);
    PackWeightsNK(w, n, k, packed->data());
  }
}

size_t ConvGemmGroupStride(const ConvParams& p, bool bf16) {
  const int depth = bf16 ? Bf16PanelDepth(GroupK(p)) : GroupK(p);
  return static_cast<size_t>((GroupOutC(p) + 31) / 32) * 32 * static_cast<size_t>(depth);
}

void PackConvGemmWeights(const ConvParams& p, const float* filter, bool avx512, std::vector<float>* packed) {
  if (p.groups == 1) {
    PackGemmWeights(filter, p.out_c, GroupK(p), avx512, packed);
    return;
  }
  const int n = GroupOutC(p), k = GroupK(p);
  packed->assign(ConvGemmGroupStride(p) * p.groups, 0.0f);
  for (int g = 0; g < p.groups; ++g) {
    const float* w = filter + static_cast<size_t>(g) * n * k;
    float* dst = packed->data() + ConvGemmGroupStride(p) * g;
    if (avx512) {
      PackWeightsNK512(w, n, k, dst);
    } else {
      PackWeightsNK(w, n, k, dst);
    }
  }
}

void PackGemmWeightsHalf(const float* w, int n, int k, std::vector<uint16_t>* packed) {
  packed->assign(PackedWeightsFloats512(n, k), 0);
  PackWeightsNK512Half(w, n, k, packed->data());
}

void PackConvGemmWeightsHalf(const ConvParams& p, const float* filter, std::vector<uint16_t>* packed) {
  const int n = GroupOutC(p), k = GroupK(p);
  packed->assign(ConvGemmGroupStride(p) * p.groups, 0);
  for (int g = 0; g < p.groups; ++g) {
    PackWeightsNK512Half(filter + static_cast<size_t>(g) * n * k, n, k, packed->data() + ConvGemmGroupStride(p) * g);
  }
}

void PackConvGemmWeightsBf16(const ConvParams& p, const float* filter, std::vector<Bf16>* packed) {
  const int n = GroupOutC(p), k = GroupK(p);
  const size_t stride = ConvGemmGroupStride(p, /*bf16=*/true);
  packed->assign(stride * p.groups, Bf16{0});
  for (int g = 0; g < p.groups; ++g) {
    PackWeightsNK512Bf16(filter + static_cast<size_t>(g) * n * k, n, k, packed->data() + stride * g);
  }
}

void ToHalfPanels(std::vector<float>* packed, std::vector<uint16_t>* half) {
  half->resize(packed->size());
  for (size_t i = 0; i < packed->size(); ++i) (*half)[i] = FloatToHalf((*packed)[i]);
  std::vector<float>().swap(*packed);
}

bool ConvIsPointwise(const ConvParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.in_h == p.out_h && p.in_w == p.out_w;
}

size_t Conv2DGemmScratchFloats(const ConvParams& p) {
  if (ConvIsPointwise(p)) return 0;
  return static_cast<size_t>(kRowTile) * GroupK(p);
}

int Conv2DGemmTiles(const ConvParams& p) { return static_cast<int>(RowTiles(p)) * ColGroups(p); }

void Conv2DGemmTileWindow(const ConvParams& p, int tile, long long* row_begin, long long* row_end, int* col_begin,
                          int* col_end) {
  const int groups = ColGroups(p);
  TileRows(p, tile / groups, row_begin, row_end);
  int g = 0, col = 0;
  ColGroupStart(p, tile % groups, &g, &col);
  *col_begin = g * GroupOutC(p) + col;
  *col_end = g * GroupOutC(p) + std::min(GroupOutC(p), col + kColGroup);
}

namespace {

// One tile over float panels (`gemm`) or half panels (GemmF16wAvx512*).
template <typename W>
void GemmTile(const ConvParams& p, const float* input, const W* packed_filter, const float* bias, float* scratch,
              float* output, int tile, GemmFn gemm, const float* residual, int res_c) {
  const int k = GroupK(p);
  const int groups = ColGroups(p);
  long long r0 = 0, r1 = 0;
  TileRows(p, tile / groups, &r0, &r1);
  const int m = static_cast<int>(r1 - r0);
  // Column group: packed panels are kNr columns x k, so column c0 of its
  // channel group (a multiple of kNr) starts at c0 * k floats of the group's
  // packed weights; n0 is the output channel.
  int g = 0, c0 = 0;
  ColGroupStart(p, tile % groups, &g, &c0);
  const int n = std::min(kColGroup, GroupOutC(p) - c0);
  const int n0 = g * GroupOutC(p) + c0;
  const int ic0 = g * (p.in_c / p.groups);  // the group's first input channel
  // bf16 panels hold k rounded up to even (k pairs).
  const size_t depth = std::is_same_v<W, Bf16> ? static_cast<size_t>(Bf16PanelDepth(k)) : static_cast<size_t>(k);
  const size_t group_stride = ConvGemmGroupStride(p, std::is_same_v<W, Bf16>);
  const W* w = packed_filter + (p.groups > 1 ? group_stride * g : 0) + static_cast<size_t>(c0) * depth;
  const float* b = bias ? bias + n0 : nullptr;
  const int ldc = OutPixelStride(p);
  float* out = output + r0 * ldc + n0;
  // The GEMM of rows [r0, r0 + m) x columns [n0, n0 + n), with the residual
  // of those rows and columns.
  const float* res = residual != nullptr && n0 < res_c ? residual + r0 * res_c + n0 : nullptr;
  auto run = [&](const float* a, int lda) {
    if constexpr (std::is_same_v<W, Bf16>) {
      if (res) GemmBf16Avx512Residual(m, n, k, a, lda, w, b, p.activation, out, ldc, res, res_c, res_c - n0);
      else GemmBf16Avx512(m, n, k, a, lda, w, b, p.activation, out, ldc);
    } else if constexpr (std::is_same_v<W, uint16_t>) {
      if (res) GemmF16wAvx512Residual(m, n, k, a, lda, w, b, p.activation, out, ldc, res, res_c, res_c - n0);
      else GemmF16wAvx512(m, n, k, a, lda, w, b, p.activation, out, ldc);
    } else {
      if (res) GemmF32Avx512Residual(m, n, k, a, lda, w, b, p.activation, out, ldc, res, res_c, res_c - n0);
      else gemm(m, n, k, a, lda, w, b, p.activation, out, ldc);
    }
  };
  if (ConvIsPointwise(p)) {
    run(input + r0 * p.in_c + ic0, p.in_c);
    return;
  }
  const int icg = p.in_c / p.groups;
  const size_t row_bytes = static_cast<size_t>(icg) * sizeof(float);
  for (int i = 0; i < m; ++i) {
    const long long r = r0 + i;
    const int ox = static_cast<int>(r % p.out_w);
    const int oy = static_cast<int>((r / p.out_w) % p.out_h);
    const int n = static_cast<int>(r / (static_cast<long long>(p.out_w) * p.out_h));
    float* dst = scratch + static_cast<size_t>(i) * k;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * p.in_c + ic0;
    for (int ky = 0; ky < p.kernel_h; ++ky) {
      const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      for (int kx = 0; kx < p.kernel_w; ++kx) {
        const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        float* d = dst + (ky * p.kernel_w + kx) * icg;
        if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) {
          std::memset(d, 0, row_bytes);
        } else {
          std::memcpy(d, in_n + (static_cast<long long>(iy) * p.in_w + ix) * p.in_c, row_bytes);
        }
      }
    }
  }
  run(scratch, k);
}

}  // namespace

void Conv2DGemmAvx2Tile(const ConvParams& p, const float* input, const float* packed_filter, const float* bias,
                        float* scratch, float* output, int tile, GemmFn gemm, const float* residual, int res_c) {
  GemmTile(p, input, packed_filter, bias, scratch, output, tile, gemm ? gemm : GemmF32Avx2, residual, res_c);
}

void Conv2DGemmAvx512HalfTile(const ConvParams& p, const float* input, const uint16_t* packed_filter,
                              const float* bias, float* scratch, float* output, int tile, const float* residual,
                              int res_c) {
  GemmTile(p, input, packed_filter, bias, scratch, output, tile, nullptr, residual, res_c);
}

void Conv2DGemmAvx512Bf16Tile(const ConvParams& p, const float* input, const Bf16* packed_filter, const float* bias,
                              float* scratch, float* output, int tile, const float* residual, int res_c) {
  GemmTile(p, input, packed_filter, bias, scratch, output, tile, nullptr, residual, res_c);
}

void Conv2DGemmAvx2(const ConvParams& p, const float* input, const float* packed_filter, const float* bias,
                    float* scratch, float* output) {
  const int tiles = Conv2DGemmTiles(p);
  for (int t = 0; t < tiles; ++t) Conv2DGemmAvx2Tile(p, input, packed_filter, bias, scratch, output, t);
}

}  // namespace rill::inference::cpu::x86
