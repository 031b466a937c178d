// Data the CPU ops hand to optimized kernels and get back from them (packed
// weights, plans made at resize), in no ISA's terms: the ops hold these
// between Prepare and Run without knowing which kernels filled them
// (cpu_kernels.h). Every ISA's kernels read and write the same structs.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_KERNEL_TYPES_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_KERNEL_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

// bfloat16 bits (the upper half of a float).
struct Bf16 {
  uint16_t bits;
};
// bf16 panels hold k in pairs (two multiplies per lane and instruction), k
// padded to even with zeros: the elements between a panel's first columns
// `col` and 0 are col * Bf16PanelDepth(k).
inline int Bf16PanelDepth(int k) { return (k + 1) / 2 * 2; }

// fp32 GEMM panels of NR columns ([panel][k][NR], zero columns past n: the
// layout every ISA's fp32 `pack` writes from [n, k] rows) packed from a
// [k, n] row-major operand (a GEMM's B as it is stored: attention's V, a
// BATCH_MATMUL's right operand): each panel row is a copy of NR contiguous
// values, no transpose.
template <int NR>
void PackPanelsKN(const float* b, int k, int n, float* packed) {
  for (int j0 = 0; j0 < n; j0 += NR) {
    const int cols = n - j0 < NR ? n - j0 : NR;
    float* panel = packed + static_cast<size_t>(j0) * k;
    for (int kk = 0; kk < k; ++kk) {
      float* dst = panel + static_cast<size_t>(kk) * NR;
      const float* src = b + static_cast<size_t>(kk) * n + j0;
      for (int j = 0; j < cols; ++j) dst[j] = src[j];
      for (int j = cols; j < NR; ++j) dst[j] = 0.0f;
    }
  }
}

// The element type of packed GEMM panels: fp32, IEEE halves (weights only,
// converted to fp32 in the kernel: Precision::kFp16) or bf16 k pairs
// (Precision::kBf16).
enum class PanelType { kF32, kF16, kBf16 };

// A packed GEMM: C[m, n] = act(bias[n] + sum_k A[m, k] * W[n, k]) over
// panels of W packed by the microkernel's own packer; `packed` points at the
// first panel of the columns to compute.
template <typename W>
using GemmKernel = void (*)(int m, int n, int k, const float* a, int lda, const W* packed, const float* bias,
                            FusedActivation act, float* c, int ldc);
// The same with a residual added to each output before the activation, in
// the microkernel's registers (a conv's fused skip connection):
//   c[i][j] = act(sum + bias[j] + (j < res_c ? residual[i * res_ld + j] : 0)).
template <typename W>
using GemmResidualKernel = void (*)(int m, int n, int k, const float* a, int lda, const W* packed,
                                    const float* bias, FusedActivation act, float* c, int ldc,
                                    const float* residual, int res_ld, int res_c);
// One row: y = act(x W^T + bias).
template <typename W>
using GemvKernel = void (*)(int n, int k, const float* x, const W* packed, const float* bias, FusedActivation act,
                            float* y);
using GemmFn = GemmKernel<float>;

// Winograd F(m x m, 3x3): how one layer's tiles split into blocks, and the
// scratch one block needs.
struct WinogradPlan {
  int m = 0;      // output tile side (2, 4 or 6)
  int alpha = 0;  // input tile side, m + 2
  int tiles_h = 0, tiles_w = 0;
  long long total_tiles = 0;
  int tiles_per_block = 0;
  int blocks = 0;
  size_t v_floats = 0;      // transformed inputs of one block: alpha^2 x tiles x in_c
  size_t m_floats = 0;      // GEMM products of one block: alpha^2 x tiles x out_c
  size_t patch_floats = 0;  // one zero-padded border patch (per thread)
};

// alpha^2 transformed filter matrices [out_c, in_c], each packed for the
// GEMM microkernel the transforms were made for (`wide`: the wide panels).
struct WinogradWeights {
  int m = 0;
  bool wide = false;
  std::vector<float> packed;
  // Precision::kFp16: the same panels in half precision (`packed` then empty).
  std::vector<uint16_t> half;
  size_t stride = 0;  // floats between consecutive packed matrices
  // Precision::kBf16: the panels in bf16 (`packed` then empty), bf16_stride
  // apart.
  std::vector<Bf16> bf16;
  size_t bf16_stride = 0;
};

// Strassen's recursion over a constant [n, k] weight matrix: the 7^depth
// combinations of its blocks, each packed for the GEMM microkernel.
struct StrassenWeights {
  int depth = 0;
  int n = 0, k = 0;
  bool wide = false;
  std::vector<float> packed;        // all leaves
  std::vector<size_t> leaf_offset;  // 7^depth offsets into packed
};

// MEAN over one contiguous run of axes: the input viewed as [outer, middle,
// inner], out[o][i] = sum over m of in[o][m][i] / middle.
struct MeanPlan {
  long long outer = 1, middle = 1, inner = 1;
};

// A TRANSPOSE that, once neighbouring axes that stay neighbours are merged,
// is [batch, rows, cols] -> [batch, cols, rows].
struct TransposePlan {
  long long batch = 1, rows = 0, cols = 0, total = 1;
};

// ADD, SUB, MUL, DIV.
enum class BinaryKind { kAdd, kSub, kMul, kDiv };

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_KERNEL_TYPES_H_
