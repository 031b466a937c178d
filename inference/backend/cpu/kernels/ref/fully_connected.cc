#include "inference/backend/cpu/kernels/ref/fully_connected.h"

namespace rill::inference::cpu {

void FullyConnectedRef(int batch, int in_dim, int out_dim, FusedActivation activation, const float* input,
                       const float* weights, const float* bias, float* output) {
  for (int b = 0; b < batch; ++b) {
    const float* x = input + static_cast<long long>(b) * in_dim;
    for (int o = 0; o < out_dim; ++o) {
      const float* w = weights + static_cast<long long>(o) * in_dim;
      float acc = bias ? bias[o] : 0.0f;
      for (int i = 0; i < in_dim; ++i) acc += x[i] * w[i];
      output[static_cast<long long>(b) * out_dim + o] = ApplyActivation(acc, activation);
    }
  }
}

}  // namespace rill::inference::cpu
