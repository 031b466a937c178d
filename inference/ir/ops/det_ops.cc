// Descriptor and shape function of DET (det_ops.h).
#include "inference/ir/ops/det_ops.h"

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status DetShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const Shape& x = c.In(0);
  if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2]) {
    return c.Error("input must be [..., M, M], is " + ShapeToString(x));
  }
  return c.SetOut(Shape(x.begin(), x.end() - 2));
}

}  // namespace

OpType DetOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "DET", DetShape});
  return t;
}

namespace {
const bool kRegistered = DetOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
