// The loop shared by the binary elementwise ops: walks the output in order,
// advancing each operand by its (possibly zero) stride.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_BROADCAST_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_BROADCAST_H_

#include "inference/backend/cpu/kernels/ref/kernel_params.h"

namespace rill::inference::cpu {

template <typename Op>
void BroadcastBinary(const BroadcastParams& p, const float* a, const float* b, float* out, Op op) {
  if (p.same_shape) {
    for (long long i = 0; i < p.out_size; ++i) out[i] = ApplyActivation(op(a[i], b[i]), p.activation);
    return;
  }
  if (p.rank == 0) {
    out[0] = ApplyActivation(op(a[0], b[0]), p.activation);
    return;
  }
  int index[BroadcastParams::kMaxRank] = {};
  long long ia = 0, ib = 0;
  const int last = p.rank - 1;
  const int inner = p.out_dims[last];
  const int sa = p.a_strides[last], sb = p.b_strides[last];
  for (long long o = 0; o < p.out_size; o += inner) {
    for (int i = 0; i < inner; ++i) {
      out[o + i] = ApplyActivation(op(a[ia + static_cast<long long>(i) * sa], b[ib + static_cast<long long>(i) * sb]),
                                   p.activation);
    }
    // Advance the outer index like an odometer.
    for (int d = last - 1; d >= 0; --d) {
      ++index[d];
      ia += p.a_strides[d];
      ib += p.b_strides[d];
      if (index[d] < p.out_dims[d]) break;
      ia -= static_cast<long long>(p.a_strides[d]) * p.out_dims[d];
      ib -= static_cast<long long>(p.b_strides[d]) * p.out_dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_BROADCAST_H_
