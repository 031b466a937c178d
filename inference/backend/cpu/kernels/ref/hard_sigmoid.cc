#include <algorithm>

#include "inference/backend/cpu/kernels/ref/activations.h"

namespace rill::inference::cpu {

void HardSigmoidRef(long long n, float alpha, float beta, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = std::max(0.0f, std::min(1.0f, alpha * in[i] + beta));
}

}  // namespace rill::inference::cpu
