// The aarch64 filler of the CPU kernel table (cpu_kernels.h): NEON kernels
// on every ARMv8-A CPU (Winograd F(2,3) and F(4,3) among them), the
// fp16-arithmetic GEMM where HWCAP has ASIMDHP.
#include "inference/backend/cpu/kernels/arm64/arm64_kernels.h"

#include <vector>

#include "inference/backend/cpu/kernels/arm64/f32_conv2d_gemm_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv3x3s1_winograd_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_conv2d_sliding_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_dwconv2d_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_gemm_8x12_neon.h"
#include "inference/backend/cpu/kernels/arm64/f32_prelu_neon.h"
#include "inference/backend/cpu/kernels/f32_conv3x3s1_winograd_common.h"

namespace rill::inference::cpu {
namespace arm64 {
namespace {

GemmKernels Gemm8x12(bool fp16) {
  GemmKernels g;
  g.name = fp16 ? "8x12_neonfp16" : "8x12_neon";
  g.isa = fp16 ? "neon_fp16" : "neon";
  g.mr = kGemmMr;
  g.nr = kGemmNr;
  g.packed_floats = PackedWeightsFloats12;
  g.pack = PackWeightsNK12;
  g.pack_kn = PackPanelsKN<kGemmNr>;
  g.gemm = GemmF32Neon;
  if (fp16) {
    g.pack_f16 = PackWeightsNK12Half;
    g.gemm_f16 = GemmF16Neon;
  }
  return g;
}

SlidingKernels Sliding() {
  SlidingKernels s;
  s.isa = "neon";
  s.lanes = 4;
  s.packed_floats = SlidingPackedFloats;
  s.pack = PackSlidingWeights;
  s.rows = Conv2DSlidingNeonRows;
  return s;
}

WinogradPlan PlanWinogradNeon(int m, const ConvParams& p, int threads) { return PlanWinograd(m, p, threads); }

WinogradKernels Winograd() {
  WinogradKernels w;
  w.isa = "neon";
  w.plan = PlanWinogradNeon;
  w.blocks_per_thread = WinogradBlocksPerThread;
  w.block_tiles = WinogradBlockTiles;
  w.transform_weights = TransformWeightsWinogradNeon;
  // No half panels: under Precision::kFp16 the products stay fp32 (the
  // F(4,3) transforms would amplify half-precision sums' rounding, as they
  // do bf16's on x86).
  w.input_transform = WinogradInputTransformNeon;
  w.multiply = WinogradMultiplyNeon;
  w.output_transform = WinogradOutputTransformNeon;
  w.max_m = kWinogradNeonMaxM;
  w.nr = kGemmNr;
  w.lanes = 4;
  return w;
}

}  // namespace

CpuKernels KernelTable(const CpuFeatures& f) {
  CpuKernels k;
  if (!f.asimd) return k;
  k.isa = f.asimdhp ? "neon_fp16" : "neon";
  k.vector_lanes = 4;
  k.has_fp16_arith = f.asimdhp;
  k.gemm[CpuKernels::kNarrowGemm] = Gemm8x12(false);
  k.im2col.scratch_floats = ConvGemmScratchFloats;
  k.im2col.tiles = ConvGemmTiles;
  k.im2col.tile_window = ConvGemmTileWindow;
  k.im2col.pack = PackConvGemm;
  k.im2col.tile = ConvGemmTile;
  k.sliding[0] = Sliding();
  k.winograd = Winograd();
  k.depthwise.isa = "neon";
  k.depthwise.rows = DepthwiseConv2DNeonRows;
  k.elementwise.prelu_isa = "neon";
  k.elementwise.prelu = PReluNeon;
  if (!f.asimdhp) return k;
  // The wide slot: the same fp32 tile, plus the fp16-arithmetic GEMM that
  // Precision::kFp16 selects (ChoosePanelType reads the wide slot).
  k.gemm[CpuKernels::kWideGemm] = Gemm8x12(true);
  k.im2col.pack_f16 = PackConvGemmHalf;
  k.im2col.tile_f16 = ConvGemmTileF16;
  k.sliding[1] = Sliding();
  return k;
}

}  // namespace arm64

CpuKernels MakeHostKernels() { return arm64::KernelTable(arm64::GetCpuFeatures()); }

}  // namespace rill::inference::cpu
