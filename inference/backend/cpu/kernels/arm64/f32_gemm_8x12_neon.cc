#include "inference/backend/cpu/kernels/arm64/f32_gemm_8x12_neon.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "inference/backend/cpu/kernels/ref/dequantize.h"

extern "C" {
void rill_f32_gemm_8x12_neon(size_t k, const float* a, const float* w, float* c, size_t ldc_bytes,
                             const float* bias, const float* clamp);
void rill_f16_gemm_8x12_neonfp16(size_t k, const uint16_t* a, const uint16_t* w, float* c, size_t ldc_bytes,
                                 const float* bias, const float* clamp, size_t accumulate);
}

namespace rill::inference::cpu::arm64 {
namespace {

// The activation's clamp bounds; tanh is applied after the kernel.
void ClampOf(FusedActivation act, float* clamp) {
  const float inf = std::numeric_limits<float>::infinity();
  switch (act) {
    case FusedActivation::kRelu: clamp[0] = 0.0f; clamp[1] = inf; return;
    case FusedActivation::kRelu6: clamp[0] = 0.0f; clamp[1] = 6.0f; return;
    case FusedActivation::kReluN1To1: clamp[0] = -1.0f; clamp[1] = 1.0f; return;
    case FusedActivation::kNone:
    case FusedActivation::kTanh: clamp[0] = -inf; clamp[1] = inf; return;
  }
}

void TanhTile(float* c, int ldc, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) c[static_cast<size_t>(i) * ldc + j] = ApplyActivation(c[static_cast<size_t>(i) * ldc + j], FusedActivation::kTanh);
  }
}

// A's rows [i0, i0 + 8) packed k-major (rows past m are zeros).
template <typename T, typename Convert>
void PackA(const float* a, int lda, int m, int i0, int k, T* dst, Convert convert) {
  const int rows = std::min(kGemmMr, m - i0);
  for (int r = 0; r < rows; ++r) {
    const float* src = a + static_cast<size_t>(i0 + r) * lda;
    for (int kk = 0; kk < k; ++kk) dst[static_cast<size_t>(kk) * kGemmMr + r] = convert(src[kk]);
  }
  for (int r = rows; r < kGemmMr; ++r) {
    for (int kk = 0; kk < k; ++kk) dst[static_cast<size_t>(kk) * kGemmMr + r] = convert(0.0f);
  }
}

// Copies the valid part of an 8x12 tile.
void CopyTile(const float* tile, int rows, int cols, float* c, int ldc) {
  for (int i = 0; i < rows; ++i) std::memcpy(c + static_cast<size_t>(i) * ldc, tile + i * kGemmNr, cols * sizeof(float));
}

}  // namespace

size_t PackedWeightsFloats12(int n, int k) {
  return static_cast<size_t>((n + kGemmNr - 1) / kGemmNr) * kGemmNr * static_cast<size_t>(k);
}

void PackWeightsNK12(const float* w, int n, int k, float* packed) {
  for (int j0 = 0; j0 < n; j0 += kGemmNr) {
    float* panel = packed + static_cast<size_t>(j0) * k;
    for (int kk = 0; kk < k; ++kk) {
      for (int j = 0; j < kGemmNr; ++j) {
        panel[static_cast<size_t>(kk) * kGemmNr + j] = j0 + j < n ? w[static_cast<size_t>(j0 + j) * k + kk] : 0.0f;
      }
    }
  }
}

void PackWeightsNK12Half(const float* w, int n, int k, uint16_t* packed) {
  std::vector<float> f(PackedWeightsFloats12(n, k));
  PackWeightsNK12(w, n, k, f.data());
  for (size_t i = 0; i < f.size(); ++i) packed[i] = FloatToHalf(f[i]);
}

void GemmF32Neon(int m, int n, int k, const float* a, int lda, const float* packed, const float* bias,
                 FusedActivation act, float* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  // Per-thread A panel: grows to the largest k seen, then no allocation.
  thread_local std::vector<float> a_panel;
  if (a_panel.size() < static_cast<size_t>(k) * kGemmMr) a_panel.resize(static_cast<size_t>(k) * kGemmMr);
  float clamp[2];
  ClampOf(act, clamp);
  alignas(16) float tile[kGemmMr * kGemmNr];
  alignas(16) float bias12[kGemmNr];
  for (int i0 = 0; i0 < m; i0 += kGemmMr) {
    PackA(a, lda, m, i0, k, a_panel.data(), [](float v) { return v; });
    const int rows = std::min(kGemmMr, m - i0);
    for (int j0 = 0; j0 < n; j0 += kGemmNr) {
      const int cols = std::min(kGemmNr, n - j0);
      for (int j = 0; j < kGemmNr; ++j) bias12[j] = bias != nullptr && j < cols ? bias[j0 + j] : 0.0f;
      const float* panel = packed + static_cast<size_t>(j0) * k;
      float* out = c + static_cast<size_t>(i0) * ldc + j0;
      if (rows == kGemmMr && cols == kGemmNr) {
        rill_f32_gemm_8x12_neon(k, a_panel.data(), panel, out, static_cast<size_t>(ldc) * sizeof(float), bias12,
                                clamp);
      } else {
        rill_f32_gemm_8x12_neon(k, a_panel.data(), panel, tile, kGemmNr * sizeof(float), bias12, clamp);
        CopyTile(tile, rows, cols, out, ldc);
      }
      if (act == FusedActivation::kTanh) TanhTile(out, ldc, rows, cols);
    }
  }
}

void GemmF16Neon(int m, int n, int k, const float* a, int lda, const uint16_t* packed, const float* bias,
                 FusedActivation act, float* c, int ldc) {
  if (m <= 0 || n <= 0) return;
  thread_local std::vector<uint16_t> a_panel;
  if (a_panel.size() < static_cast<size_t>(k) * kGemmMr) a_panel.resize(static_cast<size_t>(k) * kGemmMr);
  float clamp[2];
  ClampOf(act, clamp);
  const float inf = std::numeric_limits<float>::infinity();
  const float no_clamp[2] = {-inf, inf};
  alignas(16) float tile[kGemmMr * kGemmNr];
  alignas(16) float bias12[kGemmNr];
  for (int i0 = 0; i0 < m; i0 += kGemmMr) {
    PackA(a, lda, m, i0, k, a_panel.data(), [](float v) { return FloatToHalf(v); });
    const int rows = std::min(kGemmMr, m - i0);
    for (int j0 = 0; j0 < n; j0 += kGemmNr) {
      const int cols = std::min(kGemmNr, n - j0);
      for (int j = 0; j < kGemmNr; ++j) bias12[j] = bias != nullptr && j < cols ? bias[j0 + j] : 0.0f;
      const uint16_t* panel = packed + static_cast<size_t>(j0) * k;
      float* out = c + static_cast<size_t>(i0) * ldc + j0;
      const bool full = rows == kGemmMr && cols == kGemmNr;
      float* dst = full ? out : tile;
      const size_t ld_bytes = (full ? static_cast<size_t>(ldc) : kGemmNr) * sizeof(float);
      // k in chunks: each chunk's half-precision sum is added in fp32.
      int k0 = 0;
      do {
        const int kc = std::min(kF16ChunkK, k - k0);
        const bool last = k0 + kc >= k;
        rill_f16_gemm_8x12_neonfp16(kc, a_panel.data() + static_cast<size_t>(k0) * kGemmMr,
                                    panel + static_cast<size_t>(k0) * kGemmNr, dst, ld_bytes, bias12,
                                    last ? clamp : no_clamp, k0 > 0 ? 1 : 0);
        k0 += kc;
      } while (k0 < k);
      if (!full) CopyTile(tile, rows, cols, out, ldc);
      if (act == FusedActivation::kTanh) TanhTile(out, ldc, rows, cols);
    }
  }
}

}  // namespace rill::inference::cpu::arm64
