#include "inference/backend/cpu/ops/conv_common.h"

#include <cstdio>

namespace rill::inference::cpu {

PanelType ChoosePanelType(Precision precision, const CpuKernels& kernels, bool even_if_slower) {
  const GemmKernels& wide = kernels.gemm[CpuKernels::kWideGemm];
  if (precision == Precision::kFp16 && wide.gemm_f16 != nullptr) return PanelType::kF16;
  // Measured once per process: bf16 panels where they beat fp32 FMAs.
  if (precision == Precision::kBf16 && wide.gemm_bf16 != nullptr && (even_if_slower || kernels.bf16_pays())) {
    return PanelType::kBf16;
  }
  return PanelType::kF32;
}

const char* PanelNameSuffix(PanelType t) {
  return t == PanelType::kF16 ? "_f16w" : t == PanelType::kBf16 ? "_bf16" : "";
}

const char* PanelKeySuffix(PanelType t) {
  return t == PanelType::kF16 ? ":f16w" : t == PanelType::kBf16 ? ":bf16" : "";
}

void GemmPanels::Pack(const float* w, int n, int k, const GemmKernels& gemm, PanelType t) {
  gemm_ = &gemm;
  type_ = t == PanelType::kF16 && gemm.gemm_f16 != nullptr    ? PanelType::kF16
          : t == PanelType::kBf16 && gemm.gemm_bf16 != nullptr ? PanelType::kBf16
                                                               : PanelType::kF32;
  f32_.clear();
  f16_.clear();
  bf16_.clear();
  switch (type_) {
    case PanelType::kF16:  // the fp32 panels' layout, in halves
      f16_.assign(gemm.packed_floats(n, k), 0);
      gemm.pack_f16(w, n, k, f16_.data());
      break;
    case PanelType::kBf16:
      bf16_.resize(gemm.packed_bf16(n, k));
      gemm.pack_bf16(w, n, k, bf16_.data());
      break;
    case PanelType::kF32:
      f32_.assign(gemm.packed_floats(n, k), 0.0f);
      gemm.pack(w, n, k, f32_.data());
      break;
  }
}

bool GemmPanels::has_residual_epilogue() const {
  switch (type_) {
    case PanelType::kF16: return gemm_->gemm_residual_f16 != nullptr;
    case PanelType::kBf16: return gemm_->gemm_residual_bf16 != nullptr;
    case PanelType::kF32: return gemm_->gemm_residual != nullptr;
  }
  return false;
}

bool GemmPanels::has_gemv() const {
  switch (type_) {
    case PanelType::kF16: return gemm_->gemv_f16 != nullptr;
    case PanelType::kBf16: return false;
    case PanelType::kF32: return gemm_->gemv != nullptr;
  }
  return false;
}

void GemmPanels::Gemm(int m, int n, int k, const float* a, int lda, int col, const float* bias, FusedActivation act,
                      float* c, int ldc) const {
  const size_t at = static_cast<size_t>(col) * k;
  switch (type_) {
    case PanelType::kBf16:
      gemm_->gemm_bf16(m, n, k, a, lda, bf16_.data() + static_cast<size_t>(col) * Bf16PanelDepth(k), bias, act, c,
                       ldc);
      break;
    case PanelType::kF16: gemm_->gemm_f16(m, n, k, a, lda, f16_.data() + at, bias, act, c, ldc); break;
    case PanelType::kF32: gemm_->gemm(m, n, k, a, lda, f32_.data() + at, bias, act, c, ldc); break;
  }
}

void GemmPanels::GemmResidual(int m, int n, int k, const float* a, int lda, int col, const float* bias,
                              FusedActivation act, float* c, int ldc, const float* residual, int res_ld,
                              int res_c) const {
  const size_t at = static_cast<size_t>(col) * k;
  switch (type_) {
    case PanelType::kBf16:
      gemm_->gemm_residual_bf16(m, n, k, a, lda, bf16_.data() + static_cast<size_t>(col) * Bf16PanelDepth(k), bias,
                                act, c, ldc, residual, res_ld, res_c);
      break;
    case PanelType::kF16:
      gemm_->gemm_residual_f16(m, n, k, a, lda, f16_.data() + at, bias, act, c, ldc, residual, res_ld, res_c);
      break;
    case PanelType::kF32:
      gemm_->gemm_residual(m, n, k, a, lda, f32_.data() + at, bias, act, c, ldc, residual, res_ld, res_c);
      break;
  }
}

void GemmPanels::Gemv(int n, int k, const float* x, int col, const float* bias, FusedActivation act,
                      float* y) const {
  if (!has_gemv()) {
    Gemm(1, n, k, x, k, col, bias, act, y, n);
    return;
  }
  const size_t at = static_cast<size_t>(col) * k;
  if (type_ == PanelType::kF16) gemm_->gemv_f16(n, k, x, f16_.data() + at, bias, act, y);
  else gemm_->gemv(n, k, x, f32_.data() + at, bias, act, y);
}

void AddResidual(const CpuKernels& kernels, const float* residual, int res_c, float* y, int ldy, long long row_begin,
                 long long row_end, int col_begin, int col_end, FusedActivation act) {
  if (kernels.elementwise.residual_add != nullptr) {
    kernels.elementwise.residual_add(residual, res_c, y, ldy, row_begin, row_end, col_begin, col_end, act);
    return;
  }
  for (long long r = row_begin; r < row_end; ++r) {
    float* row = y + r * ldy;
    const float* skip = residual + r * res_c;
    for (int c = col_begin; c < col_end; ++c) row[c] = ApplyActivation(row[c] + (c < res_c ? skip[c] : 0.0f), act);
  }
}

void ApplyPRelu(const CpuKernels& kernels, const float* slope, float* y, int ldy, long long row_begin,
                long long row_end, int col_begin, int col_end) {
  const int cols = col_end - col_begin;
  if (cols <= 0 || row_end <= row_begin) return;
  const auto prelu = kernels.elementwise.prelu;
  if (prelu != nullptr && col_begin == 0 && cols == ldy) {  // dense rows: one call, the slope every row
    float* rows = y + row_begin * ldy;
    prelu((row_end - row_begin) * cols, rows, slope, cols, rows);
    return;
  }
  for (long long r = row_begin; r < row_end; ++r) {
    float* row = y + r * ldy + col_begin;
    const float* s = slope + col_begin;
    if (prelu != nullptr) {
      prelu(cols, row, s, cols, row);
      continue;
    }
    for (int c = 0; c < cols; ++c) row[c] = row[c] >= 0.0f ? row[c] : row[c] * s[c];
  }
}

void LogMeasurement(const std::string& path, const std::string& key, const std::string& choice, double ms,
                    double cycles) {
  if (path.empty()) return;
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s %s %.4f %.0f\n", key.c_str(), choice.c_str(), ms, cycles);
    std::fclose(f);
  }
}

std::vector<float> TuningInput(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 7919) % 1000) * 1e-3f - 0.5f;
  return x;
}

}  // namespace rill::inference::cpu
