// The dynamic region (docs/design.md, "Data-dependent sizes"): the nodes
// whose shapes are known only at run time (a NonZero's count, a TopK whose K
// is computed, everything whose sizes follow from those). The importer and
// Graph::InferShapes mark them (ir::kDynamicDim); placement runs them on the
// CPU backend, each execution wrapped in a DynamicExecution, which at every
// run (unless the node is guarded and its guard fails: an If's branch not
// taken)
//   1. infers the node's output shape from its inputs' actual shapes and
//      the values of its shape operands (Graph::InferNodeShapesAtRun),
//   2. binds each output whose planned shape held kDynamicDim to memory of
//      its own that grows and is never given back (the arena keeps the
//      outputs whose shape was known at plan, e.g. a Shape's [rank]),
//   3. prepares the CPU execution for those shapes and runs it (not when
//      its output is empty), and takes the actual shape from executions
//      whose output size is data (DataDependentOutput: NON_ZERO's count
//      within its bound).
// Steps 1-3 are skipped when every input's shape and the run-time values
// the shape function read (ShapeContext::run_time_inputs_read) equal those
// of the last run that took them: the shapes inferred then are reused and
// the execution stays prepared. So a run whose run-time sizes equal the
// previous run's allocates nothing (onnx_dynamic_ops_test); an execution's
// Prepare must read no run-time value its op's shape function does not.
// The rest of the graph keeps its planned, allocation-free path; the
// region's memory stays allocated across runs, so a run that needs no more
// than an earlier one allocates no tensor memory. Arena plus region are
// checked against SessionConfig::max_memory_bytes whenever the region grows.
#ifndef RILL_INFERENCE_RUNTIME_DYNAMIC_REGION_H_
#define RILL_INFERENCE_RUNTIME_DYNAMIC_REGION_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/backend.h"
#include "inference/ir/graph.h"

namespace rill::inference {

// What the dynamic executions of one plan share: the shape and value
// tables they infer with (by tensor id; only the current node's entries are
// meaningful) and the memory they hold. Executions of the region run on one
// stream (the CPU's), one at a time.
class DynamicRegion {
 public:
  DynamicRegion(const ir::Graph& graph, size_t bound)
      : graph_(graph), bound_(bound), shapes_(graph.tensors.size()), values_(graph.tensors.size(), nullptr) {}
  // The region of a LOOP's body (runtime/loop_execution.h): every node's
  // outputs are memory of their own (the body has no arena), and what it
  // holds counts against `parent`'s bound with the rest of the plan's.
  DynamicRegion(const ir::Graph& body, DynamicRegion* parent)
      : graph_(body), bound_(0), shapes_(body.tensors.size()), values_(body.tensors.size(), nullptr),
        parent_(parent) {}

  // True for a LOOP body's region: no output is in an arena.
  bool nested() const { return parent_ != nullptr; }

  const ir::Graph& graph() const { return graph_; }
  std::vector<Shape>& shapes() { return shapes_; }
  std::vector<const void*>& values() { return values_; }
  // The planned arena's bytes (set at every plan).
  void set_arena_bytes(size_t bytes) { arena_bytes_ = bytes; }
  // Bytes the region's outputs and scratch hold now.
  size_t held_bytes() const { return parent_ ? parent_->held_bytes() : held_bytes_; }
  // `buffer` holding at least `bytes` (grown, never shrunk) for node `node`'s
  // output or, with `scratch`, its scratch; an OutOfRange error naming them
  // when arena plus region would pass the bound. Called at every run: the
  // message is spelled only on error.
  // `keep`: the buffer's first `keep` bytes survive a growth (a LOOP's scan
  // outputs, appended to at every iteration).
  Status Reserve(std::unique_ptr<Buffer>* buffer, size_t bytes, const std::string& node, bool scratch,
                 size_t keep = 0);

 private:
  const ir::Graph& graph_;
  size_t bound_;
  size_t arena_bytes_ = 0, held_bytes_ = 0;
  std::vector<Shape> shapes_;
  std::vector<const void*> values_;
  DynamicRegion* parent_ = nullptr;
};

// A node's guard (ir::Guard) as bound at run time.
struct RunGuard {
  const TensorBinding* condition = nullptr;
  bool when = true;
};

// A node of the dynamic region: `inner` (its CPU execution, created for the
// bindings in `inputs` / `outputs`) prepared and run with the sizes of each
// run (see above), and not at all in a run where one of `guards` fails (a
// branch of an If not taken).
// `output_memory` (optional, one per output, null for most): the buffer
// that output k is written to, owned by the caller, who may swap it for
// another between runs (a LOOP's carried value: the body writes its next
// value straight into the buffer the LOOP carries it in); it is bound
// again at every run.
std::unique_ptr<Execution> MakeDynamicExecution(DynamicRegion* region, const ir::Node& node,
                                                std::unique_ptr<Execution> inner,
                                                std::vector<const TensorBinding*> inputs,
                                                std::vector<TensorBinding*> outputs, std::vector<RunGuard> guards,
                                                std::vector<std::unique_ptr<Buffer>*> output_memory = {});

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_DYNAMIC_REGION_H_
