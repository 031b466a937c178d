// Descriptor and shape function of GATHER_ELEMENTS (gather_elements_ops.h).
#include "inference/ir/ops/gather_elements_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status GatherElementsShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  const auto* a = c.node().attrs_as<GatherElementsAttrs>();
  if (a == nullptr) return c.Error("missing GatherElementsAttrs");
  const Shape& data = c.In(0);
  const Shape& idx = c.In(1);
  if (data.size() != idx.size() || data.empty()) {
    return c.Error("data " + ShapeToString(data) + " and indices " + ShapeToString(idx) + " must have one rank >= 1");
  }
  if (a->axis < 0 || a->axis >= static_cast<int>(data.size())) return c.Error("axis out of range");
  for (size_t d = 0; d < data.size(); ++d) {
    if (static_cast<int>(d) != a->axis && idx[d] > data[d]) {
      return c.Error("indices " + ShapeToString(idx) + " larger than data " + ShapeToString(data) + " off the axis");
    }
  }
  return c.SetOut(idx);
}

}  // namespace

OpType GatherElementsOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "GATHER_ELEMENTS", GatherElementsShape});
  return t;
}

namespace {
const bool kRegistered = GatherElementsOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
