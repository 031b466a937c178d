#include "inference/backend/cpu/kernels/ref/concatenation.h"

namespace rill::inference::cpu {

void ConcatenationRef(int num_inputs, const float* const* inputs, const long long* chunk, long long outer,
                      FusedActivation activation, float* out) {
  for (long long o = 0; o < outer; ++o) {
    for (int i = 0; i < num_inputs; ++i) {
      const float* src = inputs[i] + o * chunk[i];
      for (long long k = 0; k < chunk[i]; ++k) *out++ = ApplyActivation(src[k], activation);
    }
  }
}

}  // namespace rill::inference::cpu
