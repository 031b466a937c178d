#include <algorithm>

#include "inference/backend/cpu/kernels/ref/activations.h"

namespace rill::inference::cpu {

void HardSwishRef(long long n, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) {
    const float x = in[i];
    out[i] = x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
}

}  // namespace rill::inference::cpu
