#include "inference/backend/cpu/kernels/f32_conv3x3s1_winograd_common.h"

#include <algorithm>

namespace rill::inference::cpu {
namespace {

// G (alpha x 3) of each variant, for the weight transform (done in double).
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};
constexpr double kG6[8][3] = {{1, 0, 0},
                              {-2.0 / 9, -2.0 / 9, -2.0 / 9},
                              {-2.0 / 9, 2.0 / 9, -2.0 / 9},
                              {1.0 / 90, 1.0 / 45, 2.0 / 45},
                              {1.0 / 90, -1.0 / 45, 2.0 / 45},
                              {32.0 / 45, 16.0 / 45, 8.0 / 45},
                              {32.0 / 45, -16.0 / 45, 8.0 / 45},
                              {0, 0, 1}};

}  // namespace

bool WinogradApplies(const ConvParams& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 &&
         p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1;
}

WinogradPlan PlanWinograd(int m, const ConvParams& p, int threads) {
  WinogradPlan plan;
  plan.m = m;
  plan.alpha = m + 2;
  plan.tiles_h = (p.out_h + m - 1) / m;
  plan.tiles_w = (p.out_w + m - 1) / m;
  plan.total_tiles =
      static_cast<long long>(p.batch) * plan.tiles_h * plan.tiles_w;
  plan.tiles_per_block = static_cast<int>(
      std::min<long long>(kWinogradMaxTilesPerBlock, std::max(1LL, plan.total_tiles)));
  if (WinogradBlocksPerThread(plan.total_tiles, threads)) {
    // A multiple of `threads` blocks of equal size (to a tile).
    long long blocks = (plan.total_tiles + kWinogradMaxTilesPerBlock - 1) / kWinogradMaxTilesPerBlock;
    blocks = (blocks + threads - 1) / threads * threads;
    plan.tiles_per_block = static_cast<int>((plan.total_tiles + blocks - 1) / blocks);
  }
  plan.blocks = static_cast<int>((plan.total_tiles + plan.tiles_per_block - 1) /
                                 plan.tiles_per_block);
  const size_t a2 = static_cast<size_t>(plan.alpha) * plan.alpha;
  plan.v_floats = a2 * plan.tiles_per_block * p.in_c;
  plan.m_floats = a2 * plan.tiles_per_block * p.out_c;
  plan.patch_floats = a2 * p.in_c;
  return plan;
}

bool WinogradBlocksPerThread(long long total_tiles, int threads) {
  return threads > 1 && total_tiles >= static_cast<long long>(kWinogradMaxTilesPerBlock) * threads;
}

int WinogradBlockTiles(const WinogradPlan& plan, int block) {
  const long long t0 = static_cast<long long>(block) * plan.tiles_per_block;
  return static_cast<int>(
      std::min<long long>(plan.tiles_per_block, plan.total_tiles - t0));
}

void WinogradTransformFilters(int m, const ConvParams& p, const float* filter, std::vector<float>* u) {
  const int alpha = m + 2;
  const double(*g)[3] = m == 2 ? kG2 : m == 4 ? kG4 : kG6;
  const int oc_n = p.out_c, ic_n = p.in_c;
  const size_t a2 = static_cast<size_t>(alpha) * alpha;
  u->assign(a2 * oc_n * ic_n, 0.0f);
  for (int oc = 0; oc < oc_n; ++oc) {
    for (int ic = 0; ic < ic_n; ++ic) {
      double k[3][3];
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
          k[y][x] =
              filter[((static_cast<size_t>(oc) * 3 + y) * 3 + x) * ic_n + ic];
      for (int i = 0; i < alpha; ++i) {
        double t[3];  // (G k)[i][:]
        for (int x = 0; x < 3; ++x)
          t[x] = g[i][0] * k[0][x] + g[i][1] * k[1][x] + g[i][2] * k[2][x];
        for (int j = 0; j < alpha; ++j) {
          const double val = t[0] * g[j][0] + t[1] * g[j][1] + t[2] * g[j][2];
          (*u)[(static_cast<size_t>(i * alpha + j) * oc_n + oc) * ic_n + ic] =
              static_cast<float>(val);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
