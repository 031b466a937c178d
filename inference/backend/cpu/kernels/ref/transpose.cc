#include "inference/backend/cpu/kernels/ref/transpose.h"

namespace rill::inference::cpu {

void TransposeRef(const TransposeParams& p, const float* in, float* out) {
  long long in_strides[TransposeParams::kMaxRank];
  long long s = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    in_strides[d] = s;
    s *= p.in_dims[d];
  }
  const long long total = s;
  // Walk the output in order; `stride[i]` is how far the input moves when
  // output index i advances.
  int out_dims[TransposeParams::kMaxRank];
  long long stride[TransposeParams::kMaxRank];
  for (int i = 0; i < p.rank; ++i) {
    out_dims[i] = p.in_dims[p.perm[i]];
    stride[i] = in_strides[p.perm[i]];
  }
  int index[TransposeParams::kMaxRank] = {};
  long long src = 0;
  for (long long o = 0; o < total; ++o) {
    out[o] = in[src];
    for (int d = p.rank - 1; d >= 0; --d) {
      ++index[d];
      src += stride[d];
      if (index[d] < out_dims[d]) break;
      src -= stride[d] * out_dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace rill::inference::cpu
