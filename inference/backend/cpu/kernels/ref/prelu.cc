#include "inference/backend/cpu/kernels/ref/prelu.h"

#include "inference/backend/cpu/kernels/ref/broadcast.h"

namespace rill::inference::cpu {

void PReluRef(const BroadcastParams& p, const float* a, const float* b, float* out) {
  BroadcastBinary(p, a, b, out, [](float x, float y) { return x >= 0.0f ? x : x * y; });
}

}  // namespace rill::inference::cpu
