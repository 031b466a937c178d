// Shape inference: each node's shape function comes from its op's
// descriptor (op_registry.h); the functions live beside the op's descriptor
// in inference/ir/ops/.
#include "inference/ir/graph.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {

Status Graph::InferShapes(std::vector<Shape>* shapes) const {
  if (shapes->size() != tensors.size()) return InternalError(source + ": shape table size mismatch");
  for (const Node& node : nodes) RILL_INF_RETURN_IF_ERROR(InferNodeShapes(node, shapes));
  return Status::Ok();
}

Status Graph::InferNodeShapes(const Node& node, std::vector<Shape>* shapes) const {
  ShapeContext c(*this, node, shapes);
  if (node.outputs.size() != 1) return c.Error("expects exactly one output");
  const OpDescriptor* op = FindOp(node.type);
  if (op == nullptr || op->infer_shapes == nullptr) return c.Error("op has no registered shape function");
  return op->infer_shapes(c);
}

}  // namespace rill::inference::ir
