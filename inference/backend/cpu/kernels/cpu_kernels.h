// The CPU backend's kernel table (MNN's CoreFunctions shape): one struct of
// function pointers, grouped by job, filled once per process from what the
// CPU has by the platform's filler (kernels/x86 on x86-64, kernels/arm64 on
// aarch64; Bazel select()s one). The ops in ops/ call the optimized kernels
// only through it, so they build and run on any ISA; a new ISA brings a
// filler, not new ops.
//
// A null entry means "no optimized kernel here": the op runs its reference
// kernel (kernels/ref) instead. A group is usable when its main entry is
// set; the fillers set whole groups.
//
// `isa` strings are the ones kernel names carry (Execution::name(), e.g.
// "conv2d_sliding_avx512"): names keep saying which code ran. A group's
// string is its kernels' ISA, which need not be the table's (on an AVX-512
// CPU the depthwise rows keep their historic "avx2" name).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_CPU_KERNELS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_CPU_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/ref/mean.h"
#include "inference/backend/cpu/kernels/ref/pad.h"
#include "inference/backend/cpu/kernels/ref/pooling.h"
#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"
#include "inference/backend/cpu/kernels/ref/resize_separable.h"
#include "inference/backend/cpu/kernels/ref/transpose.h"
#include "rill/inference/config.h"

namespace rill::inference::cpu {

// One packed-panel GEMM microkernel and its packers. W [n, k] (OHWI filters,
// FC weights) is packed once into panels `nr` columns wide; the kernel runs
// register tiles of `mr` rows x nr columns over them.
struct GemmKernels {
  const char* name = nullptr;  // "6x16_avx2": in kernel names
  const char* isa = nullptr;   // "avx2"
  int mr = 0, nr = 0;
  // fp32 panels.
  size_t (*packed_floats)(int n, int k) = nullptr;
  void (*pack)(const float* w, int n, int k, float* packed) = nullptr;
  // The same panels from a [k, n] row-major operand (PackPanelsKN<nr>).
  void (*pack_kn)(const float* b, int k, int n, float* packed) = nullptr;
  GemmKernel<float> gemm = nullptr;
  GemmResidualKernel<float> gemm_residual = nullptr;  // null: add a residual in a pass of its own
  GemvKernel<float> gemv = nullptr;                   // null: the GEMM's one-row tile
  // Half-precision panels (the fp32 layout, packed_floats elements).
  void (*pack_f16)(const float* w, int n, int k, uint16_t* packed) = nullptr;
  GemmKernel<uint16_t> gemm_f16 = nullptr;
  GemmResidualKernel<uint16_t> gemm_residual_f16 = nullptr;
  GemvKernel<uint16_t> gemv_f16 = nullptr;
  // bf16 k-pair panels (Bf16PanelDepth).
  size_t (*packed_bf16)(int n, int k) = nullptr;
  void (*pack_bf16)(const float* w, int n, int k, Bf16* packed) = nullptr;
  GemmKernel<Bf16> gemm_bf16 = nullptr;
  GemmResidualKernel<Bf16> gemm_residual_bf16 = nullptr;

  explicit operator bool() const { return gemm != nullptr; }
};

// Convolution as GEMM: output pixels are rows, output channels columns; a
// conv that is not pointwise gathers tiles of rows (im2col) into scratch.
// The work splits into tiles of rows x channels, independent of the thread
// count. Filters are packed for one GemmKernels (its `nr`); the tile runs
// that microkernel (its residual epilogue where `residual` is set, which
// needs gemm_residual*).
struct Im2colKernels {
  size_t (*scratch_floats)(const ConvParams& p) = nullptr;  // one tile's
  int (*tiles)(const ConvParams& p) = nullptr;
  void (*tile_window)(const ConvParams& p, int tile, long long* row_begin, long long* row_end, int* col_begin,
                      int* col_end) = nullptr;
  void (*pack)(const ConvParams& p, const float* filter, int nr, std::vector<float>* packed) = nullptr;
  void (*pack_f16)(const ConvParams& p, const float* filter, std::vector<uint16_t>* packed) = nullptr;
  void (*pack_bf16)(const ConvParams& p, const float* filter, std::vector<Bf16>* packed) = nullptr;
  void (*tile)(const ConvParams& p, const GemmKernels& gemm, const float* input, const float* packed,
               const float* bias, float* scratch, float* output, int tile, const float* residual,
               int res_c) = nullptr;
  void (*tile_f16)(const ConvParams& p, const float* input, const uint16_t* packed, const float* bias,
                   float* scratch, float* output, int tile, const float* residual, int res_c) = nullptr;
  void (*tile_bf16)(const ConvParams& p, const float* input, const Bf16* packed, const float* bias,
                    float* scratch, float* output, int tile, const float* residual, int res_c) = nullptr;

  explicit operator bool() const { return tile != nullptr; }
};

// Direct (sliding-window) conv vectorized over `lanes` output channels;
// rows [row_begin, row_end) of batch * out_h, any split.
struct SlidingKernels {
  const char* isa = nullptr;
  int lanes = 0;
  size_t (*packed_floats)(const ConvParams& p) = nullptr;
  void (*pack)(const ConvParams& p, const float* filter, float* packed) = nullptr;
  void (*rows)(const ConvParams& p, const float* input, const float* packed, const float* bias, float* output,
               int row_begin, int row_end) = nullptr;

  explicit operator bool() const { return rows != nullptr; }
};

// Direct grouped conv for groups narrower than a vector (ResNeXt, RegNet).
struct GroupedDirectKernels {
  const char* isa = nullptr;
  bool (*applies)(const ConvParams& p) = nullptr;  // the shapes it computes
  size_t (*packed_floats)(const ConvParams& p) = nullptr;
  void (*pack)(const ConvParams& p, const float* filter, float* packed) = nullptr;
  void (*rows)(const ConvParams& p, const float* input, const float* packed, const float* bias, float* output,
               int row_begin, int row_end) = nullptr;

  explicit operator bool() const { return rows != nullptr; }
};

// Winograd F(m x m, 3x3), m = 2, 4, 6, in three phases per block of tiles
// (input transform, the alpha^2 GEMMs, output transform), each over
// independent pieces; results do not depend on how they are split.
struct WinogradKernels {
  const char* isa = nullptr;
  WinogradPlan (*plan)(int m, const ConvParams& p, int threads) = nullptr;
  // Whether `threads` threads should each run whole blocks (tiles enough).
  bool (*blocks_per_thread)(long long total_tiles, int threads) = nullptr;
  int (*block_tiles)(const WinogradPlan& plan, int block) = nullptr;
  void (*transform_weights)(int m, const ConvParams& p, const float* filter, WinogradWeights* out) = nullptr;
  // The transformed weights' panels to halves / bf16 (the multiply then
  // runs on those; null: the products stay fp32 under that precision).
  void (*to_f16)(WinogradWeights* w) = nullptr;
  void (*to_bf16)(const ConvParams& p, WinogradWeights* w) = nullptr;
  void (*input_transform)(const WinogradPlan& plan, const ConvParams& p, const float* input, int block,
                          int t_begin, int t_end, float* v, float* patch) = nullptr;
  void (*multiply)(const WinogradPlan& plan, const ConvParams& p, const WinogradWeights& w, int block,
                   int pos_begin, int pos_end, const float* v, float* m) = nullptr;
  void (*output_transform)(const WinogradPlan& plan, const ConvParams& p, const float* bias, int block,
                           int t_begin, int t_end, const float* m, float* output) = nullptr;
  // For the cost model (ops/conv_algorithm.cc): the largest output tile side
  // m there are transforms for (2, 4 or 6); the panel width of the GEMM the
  // products run on and the transforms' vector lanes (0: those of the wide
  // GEMM slot, as on x86).
  int max_m = 6;
  int nr = 0;
  int lanes = 0;

  explicit operator bool() const { return multiply != nullptr; }
};

// Strassen's recursion over the packed GEMM, C = act(bias + A W^T).
struct StrassenKernels {
  const char* isa = nullptr;
  void (*prepare)(const float* w, int n, int k, int depth, StrassenWeights* out) = nullptr;
  size_t (*scratch_floats)(int m, int n, int k, int depth) = nullptr;
  void (*gemm)(int m, const float* a, int lda, const StrassenWeights& w, const float* bias, FusedActivation act,
               float* c, int ldc, float* scratch) = nullptr;

  explicit operator bool() const { return gemm != nullptr; }
};

// TRANSPOSE_CONV_2D as a GEMM per input row plus a scatter (col2im) into
// bands of output rows.
struct TransposeConvKernels {
  // Packs for the GEMM with panels `nr` wide; `bias` joins the packing
  // where the taps tile the output.
  void (*pack)(const ConvParams& p, const float* filter, const float* bias, int nr,
               std::vector<float>* packed) = nullptr;
  bool (*tiles)(const ConvParams& p) = nullptr;  // the taps tile the output (packing depends on it)
  size_t (*scratch_floats)(const ConvParams& p) = nullptr;  // one band's
  void (*rows)(const ConvParams& p, const float* input, const float* packed, const float* bias, GemmFn gemm,
               float* scratch, float* output, int row_begin, int row_end) = nullptr;

  explicit operator bool() const { return rows != nullptr; }
};

// Depthwise conv, depth multiplier 1: output rows [row_begin, row_end) of
// batch * out_h.
struct DepthwiseKernels {
  const char* isa = nullptr;
  void (*rows)(const ConvParams& p, const float* input, const float* filter, const float* bias, float* output,
               int row_begin, int row_end) = nullptr;
  // The ISA name of the rows that run `p`, where it depends on the shape
  // (null: `isa`).
  const char* (*isa_for)(const ConvParams& p) = nullptr;

  explicit operator bool() const { return rows != nullptr; }
};

// Elementwise arithmetic.
struct ElementwiseKernels {
  const char* isa = nullptr;
  // out[i] = act(a[i] op b[i % b_period]) for i < n (b_period: n for equal
  // shapes, the channel count for a per-channel b, 1 for a scalar).
  void (*binary)(BinaryKind op, long long n, const float* a, const float* b, long long b_period,
                 FusedActivation act, float* out) = nullptr;
  void (*hard_swish)(long long n, const float* in, float* out) = nullptr;
  // PRELU: out[i] = x[i] >= 0 ? x[i] : x[i] * slope[i % slope_period] for
  // i < n (the periods as `binary`'s b), the reference's bits; x and out
  // may be one buffer (a conv's fused PRELU epilogue runs it in place). Its
  // own ISA string: it has an AVX-512 variant where `binary` does not.
  const char* prelu_isa = nullptr;
  void (*prelu)(long long n, const float* x, const float* slope, long long slope_period, float* out) = nullptr;
  // A fused residual on a window of a conv's output (ResidualAddRef's twin):
  // y[r, c] = act(y[r, c] + (c < res_c ? residual[r, c] : 0)) for rows
  // [row_begin, row_end), channels [col_begin, col_end).
  void (*residual_add)(const float* residual, int res_c, float* y, int out_c, long long row_begin,
                       long long row_end, int col_begin, int col_end, FusedActivation act) = nullptr;
};

// exp-based functions.
struct TranscendentalKernels {
  const char* isa = nullptr;
  void (*logistic)(long long n, const float* in, float* out) = nullptr;
  void (*silu)(long long n, const float* in, float* out) = nullptr;
  void (*tanh_in_place)(float* x, long long n) = nullptr;
  // GELU's erf form (0.5 x (1 + erf(x / sqrt(2)))), in == out allowed; null:
  // the portable loop (math_loops.cc).
  void (*gelu)(long long n, const float* in, float* out) = nullptr;
  // SOFTMAX along the middle axis of [outer, axis_size, inner], softmax
  // vectors [begin, end) of outer * inner.
  void (*softmax)(long long outer, int axis_size, long long inner, const float* in, float* out, long long begin,
                  long long end) = nullptr;
};

// Pooling and MEAN.
// One head of ATTENTION (the op's batch): softmax(scale * Q K^T + bias) V
// with Q [m, d], K [n, d] (or K^T [d, n] where `k_transposed`), V [n, dv],
// each a matrix of rows `ld*` floats apart; the bias (null: none) one [n]
// row for every query (`bias_per_query` false) or a row per query, `bias_ld`
// floats apart; out [m, dv] rows `ldo` floats apart.
struct AttentionHead {
  int m = 0, n = 0, d = 0, dv = 0;
  const float* q = nullptr;
  long long ldq = 0;
  const float* k = nullptr;
  long long ldk = 0;
  bool k_transposed = false;
  const float* v = nullptr;
  long long ldv = 0;
  const float* bias = nullptr;
  bool bias_per_query = false;
  long long bias_ld = 0;
  float scale = 1.0f;
  float* out = nullptr;
  long long ldo = 0;
};

// Attention on the head's operands as stored (null `rows`: the op's GEMM
// path over packed K and V). `keys` lays K out once per head for the rows
// (keys_floats of scratch); `rows` computes query rows [r0, r1) (at most
// kRowBlock at a time) with `scores_floats(n)` of scratch of its own.
struct AttentionKernels {
  const char* name = nullptr;  // "avx512": in kernel names
  static constexpr int kRowBlock = 48;
  size_t (*keys_floats)(int n, int d) = nullptr;
  void (*keys)(const AttentionHead& h, float* keys) = nullptr;
  size_t (*scores_floats)(int n) = nullptr;
  void (*rows)(const AttentionHead& h, const float* keys, int r0, int r1, float* scores) = nullptr;
};

struct PoolKernels {
  const char* isa = nullptr;
  // NHWC, output rows [row_begin, row_end) of batch * out_h.
  void (*max_rows)(const PoolParams& p, const float* in, float* out, int row_begin, int row_end) = nullptr;
  void (*average_rows)(const PoolParams& p, const float* in, float* out, int row_begin, int row_end) = nullptr;
  bool (*plan_mean)(const ReduceParams& p, MeanPlan* plan) = nullptr;  // false: not one contiguous run
  void (*mean)(const MeanPlan& plan, const float* in, float* out) = nullptr;
};

// Data movement: transposes, resizes, concatenation and pad copies.
struct DataKernels {
  bool (*plan_transpose)(const TransposeParams& p, TransposePlan* plan) = nullptr;  // false: not batched 2-D
  void (*transpose)(const TransposePlan& plan, const float* in, float* out) = nullptr;
  // Output rows (input columns) [c_begin, c_end) of every batch.
  void (*transpose_columns)(const TransposePlan& plan, const float* in, float* out, long long c_begin,
                            long long c_end) = nullptr;
  void (*concatenation)(int num_inputs, const float* const* inputs, const long long* chunk, long long outer,
                        float* out) = nullptr;
  void (*pad)(const PadParams& p, const float* in, float* out) = nullptr;

  const char* resize_isa = nullptr;
  void (*bilinear_taps)(const ResizeParams& p, std::vector<BilinearTap>* y_taps,
                        std::vector<BilinearTap>* x_taps) = nullptr;
  void (*resize_bilinear)(const ResizeParams& p, const BilinearTap* y_taps, const BilinearTap* x_taps,
                          const float* in, float* out) = nullptr;
  // Separable resampling (bicubic, antialiased): per-thread scratch of
  // separable_scratch_floats, 64-byte aligned.
  size_t (*separable_scratch_floats)(const ResizeSeparableParams& p, const ResizeTaps& rows) = nullptr;
  void (*separable_rows)(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                         const float* in, float* out, int row_begin, int row_end, float* scratch) = nullptr;
};

struct CpuKernels {
  // "ref" (no optimized kernels), "sse2", "avx2", "avx512"; later "neon",
  // "neon_fp16". Tuning-cache keys carry it.
  const char* isa = "ref";

  // What the cost model and the precision choice read of the CPU.
  int vector_lanes = 1;          // fp32 lanes of the widest vectors the kernels use
  bool has_fp16_arith = false;   // fp16 multiply-adds (not just conversions)
  bool has_bf16 = false;         // bf16 dot products (AVX512-BF16)
  // Whether the bf16 GEMM beats the fp32 one on this CPU (measured on the
  // first call; null: no bf16 GEMM).
  bool (*bf16_gemm_pays)() = nullptr;
  // One core's fp32 FMA rate in GMAC/s over `rounds` rounds of independent
  // chains (null: unknown).
  double (*fma_chain_gmacs)(long rounds) = nullptr;

  // GEMM microkernels: [kNarrowGemm] the narrow (AVX2 6x16), [kWideGemm] the
  // wide (AVX-512 6x32; absent on narrower CPUs). Both are offered where
  // the CPU has both: the conv algorithm chooses per layer.
  GemmKernels gemm[2];
  Im2colKernels im2col;
  SlidingKernels sliding[2];  // narrow and wide vectors, as gemm[]
  GroupedDirectKernels grouped_direct;
  WinogradKernels winograd;
  StrassenKernels strassen;
  TransposeConvKernels transpose_conv;
  DepthwiseKernels depthwise;
  ElementwiseKernels elementwise;
  TranscendentalKernels transcendental;
  AttentionKernels attention;
  PoolKernels pool;
  DataKernels data;

  // The widest GEMM microkernel there is (nullptr: none).
  const GemmKernels* widest_gemm() const {
    return gemm[kWideGemm] ? &gemm[kWideGemm] : gemm[kNarrowGemm] ? &gemm[kNarrowGemm] : nullptr;
  }
  bool bf16_pays() const { return bf16_gemm_pays != nullptr && bf16_gemm_pays(); }

  static constexpr int kNarrowGemm = 0;
  static constexpr int kWideGemm = 1;
};

// The table for a policy: kReference the reference-only one (every entry
// null, isa "ref"); kAuto and kTune the one for the CPU found, filled once
// (thread-safe) by the platform's filler.
const CpuKernels& CpuKernelsFor(AlgorithmPolicy policy);

// Defined by the platform's filler (one per build): the table for the CPU
// this process runs on.
CpuKernels MakeHostKernels();

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_CPU_KERNELS_H_
