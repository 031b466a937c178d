#include "inference/backend/cpu/kernels/ref/lrn.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {

void LrnRef(const ir::LrnAttrs& a, long long outer, int channels, long long inner, const float* x, float* y,
            long long outer_begin, long long outer_end) {
  (void)outer;
  for (long long o = outer_begin; o < outer_end; ++o) {
    const float* xo = x + o * channels * inner;
    float* yo = y + o * channels * inner;
    for (long long i = 0; i < inner; ++i) {
      for (int c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (int j = std::max(0, c - a.before); j <= std::min(channels - 1, c + a.after); ++j) {
          const float v = xo[j * inner + i];
          sum += v * v;
        }
        yo[c * inner + i] = xo[c * inner + i] / std::pow(a.bias + a.alpha * sum, a.beta);
      }
    }
  }
}

}  // namespace rill::inference::cpu
