#include "inference/backend/cpu/kernels/ref/pad.h"

namespace rill::inference::cpu {
namespace {

// Writes the padded block of dimension `d`; returns elements written.
void PadDim(const PadParams& p, const long long* out_strides, const long long* in_strides, int d, const float* in,
            float* out) {
  const int out_dim = p.before[d] + p.in_dims[d] + p.after[d];
  if (d == p.rank - 1) {
    int i = 0;
    for (; i < p.before[d]; ++i) out[i] = p.value;
    for (int j = 0; j < p.in_dims[d]; ++j, ++i) out[i] = in[j];
    for (; i < out_dim; ++i) out[i] = p.value;
    return;
  }
  for (int i = 0; i < out_dim; ++i) {
    float* o = out + i * out_strides[d];
    const int j = i - p.before[d];
    if (j < 0 || j >= p.in_dims[d]) {
      for (long long k = 0; k < out_strides[d]; ++k) o[k] = p.value;
    } else {
      PadDim(p, out_strides, in_strides, d + 1, in + j * in_strides[d], o);
    }
  }
}

}  // namespace

void PadRef(const PadParams& p, const float* in, float* out) {
  if (p.rank == 0) {
    out[0] = in[0];
    return;
  }
  long long out_strides[PadParams::kMaxRank];
  long long in_strides[PadParams::kMaxRank];
  long long so = 1, si = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    out_strides[d] = so;
    in_strides[d] = si;
    so *= p.before[d] + p.in_dims[d] + p.after[d];
    si *= p.in_dims[d];
  }
  PadDim(p, out_strides, in_strides, 0, in, out);
}

}  // namespace rill::inference::cpu
