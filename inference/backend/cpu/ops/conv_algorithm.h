// Per-layer algorithm choice for CONV_2D and FULLY_CONNECTED: the candidates
// a layer admits, a cost estimate per candidate (arithmetic on the
// microkernels' register tiles + transforms + memory traffic, in cycles of one
// core), the kernel name each choice prints, and the vocabulary of the
// tuning cache (`key choice` lines). kAuto takes the cheapest estimate; kTune
// measures every candidate (conv2d_op.cc, fully_connected_op.cc) and caches
// the winner.
//
// The algorithms (GEMM, sliding window, Winograd, Strassen, grouped direct)
// are chosen apart from the microkernels that run them: what the choice
// knows of the CPU comes from the kernel table (ConvIsaFeatures), and each
// algorithm runs on the table's microkernels. "Narrow" and "wide" name the
// table's two GEMM / sliding-window microkernels (CpuKernels::gemm[],
// sliding[]; on x86 AVX2 and AVX-512), which the enum and the cache tokens
// still call by their x86 names (saved caches stay valid).
#ifndef RILL_INFERENCE_BACKEND_CPU_OPS_CONV_ALGORITHM_H_
#define RILL_INFERENCE_BACKEND_CPU_OPS_CONV_ALGORITHM_H_

#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

enum class ConvAlgo {
  kGemm6x16,       // im2col / pointwise GEMM on the narrow GEMM microkernel
  kGemm6x32,       // the same on the wide one
  kSlidingAvx2,    // direct conv on the narrow vectors
  kSlidingAvx512,  // direct conv on the wide vectors
  kWinogradF23,    // Winograd, Strassen: on the widest GEMM there is
  kWinogradF43,
  kWinogradF63,
  kStrassen1,  // pointwise conv / FC as Strassen, one level
  kStrassen2,  // two levels
  kGroupedDirect,  // grouped conv, groups narrower than a vector
};

// What the candidates and the cost model know of the CPU, read from its
// kernel table (ConvIsaFeatures). The tile sizes default to the x86
// microkernels' (the cost model's calibration was measured on those).
struct IsaFeatures {
  bool narrow = false;  // the narrow GEMM and sliding-window microkernels
  bool wide = false;    // the wide ones
  // The wide GEMM runs on bf16 panels (Precision::kBf16 where it pays):
  // twice the multiplies per instruction, no Strassen (its sums are fp32).
  bool bf16 = false;
  bool wide_gemv = false;  // a one-row kernel over the wide panels
  // The wide GEMM multiplies in half precision (ARMv8.2 fp16 arithmetic,
  // Precision::kFp16 on ARM): eight lanes per fmla, kFp16ArithGemmFactor of
  // the fp32 cycles.
  bool f16_arith = false;
  bool winograd = false;
  // Winograd's largest output tile, its GEMM's panel width and its
  // transforms' lanes (0: wide_nr and the lanes that go with it).
  int winograd_max_m = 6, winograd_nr = 0, winograd_lanes = 0;
  bool strassen = false;
  // The grouped convs the grouped direct kernel computes (null: none).
  bool (*grouped_direct)(const ConvParams& p) = nullptr;
  int narrow_nr = 16, wide_nr = 32;       // GEMM panel widths
  int narrow_lanes = 8, wide_lanes = 16;  // sliding-window vector lanes
};
// The features of `kernels`, its GEMMs on `panel` panels.
IsaFeatures ConvIsaFeatures(const CpuKernels& kernels, PanelType panel);

// Candidates of a conv layer (never empty when isa.narrow).
std::vector<ConvAlgo> ConvCandidates(const ConvParams& p, IsaFeatures isa);
// Whether `algo` computes this conv correctly at all (the candidates are the
// ones worth measuring; a forced choice must at least apply): the sliding
// window, Winograd and Strassen have no grouped variant, Winograd needs a
// 3x3 stride-1 undilated window, Strassen a pointwise conv; and every
// algorithm needs its microkernels in `isa`.
bool ConvAlgoApplies(const ConvParams& p, ConvAlgo algo, const IsaFeatures& isa);
// Candidates of a FULLY_CONNECTED layer (rows x in_dim times out_dim).
std::vector<ConvAlgo> FcCandidates(int rows, int in_dim, int out_dim,
                                   IsaFeatures isa);

// Estimated cycles on one core (isa.bf16: the GEMM and Winograd products on
// bf16 panels).
double EstimateConvCycles(const ConvParams& p, ConvAlgo algo, const IsaFeatures& isa = IsaFeatures());
double EstimateGemmCycles(int m, int n, int k, ConvAlgo algo,
                          const IsaFeatures& isa = IsaFeatures());  // kGemm*, kStrassen*

ConvAlgo ChooseConvAlgo(const ConvParams& p, IsaFeatures isa);
ConvAlgo ChooseFcAlgo(int rows, int in_dim, int out_dim, IsaFeatures isa);

// Kernel names as Execution::name() prints them: the algorithm and the ISA
// (or microkernel) names of the table entries that run it, e.g.
// conv3x3s1_winograd_f63_avx512, conv2d_sliding_avx512, fc_strassen_d1_avx512.
std::string ConvKernelName(ConvAlgo algo, const CpuKernels& kernels);
std::string FcKernelName(ConvAlgo algo, const CpuKernels& kernels);

// Tuning-cache vocabulary: gemm_6x16, gemm_6x32, sliding_avx2,
// sliding_avx512, winograd_f23, winograd_f43, winograd_f63, strassen_d1,
// strassen_d2. ParseConvAlgo returns false for an unknown token.
std::string ConvAlgoToken(ConvAlgo algo);
bool ParseConvAlgo(const std::string& token, ConvAlgo* algo);

// Cache keys: every shape parameter the kernels depend on, plus the table's
// ISA (CpuKernels::isa: "avx2", "avx512", ...).
std::string ConvTuningKey(const ConvParams& p, const std::string& isa);
std::string FcTuningKey(int rows, int in_dim, int out_dim, const std::string& isa);
// The inverse of ConvTuningKey (a trailing ":f16w" of kFp16 keys or ":bf16"
// of kBf16 keys allowed): false for anything else (fc: keys and unknown
// ISAs included).
bool ParseConvTuningKey(const std::string& key, ConvParams* p, std::string* isa);

// The Strassen depth of a choice (0 for others).
int StrassenDepth(ConvAlgo algo);
int WinogradTile(ConvAlgo algo);  // 2, 4, 6, or 0

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_OPS_CONV_ALGORITHM_H_
