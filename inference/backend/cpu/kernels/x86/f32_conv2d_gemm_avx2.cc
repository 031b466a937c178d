#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"

#include <cstring>

#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"

namespace rill::inference::cpu::x86 {
namespace {

// Rows per GEMM call: the tile of A (rows x K) stays in L2 while every
// weight panel streams past it.
constexpr int kRowTile = 96;

}  // namespace

bool ConvIsPointwise(const ConvParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.in_h == p.out_h && p.in_w == p.out_w;
}

size_t Conv2DGemmScratchFloats(const ConvParams& p) {
  if (ConvIsPointwise(p)) return 0;
  return static_cast<size_t>(kRowTile) * p.kernel_h * p.kernel_w * p.in_c;
}

int Conv2DGemmTiles(const ConvParams& p) {
  const long long rows = static_cast<long long>(p.batch) * p.out_h * p.out_w;
  return static_cast<int>((rows + kRowTile - 1) / kRowTile);
}

void Conv2DGemmAvx2Tile(const ConvParams& p, const float* input, const float* packed_filter, const float* bias,
                        float* scratch, float* output, int tile, GemmFn gemm) {
  if (gemm == nullptr) gemm = GemmF32Avx2;
  const int k = p.kernel_h * p.kernel_w * p.in_c;
  const long long rows = static_cast<long long>(p.batch) * p.out_h * p.out_w;
  const long long r0 = static_cast<long long>(tile) * kRowTile;
  const int m = static_cast<int>(rows - r0 < kRowTile ? rows - r0 : kRowTile);
  if (ConvIsPointwise(p)) {
    gemm(m, p.out_c, k, input + r0 * p.in_c, p.in_c, packed_filter, bias, p.activation, output + r0 * p.out_c,
         p.out_c);
    return;
  }
  const size_t row_bytes = static_cast<size_t>(p.in_c) * sizeof(float);
  for (int i = 0; i < m; ++i) {
    const long long r = r0 + i;
    const int ox = static_cast<int>(r % p.out_w);
    const int oy = static_cast<int>((r / p.out_w) % p.out_h);
    const int n = static_cast<int>(r / (static_cast<long long>(p.out_w) * p.out_h));
    float* dst = scratch + static_cast<size_t>(i) * k;
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * p.in_c;
    for (int ky = 0; ky < p.kernel_h; ++ky) {
      const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
      for (int kx = 0; kx < p.kernel_w; ++kx) {
        const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
        float* d = dst + (ky * p.kernel_w + kx) * p.in_c;
        if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) {
          std::memset(d, 0, row_bytes);
        } else {
          std::memcpy(d, in_n + (static_cast<long long>(iy) * p.in_w + ix) * p.in_c, row_bytes);
        }
      }
    }
  }
  gemm(m, p.out_c, k, scratch, k, packed_filter, bias, p.activation, output + r0 * p.out_c, p.out_c);
}

void Conv2DGemmAvx2(const ConvParams& p, const float* input, const float* packed_filter, const float* bias,
                    float* scratch, float* output) {
  const int tiles = Conv2DGemmTiles(p);
  for (int t = 0; t < tiles; ++t) Conv2DGemmAvx2Tile(p, input, packed_filter, bias, scratch, output, t);
}

}  // namespace rill::inference::cpu::x86
