// Per-layer algorithm choice for CONV_2D and FULLY_CONNECTED on x86: the
// candidates a layer admits, a cost estimate per candidate (arithmetic on the
// microkernels' register tiles + transforms + memory traffic, in cycles of one
// core), the kernel name each choice prints, and the vocabulary of the
// tuning cache (`key choice` lines). kAuto takes the cheapest estimate; kTune
// measures every candidate (conv_ops.cc) and caches the winner.
#ifndef RILL_INFERENCE_BACKEND_CPU_OPS_CONV_ALGORITHM_H_
#define RILL_INFERENCE_BACKEND_CPU_OPS_CONV_ALGORITHM_H_

#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

enum class ConvAlgo {
  kGemm6x16,       // im2col / pointwise GEMM on f32_gemm_6x16_avx2
  kGemm6x32,       // the same on f32_gemm_6x32_avx512
  kSlidingAvx2,    // direct conv, 8-channel vectors
  kSlidingAvx512,  // direct conv, 16-channel vectors
  kWinogradF23,
  kWinogradF43,
  kWinogradF63,
  kStrassen1,  // pointwise conv / FC as Strassen, one level
  kStrassen2,  // two levels
  kGroupedDirect,  // grouped conv, groups narrower than a vector (AVX-512)
};

struct IsaFeatures {
  bool avx2 = false;  // AVX2 + FMA
  bool avx512 = false;
  // The 6x32 GEMM runs on bf16 panels (Precision::kBf16 on AVX512-BF16):
  // twice the multiplies per instruction, no Strassen (its sums are fp32).
  bool bf16 = false;
};

// Candidates of a conv layer (never empty when isa.avx2).
std::vector<ConvAlgo> ConvCandidates(const ConvParams& p, IsaFeatures isa);
// Whether `algo` computes this conv correctly at all (the candidates are the
// ones worth measuring; a forced choice must at least apply): the sliding
// window, Winograd and Strassen have no grouped variant, Winograd needs a
// 3x3 stride-1 undilated window, Strassen a pointwise conv.
bool ConvAlgoApplies(const ConvParams& p, ConvAlgo algo);
// Candidates of a FULLY_CONNECTED layer (rows x in_dim times out_dim).
std::vector<ConvAlgo> FcCandidates(int rows, int in_dim, int out_dim,
                                   IsaFeatures isa);

// Estimated cycles on one core; `bf16`: the GEMM and Winograd products on
// bf16 panels (IsaFeatures::bf16).
double EstimateConvCycles(const ConvParams& p, ConvAlgo algo, bool bf16 = false);
double EstimateGemmCycles(int m, int n, int k,
                          ConvAlgo algo);  // kGemm*, kStrassen*

ConvAlgo ChooseConvAlgo(const ConvParams& p, IsaFeatures isa);
ConvAlgo ChooseFcAlgo(int rows, int in_dim, int out_dim, IsaFeatures isa);

// Kernel names as Execution::name() prints them, e.g.
// conv3x3s1_winograd_f63_avx512, conv2d_sliding_avx512, fc_strassen_d1_avx512.
std::string ConvKernelName(ConvAlgo algo, bool avx512);
std::string FcKernelName(ConvAlgo algo, bool avx512);

// Tuning-cache vocabulary: gemm_6x16, gemm_6x32, sliding_avx2,
// sliding_avx512, winograd_f23, winograd_f43, winograd_f63, strassen_d1,
// strassen_d2. ParseConvAlgo returns false for an unknown token.
std::string ConvAlgoToken(ConvAlgo algo);
bool ParseConvAlgo(const std::string& token, ConvAlgo* algo);

// Cache keys: every shape parameter the kernels depend on, plus the ISA.
std::string ConvTuningKey(const ConvParams& p, bool avx512);
std::string FcTuningKey(int rows, int in_dim, int out_dim, bool avx512);
// The inverse of ConvTuningKey (a trailing ":f16w" of kFp16 keys or ":bf16"
// of kBf16 keys allowed):
// false for anything else (fc: keys included).
bool ParseConvTuningKey(const std::string& key, ConvParams* p, bool* avx512);

// The Strassen depth of a choice (0 for others).
int StrassenDepth(ConvAlgo algo);
int WinogradTile(ConvAlgo algo);  // 2, 4, 6, or 0

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_OPS_CONV_ALGORITHM_H_
