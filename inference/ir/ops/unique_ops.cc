// Descriptor and shape function of UNIQUE (unique_ops.h).
#include "inference/ir/ops/unique_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status UniqueShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const auto* a = c.node().attrs_as<UniqueAttrs>();
  if (a == nullptr) return c.Error("missing UniqueAttrs");
  const Shape& x = c.In(0);
  if (a->axis < -1 || a->axis >= static_cast<int>(x.size())) {
    return c.Error("axis " + std::to_string(a->axis) + " out of range for " + ShapeToString(x));
  }
  const bool flat = a->axis < 0;
  int n = flat ? kDynamicDim : x[a->axis];
  if (flat && !HasDynamicDim(x)) n = static_cast<int>(NumElements(x));
  // At run time the bound (every slice unique); the execution reports the
  // count.
  const int count = c.at_run() ? n : kDynamicDim;
  switch (a->output) {
    case UniqueAttrs::Output::kValues: {
      if (flat) return c.SetOut({count});
      Shape out = x;
      out[a->axis] = count;
      return c.SetOut(out);
    }
    case UniqueAttrs::Output::kInverse:
      return c.SetOut({n});
    case UniqueAttrs::Output::kIndices:
    case UniqueAttrs::Output::kCounts:
      return c.SetOut({count});
  }
  return c.Error("unknown output");
}

}  // namespace

OpType UniqueOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "UNIQUE", UniqueShape});
  return t;
}

namespace {
const bool kRegistered = UniqueOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
