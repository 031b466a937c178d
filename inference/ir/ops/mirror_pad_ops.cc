// Descriptor and shape function of MIRROR_PAD (mirror_pad_ops.h).
#include "inference/ir/ops/mirror_pad_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status MirrorPadShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const auto* a = c.node().attrs_as<MirrorPadAttrs>();
  if (a == nullptr) return c.Error("missing MirrorPadAttrs");
  const Shape& x = c.In(0);
  if (x.empty() || x.size() > 6 || a->before.size() != x.size() || a->after.size() != x.size()) {
    return c.Error("padding of input " + ShapeToString(x) + " needs one pair per axis (rank 1..6)");
  }
  Shape out = x;
  for (size_t d = 0; d < x.size(); ++d) {
    const int b = a->before[d], e = a->after[d];
    const int limit = a->mode == MirrorPadAttrs::Mode::kReflect ? x[d] - 1
                      : a->mode == MirrorPadAttrs::Mode::kSymmetric ? x[d]
                                                                    : (1 << 20);
    if (b < 0 || e < 0 || b > limit || e > limit) {
      return c.Error("padding " + std::to_string(b) + ", " + std::to_string(e) + " of axis " + std::to_string(d) +
                     " (size " + std::to_string(x[d]) + ") is out of range for the mode");
    }
    out[d] = x[d] + b + e;
  }
  return c.SetOut(out);
}

}  // namespace

OpType MirrorPadOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "MIRROR_PAD", MirrorPadShape});
  return t;
}

namespace {
const bool kRegistered = MirrorPadOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
