// Descriptor and shape function of RANDOM (random_ops.h).
#include "inference/ir/ops/random_ops.h"

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status RandomShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(0, 1));
  const auto* a = c.node().attrs_as<RandomAttrs>();
  if (a == nullptr) return c.Error("missing RandomAttrs");
  if (a->kind == RandomAttrs::Kind::kMultinomial) {
    if (c.node().inputs.empty()) return c.Error("needs its logits");
    const Shape& x = c.In(0);
    if (x.size() != 2 || x[1] < 1) return c.Error("logits must be [batch, classes], are " + ShapeToString(x));
    if (a->samples < 1) return c.Error("sample_size must be positive");
    return c.SetOut({x[0], a->samples});
  }
  if (!c.node().inputs.empty()) return c.SetOut(c.In(0));
  if (a->kind == RandomAttrs::Kind::kBernoulli) return c.Error("needs its probabilities");
  return c.SetOut(a->shape);
}

}  // namespace

OpType RandomOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "RANDOM", RandomShape});
  return t;
}

namespace {
const bool kRegistered = RandomOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
