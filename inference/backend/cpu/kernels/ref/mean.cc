#include "inference/backend/cpu/kernels/ref/mean.h"

namespace rill::inference::cpu {

void MeanRef(const ReduceParams& p, const float* in, float* out) {
  // Output strides per input dimension; reduced dimensions do not advance.
  long long out_strides[ReduceParams::kMaxRank] = {};
  long long out_size = 1, in_size = 1, count = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    in_size *= p.in_dims[d];
    if (p.reduce[d]) {
      count *= p.in_dims[d];
    } else {
      out_strides[d] = out_size;
      out_size *= p.in_dims[d];
    }
  }
  for (long long i = 0; i < out_size; ++i) out[i] = 0.0f;
  int index[ReduceParams::kMaxRank] = {};
  long long o = 0;
  for (long long i = 0; i < in_size; ++i) {
    out[o] += in[i];
    for (int d = p.rank - 1; d >= 0; --d) {
      ++index[d];
      o += out_strides[d];
      if (index[d] < p.in_dims[d]) break;
      o -= out_strides[d] * p.in_dims[d];
      index[d] = 0;
    }
  }
  const float divisor = count > 0 ? static_cast<float>(count) : 1.0f;
  for (long long i = 0; i < out_size; ++i) out[i] /= divisor;
}

}  // namespace rill::inference::cpu
