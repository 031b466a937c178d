#include "inference/backend/cpu/kernels/ref/activations.h"

namespace rill::inference::cpu {

void LeakyReluRef(long long n, float alpha, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = in[i] >= 0.0f ? in[i] : alpha * in[i];
}

}  // namespace rill::inference::cpu
