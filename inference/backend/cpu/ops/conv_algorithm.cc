#include "inference/backend/cpu/ops/conv_algorithm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace rill::inference::cpu {
namespace {

// Machine constants of the model (one core, cycles). Calibrated against kTune
// measurements on the six reference models (README, "Algorithm choice").
constexpr double kGemmEfficiency = 0.8;  // microkernel FMA-port utilisation
constexpr double kCallOverhead =
    30;  // per microkernel call (C tile load/store)
constexpr double kL2Bytes = 2 << 20;
constexpr double kL2BytesPerCycle = 32;  // weights streamed from L2
constexpr double kL3BytesPerCycle =
    3.5;  // ... and from L3 / memory (one core, measured)
constexpr double kIm2colTapCycles = 8;  // one memcpy call per (pixel, tap)
constexpr double kCopyFloatsPerCycle = 4;
constexpr double kWinogradInCycles =
    3.5;  // per (tile, channel vector, alpha^2 element)
constexpr double kWinogradOutCycles = 2.5;
constexpr int kWinogradBlockTiles = 48;  // as f32_conv3x3s1_winograd_common.h
constexpr int kIm2colRowTile = 96;       // as f32_conv2d_gemm_avx2.cc
constexpr double kASliceL2Bytes = 256 << 10;
constexpr double kASliceBytesPerCycle = 4;
// Measured / modelled cycles per algorithm family (medians over the layers
// of the six reference models under kTune, AVX-512 Xeon, 2 cores shared):
// what the first-order counts above miss (loop overhead, port conflicts,
// cache misses of the transforms).
double Calibration(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::kGemm6x16:
      return 2.14;
    case ConvAlgo::kGemm6x32:
      return 1.37;
    case ConvAlgo::kSlidingAvx2:
      return 2.0;
    case ConvAlgo::kSlidingAvx512:
      return 2.15;
    case ConvAlgo::kWinogradF23:
      return 3.45;
    case ConvAlgo::kWinogradF43:
      return 2.04;
    case ConvAlgo::kWinogradF63:
      return 2.93;
    case ConvAlgo::kStrassen1:
    case ConvAlgo::kStrassen2:
      return 1.37;  // leaves are the 6x32 GEMM
    case ConvAlgo::kGroupedDirect:
      // kTune on the grouped 3x3 convs of regnet_y_400mf and resnext50_32x4d
      // (AMD VM): the permutes cost more than a cycle; it wins over the
      // per-group sliding window only for 4-channel groups.
      return 4.0;
  }
  return 1.0;
}

double CeilDiv(double a, double b) { return std::ceil(a / b); }

// Cycles of one packed GEMM call (m x n x k) on a 6 x nr microkernel.
double GemmCall(double m, double n, double k, int nr, double calib) {
  if (m <= 0 || n <= 0) return 0;
  const double panels = CeilDiv(n, nr);
  const double kblocks = std::max(1.0, CeilDiv(k, 256));
  // Per k step a tile issues 12 FMAs (6 cycles on two FMA ports) for its
  // `tile_rows` rows; a short tile of r rows, r / tile_rows of that (at least
  // the weight loads).
  auto panel_cycles = [&](double tile_rows, double min_cycles) {
    const double full = std::floor(m / tile_rows), rest = m - tile_rows * full;
    return full * (6 * k + kblocks * kCallOverhead) +
           (rest > 0 ? std::max(rest * 6 / tile_rows, min_cycles) * k + kblocks * kCallOverhead : 0);
  };
  // On the 6x32 kernel a last panel of at most 16 valid columns runs the
  // 12x16 tile: half the cycles per row (f32_gemm_6x32_avx512.cc).
  const double tail = n - (panels - 1) * nr;
  const bool narrow_tail = nr == 32 && tail <= 16;
  const double per_panels = (panels - (narrow_tail ? 1 : 0)) * panel_cycles(6, 1.5) +
                            (narrow_tail ? panel_cycles(12, 1) : 0);
  const double compute = calib * per_panels / kGemmEfficiency;
  const double weight_bytes = panels * nr * k * 4;
  double memory = weight_bytes / (weight_bytes > kL2Bytes ? kL3BytesPerCycle
                                                          : kL2BytesPerCycle);
  // The GEMM does not block rows: every weight panel re-reads the whole
  // m x 256 slice of A, which falls out of L2 beyond a few hundred rows.
  const double a_slice = m * std::min(k, 256.0) * 4;
  if (a_slice > kASliceL2Bytes)
    memory += panels * m * k * 4 / kASliceBytesPerCycle;
  return std::max(compute, memory);
}

// The panel width of the GEMM an algorithm runs on.
int Nr(ConvAlgo a, const IsaFeatures& isa) { return a == ConvAlgo::kGemm6x16 ? isa.narrow_nr : isa.wide_nr; }

// The 6x32 GEMM on bf16 panels against its fp32 estimate (Zen 4: vdpbf16ps
// does two multiplies per lane at the FMA's rate; the A rows' rounding and
// the epilogue do not halve: m169 n1000 k512 0.51, m3025 n16 k128 0.66).
constexpr double kBf16GemmFactor = 0.55;
// ARMv8.2 fp16 arithmetic: eight half lanes per fmla against four floats;
// the A panel's conversion to halves and the fp32 epilogue per k chunk keep
// it above the ideal 0.5.
constexpr double kFp16ArithGemmFactor = 0.6;

// `gemm_factor` scales the GEMM calls only (kBf16GemmFactor), not the
// im2col gather.
double GemmConv(const ConvParams& p, int nr, double calib, double gemm_factor = 1.0) {
  if (p.groups > 1) {  // one GEMM per channel group
    ConvParams g = p;
    g.in_c = p.in_c / p.groups;
    g.out_c = p.out_c / p.groups;
    g.groups = 1;
    return p.groups * GemmConv(g, nr, calib, gemm_factor);
  }
  const double rows = static_cast<double>(p.batch) * p.out_h * p.out_w;
  const double k = static_cast<double>(p.kernel_h) * p.kernel_w * p.in_c;
  const bool pointwise = p.kernel_h == 1 && p.kernel_w == 1 &&
                         p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
                         p.pad_left == 0 && p.in_h == p.out_h &&
                         p.in_w == p.out_w;
  const double tiles = CeilDiv(rows, kIm2colRowTile);
  const double last = rows - (tiles - 1) * kIm2colRowTile;
  double cycles =
      (tiles - 1) * GemmCall(kIm2colRowTile, p.out_c, k, nr, calib * gemm_factor) +
      GemmCall(last, p.out_c, k, nr, calib * gemm_factor);
  if (!pointwise)
    cycles += calib * rows * p.kernel_h * p.kernel_w *
              (kIm2colTapCycles + p.in_c / kCopyFloatsPerCycle);
  return cycles;
}

double Sliding(const ConvParams& p, int lanes) {
  if (p.groups > 1) {  // the kernel per channel group
    ConvParams g = p;
    g.in_c = p.in_c / p.groups;
    g.out_c = p.out_c / p.groups;
    g.groups = 1;
    return p.groups * Sliding(g, lanes);
  }
  const int blocks = (p.out_c + lanes - 1) / lanes;
  const double taps = static_cast<double>(p.kernel_h) * p.kernel_w * p.in_c;
  double per_row = 0;
  for (int b = 0; b < blocks;) {
    const int nb = std::min(3, blocks - b);
    const int r = 12 / nb;
    // Per tap a tile of r pixels x nb vectors: r * nb FMAs (two ports), r
    // broadcasts + nb loads (two load ports), one cycle of loop overhead.
    const double per_tap = std::max(r * nb / 2.0, (r + nb) / 2.0) + 1;
    per_row += CeilDiv(p.out_w, r) * (taps * per_tap + 2 * r * nb);
    b += nb;
  }
  return static_cast<double>(p.batch) * p.out_h * per_row;
}

// `calib` scales the transforms and the gather (fitted per family); the
// GEMMs over the alpha^2 positions run the packed microkernel and take its
// calibration (one factor for both had made F(2,3) and F(4,3) look 1.5-3x
// dearer than measured where the GEMMs dominate: ResNet's 7x7 512-channel
// layers).
// `bf16`: the GEMMs on bf16 panels (half the filter bytes).
// `lanes`: the transforms' vector width (0: 16 with nr 32, else 8).
double Winograd(const ConvParams& p, int m, int nr, double calib, bool bf16, int lanes = 0) {
  const double gemm_calib =
      Calibration(nr == 32 ? ConvAlgo::kGemm6x32 : ConvAlgo::kGemm6x16) * (bf16 ? kBf16GemmFactor : 1.0);
  const int alpha = m + 2;
  const double a2 = static_cast<double>(alpha) * alpha;
  const double tiles =
      static_cast<double>(p.batch) * CeilDiv(p.out_h, m) * CeilDiv(p.out_w, m);
  const double per_block = std::min<double>(kWinogradBlockTiles, tiles);
  const double blocks = CeilDiv(tiles, per_block);
  const double last = tiles - (blocks - 1) * per_block;
  double cycles =
      a2 * ((blocks - 1) * GemmCall(per_block, p.out_c, p.in_c, nr, gemm_calib) +
            GemmCall(last, p.out_c, p.in_c, nr, gemm_calib));
  // Each block streams all alpha^2 transformed filters once; beyond L2 they
  // come from L3.
  const double filters = a2 * CeilDiv(p.out_c, nr) * nr * p.in_c * (bf16 ? 2 : 4);
  cycles = std::max(
      cycles, blocks * filters /
                  (filters > kL2Bytes ? kL3BytesPerCycle : kL2BytesPerCycle));
  if (lanes == 0) lanes = nr == 32 ? 16 : 8;
  const double in_vectors =
      CeilDiv(p.in_c, lanes) + (p.in_c % lanes) * 0.5;  // scalar tail is slow
  const double out_vectors = CeilDiv(p.out_c, lanes) + (p.out_c % lanes) * 0.5;
  cycles += calib * tiles * a2 *
            (in_vectors * kWinogradInCycles + out_vectors * kWinogradOutCycles);
  return cycles;
}

// The grouped direct kernel: per output pixel, 16-channel block and tap, a
// masked input load and icg (permute, FMA) pairs; the permutes share a port
// with the FMAs on Intel, so about a cycle per pair.
double GroupedDirect(const ConvParams& p) {
  const double pixels = static_cast<double>(p.batch) * p.out_h * p.out_w;
  const double blocks = CeilDiv(p.out_c, 16);
  const double taps = static_cast<double>(p.kernel_h) * p.kernel_w;
  return pixels * blocks * taps * (p.in_c / p.groups + 0.5);
}

double Strassen(double m, double n, double k, int depth, int nr, double calib) {
  if (depth == 0) return GemmCall(m, n, k, nr, calib);
  const double m2 = std::ceil(m / 2), n2 = std::ceil(n / 2),
               k2 = std::ceil(k / 2);
  // 7 operand combinations of A, 12 accumulations into C, C cleared: all
  // memory-bound passes at about a cycle per 2 floats.
  const double adds = (7 * m2 * k2 + 12 * m2 * n2 + m * n) * 0.5;
  return 7 * Strassen(m2, n2, k2, depth - 1, nr, calib) + calib * adds;
}

bool Pointwise(const ConvParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 &&
         p.stride_w == 1 && p.pad_top == 0 && p.pad_left == 0 &&
         p.in_h == p.out_h && p.in_w == p.out_w;
}

bool WinogradShape(const ConvParams& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 &&
         p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1;
}

// Strassen needs every dimension large enough that a leaf still fills the
// microkernel well (at least 128 per dimension per leaf).
bool StrassenShape(double m, double n, double k, int depth) {
  const double min_dim = 128.0 * (1 << depth);
  return m >= min_dim && n >= min_dim && k >= min_dim;
}

// A table entry's name in a kernel name ("none" where the entry is absent:
// a forced choice the table cannot run).
std::string Tag(const char* name) { return name != nullptr ? name : "none"; }

double RawConvCycles(const ConvParams& p, ConvAlgo algo, double calib, const IsaFeatures& isa);

}  // namespace

int StrassenDepth(ConvAlgo a) {
  return a == ConvAlgo::kStrassen1 ? 1 : a == ConvAlgo::kStrassen2 ? 2 : 0;
}
int WinogradTile(ConvAlgo a) {
  return a == ConvAlgo::kWinogradF23   ? 2
         : a == ConvAlgo::kWinogradF43 ? 4
         : a == ConvAlgo::kWinogradF63 ? 6
                                       : 0;
}

IsaFeatures ConvIsaFeatures(const CpuKernels& k, PanelType panel) {
  IsaFeatures isa;
  const GemmKernels& narrow = k.gemm[CpuKernels::kNarrowGemm];
  const GemmKernels& wide = k.gemm[CpuKernels::kWideGemm];
  isa.narrow = narrow && k.im2col && k.sliding[0];
  isa.wide = isa.narrow && wide && k.sliding[1];
  // On ARM the wide slot holds the narrow fp32 tile again, with an
  // fp16-arithmetic variant: it is a candidate of its own only where that
  // variant runs (Precision::kFp16 on an ARMv8.2 fp16 CPU).
  isa.f16_arith = isa.wide && panel == PanelType::kF16 && wide.gemm_f16 != nullptr && k.has_fp16_arith;
  if (isa.wide && wide.gemm == narrow.gemm && !isa.f16_arith) isa.wide = false;
  isa.bf16 = isa.wide && panel == PanelType::kBf16 && wide.gemm_bf16 != nullptr;
  isa.wide_gemv = isa.wide && wide.gemv != nullptr;
  isa.winograd = isa.narrow && static_cast<bool>(k.winograd);
  isa.winograd_max_m = k.winograd.max_m;
  isa.winograd_nr = k.winograd.nr;
  isa.winograd_lanes = k.winograd.lanes;
  isa.strassen = isa.narrow && static_cast<bool>(k.strassen);
  if (isa.wide && k.grouped_direct) isa.grouped_direct = k.grouped_direct.applies;
  if (narrow) isa.narrow_nr = narrow.nr;
  if (wide) isa.wide_nr = wide.nr;
  if (k.sliding[0]) isa.narrow_lanes = k.sliding[0].lanes;
  if (k.sliding[1]) isa.wide_lanes = k.sliding[1].lanes;
  return isa;
}

std::vector<ConvAlgo> ConvCandidates(const ConvParams& p, IsaFeatures isa) {
  std::vector<ConvAlgo> c;
  if (!isa.narrow) return c;
  c.push_back(ConvAlgo::kGemm6x16);
  if (isa.wide) c.push_back(ConvAlgo::kGemm6x32);
  if (p.groups > 1) {  // grouped: a GEMM or sliding window per group, or the direct kernel
    c.push_back(ConvAlgo::kSlidingAvx2);
    if (isa.wide) c.push_back(ConvAlgo::kSlidingAvx512);
    if (isa.grouped_direct != nullptr && isa.grouped_direct(p)) c.push_back(ConvAlgo::kGroupedDirect);
    return c;
  }
  c.push_back(ConvAlgo::kSlidingAvx2);
  if (isa.wide) c.push_back(ConvAlgo::kSlidingAvx512);
  if (isa.winograd && WinogradShape(p)) {
    for (ConvAlgo a : {ConvAlgo::kWinogradF23, ConvAlgo::kWinogradF43, ConvAlgo::kWinogradF63}) {
      if (WinogradTile(a) <= isa.winograd_max_m) c.push_back(a);
    }
  }
  if (isa.strassen && Pointwise(p) && !isa.bf16) {
    const double m = static_cast<double>(p.batch) * p.out_h * p.out_w;
    if (StrassenShape(m, p.out_c, p.in_c, 1)) c.push_back(ConvAlgo::kStrassen1);
    if (StrassenShape(m, p.out_c, p.in_c, 2)) c.push_back(ConvAlgo::kStrassen2);
  }
  return c;
}

bool ConvAlgoApplies(const ConvParams& p, ConvAlgo algo, const IsaFeatures& isa) {
  switch (algo) {
    case ConvAlgo::kGemm6x16:
    case ConvAlgo::kSlidingAvx2:
      return isa.narrow;
    case ConvAlgo::kGemm6x32:
    case ConvAlgo::kSlidingAvx512:
      return isa.wide;
    case ConvAlgo::kWinogradF23:
    case ConvAlgo::kWinogradF43:
    case ConvAlgo::kWinogradF63:
      return isa.winograd && p.groups == 1 && WinogradShape(p) && WinogradTile(algo) <= isa.winograd_max_m;
    case ConvAlgo::kStrassen1:
    case ConvAlgo::kStrassen2:
      return isa.strassen && p.groups == 1 && Pointwise(p);
    case ConvAlgo::kGroupedDirect:
      return isa.grouped_direct != nullptr && isa.grouped_direct(p);
  }
  return false;
}

std::vector<ConvAlgo> FcCandidates(int rows, int in_dim, int out_dim,
                                   IsaFeatures isa) {
  std::vector<ConvAlgo> c;
  if (!isa.narrow) return c;
  c.push_back(ConvAlgo::kGemm6x16);
  if (isa.wide) c.push_back(ConvAlgo::kGemm6x32);
  if (isa.bf16 || !isa.strassen) return c;
  if (StrassenShape(rows, out_dim, in_dim, 1))
    c.push_back(ConvAlgo::kStrassen1);
  if (StrassenShape(rows, out_dim, in_dim, 2))
    c.push_back(ConvAlgo::kStrassen2);
  return c;
}

double EstimateGemmCycles(int m, int n, int k, ConvAlgo algo, const IsaFeatures& isa) {
  return Strassen(m, n, k, StrassenDepth(algo), Nr(algo, isa), Calibration(algo));
}

double EstimateConvCycles(const ConvParams& p, ConvAlgo algo, const IsaFeatures& isa) {
  return RawConvCycles(p, algo, Calibration(algo), isa);
}

namespace {
double RawConvCycles(const ConvParams& p, ConvAlgo algo, double calib, const IsaFeatures& isa) {
  switch (algo) {
    case ConvAlgo::kGemm6x16:
      return GemmConv(p, isa.narrow_nr, calib);
    case ConvAlgo::kGemm6x32:
      return GemmConv(p, isa.wide_nr, calib, isa.bf16 ? kBf16GemmFactor : isa.f16_arith ? kFp16ArithGemmFactor : 1.0);
    case ConvAlgo::kSlidingAvx2:
      return calib * Sliding(p, isa.narrow_lanes);
    case ConvAlgo::kSlidingAvx512:
      return calib * Sliding(p, isa.wide_lanes);
    case ConvAlgo::kWinogradF23:
    case ConvAlgo::kWinogradF43:
    case ConvAlgo::kWinogradF63:
      // bf16 products for F(2,3) only (conv2d_op.cc Bf16Gemm).
      return Winograd(p, WinogradTile(algo), isa.winograd_nr > 0 ? isa.winograd_nr : isa.wide_nr, calib,
                      isa.bf16 && algo == ConvAlgo::kWinogradF23, isa.winograd_lanes);
    case ConvAlgo::kStrassen1:
    case ConvAlgo::kStrassen2:
      return Strassen(static_cast<double>(p.batch) * p.out_h * p.out_w, p.out_c,
                      p.in_c, StrassenDepth(algo), isa.wide_nr, calib);
    case ConvAlgo::kGroupedDirect:
      return calib * GroupedDirect(p);
  }
  return 1e300;
}
}  // namespace

ConvAlgo ChooseConvAlgo(const ConvParams& p, IsaFeatures isa) {
  ConvAlgo best = isa.wide ? ConvAlgo::kGemm6x32 : ConvAlgo::kGemm6x16;
  double best_cycles = 1e300;
  for (ConvAlgo a : ConvCandidates(p, isa)) {
    const double c = EstimateConvCycles(p, a, isa);
    if (c < best_cycles) {
      best_cycles = c;
      best = a;
    }
  }
  return best;
}

ConvAlgo ChooseFcAlgo(int rows, int in_dim, int out_dim, IsaFeatures isa) {
  // One row is a GEMV, bound by reading the weights: the wide panels have a
  // dedicated one (GemmKernels::gemv; fully_connected_op.cc).
  if (rows == 1 && isa.wide_gemv) return ConvAlgo::kGemm6x32;
  ConvAlgo best = isa.wide ? ConvAlgo::kGemm6x32 : ConvAlgo::kGemm6x16;
  double best_cycles = 1e300;
  for (ConvAlgo a : FcCandidates(rows, in_dim, out_dim, isa)) {
    const double c =
        EstimateGemmCycles(rows, out_dim, in_dim, a, isa) *
        (a != ConvAlgo::kGemm6x32 ? 1.0 : isa.bf16 ? kBf16GemmFactor : isa.f16_arith ? kFp16ArithGemmFactor : 1.0);
    if (c < best_cycles) {
      best_cycles = c;
      best = a;
    }
  }
  return best;
}

std::string ConvKernelName(ConvAlgo algo, const CpuKernels& k) {
  switch (algo) {
    case ConvAlgo::kGemm6x16:
      return "conv2d_gemm_" + Tag(k.gemm[CpuKernels::kNarrowGemm].name);
    case ConvAlgo::kGemm6x32:
      return "conv2d_gemm_" + Tag(k.gemm[CpuKernels::kWideGemm].name);
    case ConvAlgo::kSlidingAvx2:
      return "conv2d_sliding_" + Tag(k.sliding[0].isa);
    case ConvAlgo::kSlidingAvx512:
      return "conv2d_sliding_" + Tag(k.sliding[1].isa);
    case ConvAlgo::kWinogradF23:
      return "conv3x3s1_winograd_f23_" + Tag(k.winograd.isa);
    case ConvAlgo::kWinogradF43:
      return "conv3x3s1_winograd_f43_" + Tag(k.winograd.isa);
    case ConvAlgo::kWinogradF63:
      return "conv3x3s1_winograd_f63_" + Tag(k.winograd.isa);
    case ConvAlgo::kStrassen1:
      return "conv1x1_strassen_d1_" + Tag(k.strassen.isa);
    case ConvAlgo::kStrassen2:
      return "conv1x1_strassen_d2_" + Tag(k.strassen.isa);
    case ConvAlgo::kGroupedDirect:
      return "conv2d_grouped_direct_" + Tag(k.grouped_direct.isa);
  }
  return "conv2d_unknown";
}

std::string FcKernelName(ConvAlgo algo, const CpuKernels& k) {
  switch (algo) {
    case ConvAlgo::kGemm6x16:
      // The narrow GEMM's FC name has only ever said its ISA.
      return "fully_connected_gemm_" + Tag(k.gemm[CpuKernels::kNarrowGemm].isa);
    case ConvAlgo::kGemm6x32:
      return "fully_connected_gemm_" + Tag(k.gemm[CpuKernels::kWideGemm].name);
    case ConvAlgo::kStrassen1:
      return "fc_strassen_d1_" + Tag(k.strassen.isa);
    case ConvAlgo::kStrassen2:
      return "fc_strassen_d2_" + Tag(k.strassen.isa);
    default:
      return "fully_connected_unknown";
  }
}

namespace {
constexpr std::pair<ConvAlgo, const char*> kTokens[] = {
    {ConvAlgo::kGemm6x16, "gemm_6x16"},
    {ConvAlgo::kGemm6x32, "gemm_6x32"},
    {ConvAlgo::kSlidingAvx2, "sliding_avx2"},
    {ConvAlgo::kSlidingAvx512, "sliding_avx512"},
    {ConvAlgo::kWinogradF23, "winograd_f23"},
    {ConvAlgo::kWinogradF43, "winograd_f43"},
    {ConvAlgo::kWinogradF63, "winograd_f63"},
    {ConvAlgo::kStrassen1, "strassen_d1"},
    {ConvAlgo::kStrassen2, "strassen_d2"},
    {ConvAlgo::kGroupedDirect, "grouped_direct"}};
// The ISAs of the tables whose keys a cache may hold (CpuKernels::isa of
// tables with a GEMM).
constexpr const char* kIsas[] = {"avx2", "avx512", "neon", "neon_fp16"};
}  // namespace

std::string ConvAlgoToken(ConvAlgo algo) {
  for (const auto& t : kTokens) {
    if (t.first == algo) return t.second;
  }
  return "unknown";
}

bool ParseConvAlgo(const std::string& token, ConvAlgo* algo) {
  for (const auto& t : kTokens) {
    if (token == t.second) {
      *algo = t.first;
      return true;
    }
  }
  return false;
}

std::string ConvTuningKey(const ConvParams& p, const std::string& isa) {
  auto s = [](int v) { return std::to_string(v); };
  return "conv:n" + s(p.batch) + ":h" + s(p.in_h) + ":w" + s(p.in_w) + ":ic" +
         s(p.in_c) + ":oc" + s(p.out_c) + ":k" + s(p.kernel_h) + "x" +
         s(p.kernel_w) + ":s" + s(p.stride_h) + "x" + s(p.stride_w) + ":d" +
         s(p.dilation_h) + "x" + s(p.dilation_w) + ":p" + s(p.pad_top) + "x" +
         s(p.pad_left) + ":o" + s(p.out_h) + "x" + s(p.out_w) + (p.groups > 1 ? ":g" + s(p.groups) : "") +
         ":" + isa;
}

bool ParseConvTuningKey(const std::string& key, ConvParams* p, std::string* isa) {
  ConvParams q;
  int consumed = 0;
  if (std::sscanf(key.c_str(), "conv:n%d:h%d:w%d:ic%d:oc%d:k%dx%d:s%dx%d:d%dx%d:p%dx%d:o%dx%d%n", &q.batch, &q.in_h,
                  &q.in_w, &q.in_c, &q.out_c, &q.kernel_h, &q.kernel_w, &q.stride_h, &q.stride_w, &q.dilation_h,
                  &q.dilation_w, &q.pad_top, &q.pad_left, &q.out_h, &q.out_w, &consumed) != 15 ||
      consumed == 0) {
    return false;
  }
  std::string rest = key.substr(static_cast<size_t>(consumed));
  for (const char* suffix : {":f16w", ":bf16"}) {
    const size_t len = std::strlen(suffix);
    if (rest.size() >= len && rest.compare(rest.size() - len, len, suffix) == 0) {
      rest.resize(rest.size() - len);
      break;
    }
  }
  if (rest.rfind(":g", 0) == 0) {
    q.groups = std::atoi(rest.c_str() + 2);
    const size_t end = rest.find(':', 1);
    if (q.groups < 2 || end == std::string::npos) return false;
    rest = rest.substr(end);
  }
  if (rest.empty() || rest[0] != ':' ||
      std::none_of(std::begin(kIsas), std::end(kIsas), [&](const char* i) { return rest.compare(1, std::string::npos, i) == 0; })) {
    return false;
  }
  const std::string table_isa = rest.substr(1);
  // Only keys ConvTuningKey writes (no stray signs, zeros or spaces).
  const std::string again = ConvTuningKey(q, table_isa);
  if (key.compare(0, again.size(), again) != 0) return false;
  *isa = table_isa;
  *p = q;
  return true;
}

std::string FcTuningKey(int rows, int in_dim, int out_dim, const std::string& isa) {
  return "fc:m" + std::to_string(rows) + ":k" + std::to_string(in_dim) + ":n" +
         std::to_string(out_dim) + ":" + isa;
}

}  // namespace rill::inference::cpu
