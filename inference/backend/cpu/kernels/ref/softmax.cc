#include "inference/backend/cpu/kernels/ref/softmax.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {

void SoftmaxRef(long long outer, int axis_size, long long inner, const float* in, float* out) {
  for (long long o = 0; o < outer; ++o) {
    for (long long i = 0; i < inner; ++i) {
      const float* x = in + o * axis_size * inner + i;
      float* y = out + o * axis_size * inner + i;
      float max_value = x[0];
      for (int a = 1; a < axis_size; ++a) max_value = std::max(max_value, x[a * inner]);
      float sum = 0.0f;
      for (int a = 0; a < axis_size; ++a) {
        const float e = std::exp(x[a * inner] - max_value);
        y[a * inner] = e;
        sum += e;
      }
      for (int a = 0; a < axis_size; ++a) y[a * inner] /= sum;
    }
  }
}

}  // namespace rill::inference::cpu
