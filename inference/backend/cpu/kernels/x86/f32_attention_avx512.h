// ATTENTION's heads on AVX-512F (the kernel table's AttentionKernels): the
// operands read where they are stored, nothing packed but K's transpose.
//
// Per head, K [n, d] is transposed once into `keys` (d rows of n floats,
// padded to a multiple of 16 with zeros) by 16 x 16 register transposes.
// Per block of query rows, the scores Q K^T come from register tiles of 6
// rows x 64 keys (24 zmm accumulators, a broadcast of Q per row and k step),
// scaled and biased in the tile's epilogue (mul, then add: the reference's
// two roundings); each row's exp(s - max) and 1 / sum in one pass over its
// scores (vmath::ExpScalef); then P V with the same tiles read straight from
// V's rows (6 rows x 64 of dv), each output row times its 1 / sum in the
// epilogue: the softmax's division moved past the sum over keys (dv
// multiplies per query instead of n divisions).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_ATTENTION_AVX512_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_ATTENTION_AVX512_H_

#include <cstddef>

#include "inference/backend/cpu/kernels/cpu_kernels.h"

namespace rill::inference::cpu::x86 {

size_t AttentionKeysFloatsAvx512(int n, int d);
void AttentionKeysAvx512(const AttentionHead& h, float* keys);
size_t AttentionScoresFloatsAvx512(int n);
void AttentionRowsAvx512(const AttentionHead& h, const float* keys, int r0, int r1, float* scores);

// [rows, cols] (rows `ld_in` floats apart) into [cols, rows16] (rows16:
// rows rounded up to 16, the padding zero, `ld_out` floats apart).
void TransposeToRowsAvx512(const float* in, int rows, int cols, long long ld_in, float* out, long long ld_out);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_ATTENTION_AVX512_H_
