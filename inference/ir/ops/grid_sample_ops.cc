// Descriptor and shape function of GRID_SAMPLE (grid_sample_ops.h).
#include "inference/ir/ops/grid_sample_ops.h"

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status GridSampleShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  if (c.node().attrs_as<GridSampleAttrs>() == nullptr) return c.Error("missing GridSampleAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 4));
  const Shape& x = c.In(0);
  const Shape& grid = c.In(1);
  if (grid[0] != x[0] || grid[3] != 2) {
    return c.Error("grid " + ShapeToString(grid) + " must be [" + std::to_string(x[0]) + ", Ho, Wo, 2]");
  }
  return c.SetOut({x[0], x[1], grid[1], grid[2]});
}

}  // namespace

OpType GridSampleOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "GRID_SAMPLE", GridSampleShape});
  return t;
}

namespace {
const bool kRegistered = GridSampleOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
