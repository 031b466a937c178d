#include <algorithm>

#include "inference/backend/cpu/kernels/ref/activations.h"

namespace rill::inference::cpu {

void ClampRef(long long n, float lo, float hi, const float* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = std::min(std::max(in[i], lo), hi);
}

}  // namespace rill::inference::cpu
