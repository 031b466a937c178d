// Fast paths for the ops that move or reduce data without a weight: 2-D
// pooling, MEAN over a contiguous block of axes, TRANSPOSE that is a batched
// 2-D transpose, PAD. The reference kernels walk every element through a
// generic index odometer, channel-outer for pooling; these walk memory in
// order (channels innermost, whole rows copied) so the compiler's AVX2 code
// runs at memory speed. Same results as the reference kernels, bit for bit
// (max is exact; sums add in the same order).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DATA_AVX2_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DATA_AVX2_H_

#include "inference/backend/cpu/kernels/kernel_types.h"
#include "inference/backend/cpu/kernels/ref/mean.h"
#include "inference/backend/cpu/kernels/ref/pad.h"
#include "inference/backend/cpu/kernels/ref/pooling.h"
#include "inference/backend/cpu/kernels/ref/transpose.h"

namespace rill::inference::cpu::x86 {

// NHWC pooling, output rows [row_begin, row_end) of batch*out_h (AVX-512
// register accumulation where the CPU has it).
void MaxPool2DAvx2Rows(const PoolParams& p, const float* in, float* out, int row_begin, int row_end);
void AveragePool2DAvx2Rows(const PoolParams& p, const float* in, float* out, int row_begin, int row_end);

// MEAN whose reduced axes are one contiguous run: the input is viewed as
// [outer, middle, inner] and out[o][i] = sum over m of in[o][m][i] / middle.
// Plan once (false for any other pattern), run many times.
using ::rill::inference::cpu::MeanPlan;
bool PlanContiguousMean(const ReduceParams& p, MeanPlan* plan);
void MeanContiguousAvx2(const MeanPlan& plan, const float* in, float* out);

// A transpose that, after merging axes that stay neighbours, is
// [batch, rows, cols] -> [batch, cols, rows] (e.g. NCHW <-> NHWC). Returns
// false for any other permutation. Plan once, run many times.
using ::rill::inference::cpu::TransposePlan;
bool PlanBatched2DTranspose(const TransposeParams& p, TransposePlan* plan);
void TransposeBatched2D(const TransposePlan& plan, const float* in, float* out);
// Output rows (input columns) [c_begin, c_end) of every batch: pieces of one
// transpose for separate threads. Few rows (2-4) go 16 columns at a time by
// AVX-512 permutes where the CPU has them.
void TransposeBatched2DColumns(const TransposePlan& plan, const float* in, float* out, long long c_begin,
                               long long c_end);

// CONCATENATION without a fused activation: one memcpy per input chunk.
void ConcatenationCopy(int num_inputs, const float* const* inputs, const long long* chunk, long long outer,
                       float* out);

// PAD by whole-block copies: the innermost padded axis and everything inside
// it move as one memcpy per row.
void PadCopy(const PadParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_DATA_AVX2_H_
