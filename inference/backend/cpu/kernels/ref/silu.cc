#include <cmath>

#include "inference/backend/cpu/kernels/ref/activations.h"

namespace rill::inference::cpu {

void SiluRef(long long n, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = in[i] * (1.0f / (1.0f + std::exp(-in[i])));
}

}  // namespace rill::inference::cpu
