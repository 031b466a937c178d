#include "inference/backend/cpu/kernels/ref/residual_add.h"

namespace rill::inference::cpu {

void ResidualAddRef(long long rows, int out_c, const float* residual, int res_c, FusedActivation act, float* y) {
  for (long long r = 0; r < rows; ++r) {
    float* row = y + r * out_c;
    const float* skip = residual + r * res_c;
    for (int c = 0; c < out_c; ++c) row[c] = ApplyActivation(row[c] + (c < res_c ? skip[c] : 0.0f), act);
  }
}

}  // namespace rill::inference::cpu
