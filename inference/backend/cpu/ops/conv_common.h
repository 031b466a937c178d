// What the CPU's convolution and GEMM executions share (conv2d_op.cc,
// depthwise_conv2d_op.cc, transpose_conv2d_op.cc, fully_connected_op.cc,
// block_ops.cc): the convolution geometry read from a node, weights packed
// for the table's GEMM microkernels (GemmPanels), the panel precision, the
// fused-residual epilogue, and kTune's measuring helpers.
#ifndef RILL_INFERENCE_BACKEND_CPU_OPS_CONV_COMMON_H_
#define RILL_INFERENCE_BACKEND_CPU_OPS_CONV_COMMON_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "inference/backend/backend.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/ops/conv_algorithm.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/graph.h"

namespace rill::inference::cpu {

// The panels the precision asks of the GEMMs: kF16 (Precision::kFp16) where
// the wide GEMM reads half panels, kBf16 (Precision::kBf16) where it has a
// bf16 kernel and that pays on this CPU (CpuKernels::bf16_gemm_pays), kF32
// otherwise.
// With `even_if_slower` (SessionConfig::bf16_even_if_slower) kBf16 does not
// ask whether bf16 pays.
PanelType ChoosePanelType(Precision precision, const CpuKernels& kernels, bool even_if_slower = false);
// The suffix of kernel names ("", "_f16w", "_bf16") and of tuning-cache keys
// ("", ":f16w", ":bf16") for panels of `t`.
const char* PanelNameSuffix(PanelType t);
const char* PanelKeySuffix(PanelType t);

// An [n, k] weight matrix packed for one GEMM microkernel of the table, in
// panels of one PanelType. The calls take `col`, the first of the columns to
// multiply (a multiple of the panel width), and run the kernel the panels
// were packed for.
class GemmPanels {
 public:
  // kF16 and kBf16 panels where `gemm` has kernels for them, else kF32.
  void Pack(const float* w, int n, int k, const GemmKernels& gemm, PanelType t);
  PanelType type() const { return type_; }
  const GemmKernels* gemm() const { return gemm_; }
  size_t bytes() const {
    return f32_.size() * sizeof(float) + f16_.size() * sizeof(uint16_t) + bf16_.size() * sizeof(Bf16);
  }
  // Whether GemmResidual and Gemv have kernels of their own here.
  bool has_residual_epilogue() const;
  bool has_gemv() const;
  // c = act(a W[col, col + n)^T + bias) over m rows.
  void Gemm(int m, int n, int k, const float* a, int lda, int col, const float* bias, FusedActivation act, float* c,
            int ldc) const;
  // The same with a residual in the epilogue (needs has_residual_epilogue()).
  void GemmResidual(int m, int n, int k, const float* a, int lda, int col, const float* bias, FusedActivation act,
                    float* c, int ldc, const float* residual, int res_ld, int res_c) const;
  // One row (the GEMM's one-row tile where there is no GEMV kernel).
  void Gemv(int n, int k, const float* x, int col, const float* bias, FusedActivation act, float* y) const;

 private:
  const GemmKernels* gemm_ = nullptr;
  PanelType type_ = PanelType::kF32;
  std::vector<float> f32_;
  std::vector<uint16_t> f16_;
  std::vector<Bf16> bf16_;
};

// The fused residual on a window of a conv's output (rows [row_begin,
// row_end) of `ldy` floats, channels [col_begin, col_end)):
//   y[r, c] = act(y[r, c] + (c < res_c ? residual[r, c] : 0)),
// by the table's kernel, or in plain C++ where it has none.
void AddResidual(const CpuKernels& kernels, const float* residual, int res_c, float* y, int ldy, long long row_begin,
                 long long row_end, int col_begin, int col_end, FusedActivation act);

// A fused PRELU (optimize::FusePRelu) on a window of a conv's output, in
// place: y[r, c] = y[r, c] >= 0 ? y[r, c] : y[r, c] * slope[c] for rows
// [row_begin, row_end) of `ldy` floats and channels [col_begin, col_end), by
// the table's kernel, or in plain C++ (the reference's selection) where it
// has none. Applied last, after the bias, the residual and the activation.
void ApplyPRelu(const CpuKernels& kernels, const float* slope, float* y, int ldy, long long row_begin,
                long long row_end, int col_begin, int col_end);

// --- kTune ---------------------------------------------------------------

// With SessionConfig::tune_log set, every measurement is appended as
// `key choice measured_ms estimated_cycles` (the data the cost model is
// calibrated against). Only at resize, never during a run.
void LogMeasurement(const std::string& path, const std::string& key, const std::string& choice, double ms,
                    double cycles);

// Synthetic input for measuring candidates: deterministic, in [-0.5, 0.5).
std::vector<float> TuningInput(size_t n);

// The best of three timed runs, in milliseconds.
template <class Run>
double BestOfThreeMs(Run&& run) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// kTune for one layer: the cached choice under `key`, or else every
// candidate measured (`measure_ms`, one thread) and logged against the cost
// model (`estimate`), the fastest cached and returned.
template <class Measure, class Estimate>
ConvAlgo MeasureCandidates(const std::string& key, const std::vector<ConvAlgo>& candidates, TuningCache* cache,
                           Measure&& measure_ms, Estimate&& estimate) {
  ConvAlgo algo;
  auto cached = cache->choices.find(key);
  if (cached != cache->choices.end() && ParseConvAlgo(cached->second, &algo)) return algo;
  ConvAlgo best = candidates.front();
  double best_ms = 1e30;
  for (ConvAlgo c : candidates) {
    const double ms = measure_ms(c);
    LogMeasurement(cache->log_path, key, ConvAlgoToken(c), ms, estimate(c));
    if (ms < best_ms) {
      best_ms = ms;
      best = c;
    }
  }
  cache->choices[key] = ConvAlgoToken(best);
  cache->dirty = true;
  return best;
}

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_OPS_CONV_COMMON_H_
