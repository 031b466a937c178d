// The ISA-neutral parts of Winograd F(m x m, 3x3), m = 2, 4, 6, shared by
// the x86 (x86/f32_conv3x3s1_winograd.cc) and the AArch64
// (arm64/f32_conv3x3s1_winograd_neon.cc) kernels: where the method applies,
// how a layer's tiles split into blocks, and the weight transform G g G^T
// (in double) before each ISA packs it for its GEMM microkernel.
//
// Interpolation points 0, +-1, inf (F(2,3)), 0, +-1, +-2, inf (F(4,3)) and
// 0, +-1, +-2, +-1/2, inf (F(6,3)).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_F32_CONV3X3S1_WINOGRAD_COMMON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_F32_CONV3X3S1_WINOGRAD_COMMON_H_

#include <vector>

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

// GEMM rows per position: enough rows to amortise streaming each position's
// packed weights, few enough that a block's transformed tiles stay in L2/L3.
constexpr int kWinogradMaxTilesPerBlock = 48;

// 3x3, stride 1, dilation 1 (any padding, any channel count, any batch).
bool WinogradApplies(const ConvParams& p);

// For `threads` > 1 with tiles enough (WinogradBlocksPerThread), the tiles
// split into a multiple of `threads` equal blocks so that each thread can run
// whole blocks, all three phases, in one parallel loop. Outputs do not depend
// on the blocking (each GEMM row is computed alone, in the same order).
WinogradPlan PlanWinograd(int m, const ConvParams& p, int threads = 1);
// Tiles enough means a full block (48 tiles) per thread: every thread of a
// block-per-thread run streams all alpha^2 transformed filters, so with fewer
// tiles (ResNet's 14x14 and 7x7 maps: 16 tiles) two threads read twice the
// filter bytes for the same work and ran no faster than one; there the three
// phases split instead (each thread half of the GEMM positions' filters):
// F(4,3) 14x14x256 0.62-0.66 -> 0.52-0.58 ms, F(2,3) 7x7x512 1.27-1.42 ->
// 1.03-1.08 ms at 2 threads (VM).
bool WinogradBlocksPerThread(long long total_tiles, int threads);
// Tiles in `block` (the last block may be short).
int WinogradBlockTiles(const WinogradPlan& plan, int block);

// The alpha^2 transformed filter matrices U = G g G^T, [alpha^2][out_c][in_c]
// (computed in double, rounded once), from OHWI filters.
void WinogradTransformFilters(int m, const ConvParams& p, const float* filter_ohwi, std::vector<float>* u);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_F32_CONV3X3S1_WINOGRAD_COMMON_H_
