// Elementwise ADD/SUB/MUL/DIV for x86 AVX2 on the two layouts that dominate
// real models: operands of one shape, and a per-channel operand broadcast
// along the innermost dimension (NHWC bias/scale). Other broadcasts use the
// reference kernels.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_BINARY_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_BINARY_AVX2_H_

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu::x86 {

using BinaryOp = ::rill::inference::cpu::BinaryKind;

// out[i] = act(a[i] op b[i % b_period]) for i < n; b_period == n for equal
// shapes, the channel count for a per-channel b, 1 for a scalar b.
void BinaryAvx2(BinaryOp op, long long n, const float* a, const float* b, long long b_period,
                FusedActivation act, float* out);

// HARD_SWISH: x * min(max(x + 3, 0), 6) / 6, the reference's operations in
// the reference's order (bit-identical).
void HardSwishAvx2(long long n, const float* in, float* out);

// A fused residual on a window of a conv's output (ResidualAddRef's twin):
// for rows [row_begin, row_end) and channels [col_begin, col_end),
//   y[r, c] = act(y[r, c] + (c < res_c ? residual[r, c] : 0)),
// rows of y out_c floats apart and of `residual` res_c. A conv applies it to
// each tile it has just written, while the tile is still in cache.
void ResidualAddAvx2(const float* residual, int res_c, float* y, int out_c, long long row_begin, long long row_end,
                     int col_begin, int col_end, FusedActivation act);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_BINARY_AVX2_H_
