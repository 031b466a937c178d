#include "inference/backend/cpu/kernels/ref/mirror_pad.h"

namespace rill::inference::cpu {
namespace {

// The input index an output position `i` of an axis of size n reads.
int Source(ir::MirrorPadAttrs::Mode mode, int i, int before, int n) {
  int j = i - before;
  if (j >= 0 && j < n) return j;
  switch (mode) {
    case ir::MirrorPadAttrs::Mode::kEdge:
      return j < 0 ? 0 : n - 1;
    case ir::MirrorPadAttrs::Mode::kReflect:
      return j < 0 ? -j : 2 * (n - 1) - j;
    case ir::MirrorPadAttrs::Mode::kSymmetric:
      return j < 0 ? -j - 1 : 2 * n - 1 - j;
  }
  return 0;
}

}  // namespace

void MirrorPadRef(const ir::MirrorPadAttrs& a, const Shape& xs, const float* x, float* y, long long row_begin,
                  long long row_end) {
  const int rank = static_cast<int>(xs.size());  // <= 6 (the shape function checks)
  int out[6];
  long long in_stride[6];
  long long s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    out[d] = xs[d] + a.before[d] + a.after[d];
    in_stride[d] = s;
    s *= xs[d];
  }
  const int w = out[rank - 1];
  for (long long r = row_begin; r < row_end; ++r) {
    // The row's outer indices, from its number.
    long long rest = r, base = 0;
    for (int d = rank - 2; d >= 0; --d) {
      const int i = static_cast<int>(rest % out[d]);
      rest /= out[d];
      base += Source(a.mode, i, a.before[d], xs[d]) * in_stride[d];
    }
    float* row = y + r * w;
    for (int i = 0; i < w; ++i) row[i] = x[base + Source(a.mode, i, a.before[rank - 1], xs[rank - 1])];
  }
}

}  // namespace rill::inference::cpu
