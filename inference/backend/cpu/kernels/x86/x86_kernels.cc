#include "inference/backend/cpu/kernels/x86/x86_kernels.h"

#include <vector>

#include "inference/backend/cpu/kernels/x86/f32_attention_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_binary_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_gemm_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_grouped_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_conv2d_sliding.h"
#include "inference/backend/cpu/kernels/x86/f32_conv3x3s1_winograd.h"
#include "inference/backend/cpu/kernels/x86/f32_data_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_dwconv2d_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_strassen.h"
#include "inference/backend/cpu/kernels/x86/f32_prelu.h"
#include "inference/backend/cpu/kernels/x86/f32_resize_bilinear_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_resize_separable.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"
#include "inference/backend/cpu/kernels/x86/f32_transpose_conv2d.h"

namespace rill::inference::cpu {
namespace x86 {
namespace {

// The x86 kernels take the variant as an argument (`avx512`, `lanes`, the
// GEMM to run); the table's entries have it bound, so these adapters fix it
// at compile time, one instantiation per variant.

template <bool kWide>
constexpr GemmFn kGemm = kWide ? GemmF32Avx512 : GemmF32Avx2;

void PackConvGemm(const ConvParams& p, const float* filter, int nr, std::vector<float>* packed) {
  PackConvGemmWeights(p, filter, nr == kGemm512Nr, packed);
}

void ConvGemmTile(const ConvParams& p, const GemmKernels& gemm, const float* input, const float* packed,
                  const float* bias, float* scratch, float* output, int tile, const float* residual, int res_c) {
  Conv2DGemmAvx2Tile(p, input, packed, bias, scratch, output, tile, gemm.gemm, residual, res_c);
}

template <int kLanes>
size_t SlidingFloats(const ConvParams& p) {
  return SlidingPackedFloats(p, kLanes);
}
template <int kLanes>
void SlidingPack(const ConvParams& p, const float* filter, float* packed) {
  PackSlidingWeights(p, filter, kLanes, packed);
}
template <int kLanes>
void SlidingRows(const ConvParams& p, const float* input, const float* packed, const float* bias, float* output,
                 int row_begin, int row_end) {
  Conv2DSlidingRows(p, input, packed, bias, kLanes == 16, output, row_begin, row_end);
}

WinogradPlan PlanWinogradFor(int m, const ConvParams& p, int threads) { return PlanWinograd(m, p, threads); }
template <bool kWide>
void WinogradWeightsFor(int m, const ConvParams& p, const float* filter, WinogradWeights* out) {
  TransformWeightsWinograd(m, p, filter, kWide, out);
}
void WinogradToHalf(WinogradWeights* w) { ToHalfPanels(&w->packed, &w->half); }
template <bool kWide>
void WinogradIn(const WinogradPlan& plan, const ConvParams& p, const float* input, int block, int t_begin, int t_end,
                float* v, float* patch) {
  WinogradInputTransform(plan, p, input, kWide, block, t_begin, t_end, v, patch);
}
template <bool kWide>
void WinogradMul(const WinogradPlan& plan, const ConvParams& p, const WinogradWeights& w, int block, int pos_begin,
                 int pos_end, const float* v, float* m) {
  WinogradMultiply(plan, p, w, kGemm<kWide>, block, pos_begin, pos_end, v, m);
}
template <bool kWide>
void WinogradOut(const WinogradPlan& plan, const ConvParams& p, const float* bias, int block, int t_begin, int t_end,
                 const float* m, float* output) {
  WinogradOutputTransform(plan, p, bias, kWide, block, t_begin, t_end, m, output);
}

template <bool kWide>
void StrassenPrepare(const float* w, int n, int k, int depth, StrassenWeights* out) {
  PrepareStrassenWeights(w, n, k, depth, kWide, out);
}
template <bool kWide>
void StrassenGemm(int m, const float* a, int lda, const StrassenWeights& w, const float* bias, FusedActivation act,
                  float* c, int ldc, float* scratch) {
  GemmStrassen(m, a, lda, w, bias, act, kGemm<kWide>, c, ldc, scratch);
}

void PackTransposeConv(const ConvParams& p, const float* filter, const float* bias, int nr,
                       std::vector<float>* packed) {
  PackTransposeConvWeights(p, filter, bias, nr == kGemm512Nr, packed);
}

GemmKernels NarrowGemm() {
  GemmKernels g;
  g.name = "6x16_avx2";
  g.isa = "avx2";
  g.mr = kGemmMr;
  g.nr = kGemmNr;
  g.packed_floats = PackedWeightsFloats;
  g.pack = PackWeightsNK;
  g.pack_kn = PackPanelsKN<kGemmNr>;
  g.gemm = GemmF32Avx2;
  return g;
}

GemmKernels WideGemm(bool bf16) {
  GemmKernels g;
  g.name = "6x32_avx512";
  g.isa = "avx512";
  g.mr = kGemmMr;
  g.nr = kGemm512Nr;
  g.packed_floats = PackedWeightsFloats512;
  g.pack = PackWeightsNK512;
  g.pack_kn = PackPanelsKN<kGemm512Nr>;
  g.gemm = GemmF32Avx512;
  g.gemm_residual = GemmF32Avx512Residual;
  g.gemv = GemvF32Avx512;
  g.pack_f16 = PackWeightsNK512Half;
  g.gemm_f16 = GemmF16wAvx512;
  g.gemm_residual_f16 = GemmF16wAvx512Residual;
  g.gemv_f16 = GemvF16wAvx512;
  if (bf16) {
    g.packed_bf16 = PackedWeightsBf16;
    g.pack_bf16 = PackWeightsNK512Bf16;
    g.gemm_bf16 = GemmBf16Avx512;
    g.gemm_residual_bf16 = GemmBf16Avx512Residual;
  }
  return g;
}

template <int kLanes>
SlidingKernels Sliding(const char* isa) {
  SlidingKernels s;
  s.isa = isa;
  s.lanes = kLanes;
  s.packed_floats = SlidingFloats<kLanes>;
  s.pack = SlidingPack<kLanes>;
  s.rows = SlidingRows<kLanes>;
  return s;
}

template <bool kWide>
WinogradKernels Winograd() {
  WinogradKernels w;
  w.isa = kWide ? "avx512" : "avx2";
  w.plan = PlanWinogradFor;
  w.blocks_per_thread = WinogradBlocksPerThread;
  w.block_tiles = WinogradBlockTiles;
  w.transform_weights = WinogradWeightsFor<kWide>;
  w.to_f16 = WinogradToHalf;
  w.to_bf16 = ToBf16Panels;
  w.input_transform = WinogradIn<kWide>;
  w.multiply = WinogradMul<kWide>;
  w.output_transform = WinogradOut<kWide>;
  // The products run on the GEMM of this ISA (kGemm<kWide>): AVX2's 16-wide
  // panels, not the AVX-512 slot the cost model would assume by default.
  w.nr = kWide ? kGemm512Nr : kGemmNr;
  w.lanes = kWide ? 16 : 8;
  return w;
}

template <bool kWide>
StrassenKernels Strassen() {
  StrassenKernels s;
  s.isa = kWide ? "avx512" : "avx2";
  s.prepare = StrassenPrepare<kWide>;
  s.scratch_floats = StrassenScratchFloats;
  s.gemm = StrassenGemm<kWide>;
  return s;
}

}  // namespace

CpuKernels KernelTable(const CpuFeatures& f) {
  CpuKernels k;
  const bool avx2 = f.avx2 && f.fma;
  const bool avx512 = avx2 && f.avx512f;
  k.isa = avx512 ? "avx512" : avx2 ? "avx2" : "sse2";
  k.vector_lanes = avx512 ? 16 : avx2 ? 8 : 4;

  // Plain C++ (memcpy, and AVX-512 permutes only where CPUID has them):
  // every x86-64 CPU.
  k.data.plan_transpose = PlanBatched2DTranspose;
  k.data.transpose = TransposeBatched2D;
  k.data.transpose_columns = TransposeBatched2DColumns;
  k.data.concatenation = ConcatenationCopy;
  k.data.pad = PadCopy;
  if (!avx2) return k;

  k.fma_chain_gmacs = FmaChainGmacs;
  k.gemm[CpuKernels::kNarrowGemm] = NarrowGemm();
  k.im2col.scratch_floats = Conv2DGemmScratchFloats;
  k.im2col.tiles = Conv2DGemmTiles;
  k.im2col.tile_window = Conv2DGemmTileWindow;
  k.im2col.pack = PackConvGemm;
  k.im2col.tile = ConvGemmTile;
  k.sliding[0] = Sliding<8>("avx2");
  k.winograd = avx512 ? Winograd<true>() : Winograd<false>();
  k.strassen = avx512 ? Strassen<true>() : Strassen<false>();
  k.transpose_conv.pack = PackTransposeConv;
  k.transpose_conv.tiles = TransposeConvTiles;
  k.transpose_conv.scratch_floats = TransposeConvScratchFloats;
  k.transpose_conv.rows = TransposeConv2DRows;
  // The depthwise rows, pooling, MEAN and the bilinear resize keep their
  // "avx2" names on AVX-512 CPUs (their AVX-512 paths are chosen inside).
  k.depthwise.isa = "avx2";
  k.depthwise.rows = DepthwiseConv2DAvx2Rows;
  k.depthwise.isa_for = DepthwiseConv2DIsa;  // 7x7 on AVX-512: "avx512_rowtaps"
  k.elementwise.isa = "avx2";
  k.elementwise.binary = BinaryAvx2;
  k.elementwise.hard_swish = HardSwishAvx2;
  k.elementwise.residual_add = ResidualAddAvx2;
  k.elementwise.prelu_isa = avx512 ? "avx512" : "avx2";
  k.elementwise.prelu = avx512 ? PReluAvx512 : PReluAvx2;
  k.transcendental.isa = avx512 ? "avx512" : "avx2";
  k.transcendental.logistic = avx512 ? LogisticAvx512 : LogisticAvx2;
  k.transcendental.silu = avx512 ? SiluAvx512 : SiluAvx2;
  k.transcendental.tanh_in_place = avx512 ? TanhInPlaceAvx512 : TanhInPlaceAvx2;
  k.transcendental.gelu = avx512 ? GeluAvx512 : GeluAvx2;
  k.transcendental.softmax = avx512 ? SoftmaxAvx512 : SoftmaxAvx2;
  k.pool.isa = "avx2";
  k.pool.max_rows = MaxPool2DAvx2Rows;
  k.pool.average_rows = AveragePool2DAvx2Rows;
  k.pool.plan_mean = PlanContiguousMean;
  k.pool.mean = MeanContiguousAvx2;
  k.data.resize_isa = "avx2";
  k.data.bilinear_taps = ComputeResizeTaps;
  k.data.resize_bilinear = ResizeBilinearAvx2;
  k.data.separable_scratch_floats = ResizeSeparableScratchFloats;
  k.data.separable_rows = avx512 ? ResizeSeparableRowsAvx512 : ResizeSeparableRowsAvx2;
  if (!avx512) return k;

  k.attention.name = "avx512";
  k.attention.keys_floats = AttentionKeysFloatsAvx512;
  k.attention.keys = AttentionKeysAvx512;
  k.attention.scores_floats = AttentionScoresFloatsAvx512;
  k.attention.rows = AttentionRowsAvx512;
  k.has_bf16 = f.avx512bf16;
  if (f.avx512bf16) k.bf16_gemm_pays = Bf16GemmPays;
  k.gemm[CpuKernels::kWideGemm] = WideGemm(f.avx512bf16);
  k.im2col.pack_f16 = PackConvGemmWeightsHalf;
  k.im2col.tile_f16 = Conv2DGemmAvx512HalfTile;
  if (f.avx512bf16) {
    k.im2col.pack_bf16 = PackConvGemmWeightsBf16;
    k.im2col.tile_bf16 = Conv2DGemmAvx512Bf16Tile;
  }
  k.sliding[1] = Sliding<16>("avx512");
  k.grouped_direct.isa = "avx512";
  k.grouped_direct.applies = GroupedDirectApplies;
  k.grouped_direct.packed_floats = GroupedDirectPackedFloats;
  k.grouped_direct.pack = PackGroupedDirectWeights;
  k.grouped_direct.rows = Conv2DGroupedDirectRows;
  return k;
}

}  // namespace x86

CpuKernels MakeHostKernels() { return x86::KernelTable(x86::GetCpuFeatures()); }

}  // namespace rill::inference::cpu
