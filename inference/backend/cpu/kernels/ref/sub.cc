#include "inference/backend/cpu/kernels/ref/sub.h"

#include "inference/backend/cpu/kernels/ref/broadcast.h"

namespace rill::inference::cpu {

void SubRef(const BroadcastParams& p, const float* a, const float* b, float* out) {
  BroadcastBinary(p, a, b, out, [](float x, float y) { return x - y; });
}

}  // namespace rill::inference::cpu
