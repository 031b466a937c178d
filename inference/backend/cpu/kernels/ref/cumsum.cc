#include "inference/backend/cpu/kernels/ref/cumsum.h"

namespace rill::inference::cpu {

void CumSumRef(const ir::CumSumAttrs& a, long long n, long long inner, const float* x, float* y,
               long long outer_begin, long long outer_end) {
  for (long long o = outer_begin; o < outer_end; ++o) {
    const float* xo = x + o * n * inner;
    float* yo = y + o * n * inner;
    // Step s along the axis (from the end when reversed): each row the
    // previous row's sums plus one more input row, all inner indices at once.
    for (long long s = 0; s < n; ++s) {
      const long long k = a.reverse ? n - 1 - s : s;
      const long long prev = a.reverse ? k + 1 : k - 1;
      float* yk = yo + k * inner;
      if (s == 0) {
        for (long long i = 0; i < inner; ++i) yk[i] = a.exclusive ? 0.0f : xo[k * inner + i];
        continue;
      }
      const float* yp = yo + prev * inner;
      const float* add = xo + (a.exclusive ? prev : k) * inner;
      for (long long i = 0; i < inner; ++i) yk[i] = yp[i] + add[i];
    }
  }
}

}  // namespace rill::inference::cpu
