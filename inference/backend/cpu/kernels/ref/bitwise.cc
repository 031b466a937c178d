#include "inference/backend/cpu/kernels/ref/bitwise.h"

#include "inference/backend/cpu/kernels/ref/broadcast.h"

namespace rill::inference::cpu {

bool BitwiseRef(ir::BitwiseFn fn, const ir::BitwiseAttrs& attrs, const Shape& a_shape, const float* a,
                const Shape& b_shape, const float* b, const Shape& out_shape, float* out) {
  auto op = [&](float x, float y) {
    return ir::BitwiseToFloat(
        ir::ApplyBitwise(fn, attrs, ir::BitwiseFromFloat(x, attrs), ir::BitwiseFromFloat(y, attrs)), attrs);
  };
  if (fn == ir::BitwiseFn::kNot) {
    const long long n = NumElements(out_shape);
    for (long long i = 0; i < n; ++i) out[i] = op(a[i], 0.0f);
    return true;
  }
  BroadcastParams p;
  if (!MakeBroadcastParams(a_shape, b_shape, &p)) return false;
  BroadcastBinary(p, a, b, out, op);
  return true;
}

}  // namespace rill::inference::cpu
