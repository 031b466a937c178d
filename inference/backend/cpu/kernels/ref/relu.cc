#include <algorithm>

#include "inference/backend/cpu/kernels/ref/activations.h"

namespace rill::inference::cpu {

void ReluRef(long long n, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = std::max(in[i], 0.0f);
}

void Relu6Ref(long long n, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = std::min(std::max(in[i], 0.0f), 6.0f);
}

}  // namespace rill::inference::cpu
