// Reference kernels of the tensor, shape and attention ops
// (inference/ir/ops/tensor_ops.h): plain loops over row-major float tensors,
// the oracle the CPU executions' faster paths are tested against.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TENSOR_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TENSOR_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rill::inference::cpu {

// An output of rank <= kMaxRank and up to three operands broadcast (numpy)
// against it: each operand's element stride per output axis, 0 where the
// operand's dim is 1.
struct NaryParams {
  static constexpr int kMaxRank = 8;
  static constexpr int kMaxOperands = 3;
  int rank = 0;
  int operands = 0;
  long long out_size = 1;
  int out_dims[kMaxRank] = {};
  long long strides[kMaxOperands][kMaxRank] = {};
};

// Fills `p` for output dims `out` and operand dims `ins` (each right-aligned
// to the output's rank).
void SetNaryParams(const std::vector<int>& out, const std::vector<std::vector<int>>& ins, NaryParams* p);

// out[i] = f(in[0][...], in[1][...], ...) for output elements [begin, end),
// walking the output in order like an odometer.
template <typename F>
void NaryApply(const NaryParams& p, const float* const* in, float* out, long long begin, long long end, F f) {
  if (begin >= end) return;
  int index[NaryParams::kMaxRank] = {};
  long long off[NaryParams::kMaxOperands] = {};
  long long rest = begin;
  for (int d = p.rank - 1; d >= 0; --d) {
    index[d] = static_cast<int>(rest % p.out_dims[d]);
    rest /= p.out_dims[d];
    for (int k = 0; k < p.operands; ++k) off[k] += index[d] * p.strides[k][d];
  }
  const int last = p.rank - 1;
  for (long long o = begin; o < end;) {
    // The rest of the current innermost run.
    const long long run = last < 0 ? 1 : std::min<long long>(end - o, p.out_dims[last] - index[last]);
    const long long s0 = last < 0 ? 0 : p.strides[0][last];
    const long long s1 = last < 0 || p.operands < 2 ? 0 : p.strides[1][last];
    const long long s2 = last < 0 || p.operands < 3 ? 0 : p.strides[2][last];
    const float* a = in[0] + off[0];
    const float* b = p.operands > 1 ? in[1] + off[1] : nullptr;
    const float* c = p.operands > 2 ? in[2] + off[2] : nullptr;
    for (long long i = 0; i < run; ++i) {
      out[o + i] = f(a[i * s0], b ? b[i * s1] : 0.0f, c ? c[i * s2] : 0.0f);
    }
    o += run;
    if (last < 0) break;
    // Advance: the innermost axis by `run`, then carry.
    index[last] += static_cast<int>(run);
    for (int k = 0; k < p.operands; ++k) off[k] += run * p.strides[k][last];
    for (int d = last; d > 0 && index[d] >= p.out_dims[d]; --d) {
      for (int k = 0; k < p.operands; ++k) off[k] -= static_cast<long long>(index[d]) * p.strides[k][d];
      index[d] = 0;
      ++index[d - 1];
      for (int k = 0; k < p.operands; ++k) off[k] += p.strides[k][d - 1];
    }
  }
}

// c[batch] = a[batch] x b[batch] (each operand transposed when adj_*); the
// batch dims broadcast (strides in matrices, 0 where broadcast).
struct BatchMatMulParams {
  static constexpr int kMaxBatchRank = 6;
  int batch_rank = 0;
  int batch_dims[kMaxBatchRank] = {};
  long long a_strides[kMaxBatchRank] = {}, b_strides[kMaxBatchRank] = {};
  long long batches = 1;
  int m = 0, n = 0, k = 0;
  bool adj_x = false, adj_y = false;
};
// Matrix offsets (in elements) of a and b for output batch `batch`.
void BatchMatMulOffsets(const BatchMatMulParams& p, long long batch, long long* a_off, long long* b_off);
// Batches [begin, end).
void BatchMatMulRef(const BatchMatMulParams& p, const float* a, const float* b, float* c, long long begin,
                    long long end);

// ATTENTION (ir/ops/tensor_ops.h): batches of q [m, d], k [n, d] (or [d, n]
// with k_transposed), v [n, dv], the bias [bias_rows, n] at its batch
// offset (bias_rows 1: one row for every query), out [m, dv].
struct AttentionParams {
  static constexpr int kMaxBatchRank = 6;
  int batch_rank = 0;
  int batch_dims[kMaxBatchRank] = {};
  long long bias_strides[kMaxBatchRank] = {};  // in bias matrices; 0 where it broadcasts
  long long batches = 1;
  int m = 0, n = 0, d = 0, dv = 0;
  bool k_transposed = false;
  float scale = 1.0f;
  bool has_bias = false;
  int bias_rows = 1;
};
// The bias's offset (in elements) for batch `batch`.
long long AttentionBiasOffset(const AttentionParams& p, long long batch);
// Batches [begin, end), each query row in three passes over the keys (max,
// sum of exponentials, weighted sum of v), nothing stored but `out`.
void AttentionRef(const AttentionParams& p, const float* q, const float* k, const float* v, const float* bias,
                  float* out, long long begin, long long end);

// data viewed as [outer, axis, inner]; indices already non-negative.
void GatherRef(long long outer, int axis, long long inner, const std::vector<int64_t>& indices, const float* x,
               float* y);

// TILE of x (dims `in`, rank <= 8) by `repeats`.
void TileRef(const std::vector<int>& in, const std::vector<int>& repeats, const float* x, float* y);

enum class ReduceRefKind { kSum, kMax, kMin, kProd, kL2 };
// Over the axes marked in `reduce` (one flag per axis of `in`).
void ReduceRef(ReduceRefKind kind, const std::vector<int>& in, const std::vector<bool>& reduce, const float* x,
               float* y);

// Along the middle axis of [outer, axis, inner]: the index of the largest
// (smallest with `min`) value, first or last of equal ones.
void ArgMaxRef(long long outer, int axis, long long inner, bool min, bool last, const float* x, float* y);

// The k largest (smallest) along the middle axis, sorted, equal values in
// index order; values and/or indices (either may be null).
// `order`: scratch of `axis` ints.
void TopKRef(long long outer, int axis, long long inner, int k, bool largest, const float* x, float* values,
             float* indices, int* order);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TENSOR_H_
