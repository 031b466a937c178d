// Shape inference: each node's shape function comes from its op's
// descriptor (op_registry.h); the functions live beside the op's descriptor
// in inference/ir/ops/.
//
// Data-dependent sizes (docs/design.md, "Data-dependent sizes"): a shape
// function marks a size it cannot know before the run with kDynamicDim (a
// NonZero's count) or finds a shape operand's values unknown
// (ShapeContext::Ints). A node whose inputs hold kDynamicDim is inferred
// with those dims at two sample sizes: an output dim that follows them is
// kDynamicDim, one that does not is known (a Shape's rank, a reduced axis).
// Such nodes form the dynamic region, which the session infers again at
// every run (InferNodeShapesAtRun).
#include <utility>

#include "inference/ir/graph.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {

Status Graph::InferShapes(std::vector<Shape>* shapes, std::vector<bool>* dynamic) const {
  if (shapes->size() != tensors.size()) return InternalError(source + ": shape table size mismatch");
  if (dynamic != nullptr) dynamic->assign(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    bool d = false;
    RILL_INF_RETURN_IF_ERROR(InferNodeShapes(nodes[i], shapes, &d));
    if (dynamic != nullptr) (*dynamic)[i] = d || !nodes[i].guards.empty();
  }
  return Status::Ok();
}

Status Graph::InferNodeShapes(const Node& node, std::vector<Shape>* shapes, bool* dynamic) const {
  ShapeContext c(*this, node, shapes);
  if (node.outputs.empty()) return c.Error("has no outputs");
  const OpDescriptor* op = FindOp(node.type);
  if (op == nullptr || op->infer_shapes == nullptr) return c.Error("op has no registered shape function");
  std::vector<std::pair<int, Shape>> sized;  // inputs holding kDynamicDim, as planned
  for (int id : node.inputs) {
    if (id >= 0 && HasDynamicDim((*shapes)[id])) sized.emplace_back(id, (*shapes)[id]);
  }
  if (sized.empty()) {
    RILL_INF_RETURN_IF_ERROR(op->infer_shapes(c));
    if (dynamic != nullptr) {
      *dynamic = c.read_run_time_values();
      for (int out : node.outputs) *dynamic = *dynamic || HasDynamicDim((*shapes)[out]);
    }
    return Status::Ok();
  }
  // Two sample sizes for the run-time dims; the planned shapes are put back.
  auto infer_at = [&](int size) {
    for (auto& [id, planned] : sized) {
      Shape s = planned;
      for (int& d : s) {
        if (d == kDynamicDim) d = size;
      }
      (*shapes)[id] = std::move(s);
    }
    ShapeContext probe(*this, node, shapes);
    probe.set_probing(true);
    const Status status = op->infer_shapes(probe);
    for (auto& [id, planned] : sized) (*shapes)[id] = planned;
    return status;
  };
  if (dynamic != nullptr) *dynamic = true;
  const size_t outs = node.outputs.size();
  std::vector<Shape> sample[2];
  for (int k = 0; k < 2; ++k) {
    const Status status = infer_at(2 + k);
    if (!status.ok()) {
      // A node valid only when a run-time size is 1 (torch's squeeze of a
      // run-time dim, in the branch an If takes when it is): its rank from
      // that size, every dim known only at run time, where it is checked.
      if (infer_at(1).ok()) {
        for (int out : node.outputs) (*shapes)[out] = Shape((*shapes)[out].size(), kDynamicDim);
        return Status::Ok();
      }
      // No one sample size fits every run-time dim (a CONCATENATION of a
      // run-time size and a known one, equal at run time): a shape function
      // that reads kDynamicDim itself infers from the planned shapes.
      if (op->infer_shapes(c).ok()) return Status::Ok();
      return Status(status.code(), status.message() + " (inferred with sizes known only at run time)");
    }
    for (int out : node.outputs) sample[k].push_back((*shapes)[out]);
  }
  for (size_t o = 0; o < outs; ++o) {
    Shape& s0 = sample[0][o];
    const Shape& s1 = sample[1][o];
    if (s0.size() != s1.size()) return c.Error("its output's rank depends on sizes known only at run time");
    for (size_t d = 0; d < s0.size(); ++d) {
      // A size that follows the samples, or that is 0 at one (a slice that
      // may be empty), is known only at run time.
      if (s0[d] != s1[d] || s0[d] == 0) s0[d] = kDynamicDim;
    }
    (*shapes)[node.outputs[o]] = s0;
  }
  return Status::Ok();
}

Status Graph::InferNodeShapesAtRun(const Node& node, std::vector<Shape>* shapes,
                                   const std::vector<const void*>& values, uint64_t* inputs_read) const {
  ShapeContext c(*this, node, shapes, &values);
  const OpDescriptor* op = FindOp(node.type);
  if (op == nullptr || op->infer_shapes == nullptr) return c.Error("op has no registered shape function");
  const Status status = op->infer_shapes(c);
  if (inputs_read != nullptr) *inputs_read = c.run_time_inputs_read();
  return status;
}

}  // namespace rill::inference::ir
