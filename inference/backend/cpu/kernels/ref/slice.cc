#include "inference/backend/cpu/kernels/ref/slice.h"

#include <cstring>

namespace rill::inference::cpu {

long long SliceRows(const SliceParams& p) {
  long long rows = 1;
  for (int d = 0; d + 1 < p.rank; ++d) rows *= p.out_dims[d];
  return rows;
}

void SliceRef(const SliceParams& p, const float* in, float* out, long long row_begin, long long row_end) {
  if (p.rank == 0) {
    if (row_begin == 0 && row_end > 0) out[0] = in[0];
    return;
  }
  long long in_stride[SliceParams::kMaxRank];
  long long s = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= p.in_dims[d];
  }
  const int last = p.rank - 1;
  const int width = p.out_dims[last];
  for (long long row = row_begin; row < row_end; ++row) {
    // The row's input offset: its index along each outer axis, innermost first.
    long long offset = 0, rest = row;
    for (int d = last - 1; d >= 0; --d) {
      const long long i = rest % p.out_dims[d];
      rest /= p.out_dims[d];
      offset += (p.begin[d] + i * p.step[d]) * in_stride[d];
    }
    const float* src = in + offset + p.begin[last];
    float* dst = out + row * width;
    if (p.step[last] == 1) {
      if (width > 0) std::memcpy(dst, src, static_cast<size_t>(width) * sizeof(float));
    } else {
      for (int i = 0; i < width; ++i) dst[i] = src[static_cast<long long>(i) * p.step[last]];
    }
  }
}

}  // namespace rill::inference::cpu
