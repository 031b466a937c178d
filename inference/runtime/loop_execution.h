// A LOOP node (ir/ops/dynamic_ops.h: ONNX Loop whose trip count or
// condition is known only at run time) in the session's dynamic region
// (docs/design.md, "Data-dependent sizes"). Its body is planned once, as a
// nested plan on the CPU backend in which every node is a dynamic execution
// (runtime/dynamic_region.h) of a region of its own: nothing of the body is
// in an arena, its inputs' shapes are known only at each iteration, and
// what it holds counts against SessionConfig::max_memory_bytes with the
// rest of the plan. At every run the execution reads M and the condition,
// then runs the body until M iterations or a false condition (read from
// the body's first output after each iteration), binding the iteration
// number, the condition and the carried values (two buffers per carried
// value, swapped between iterations: the body's result is copied into the
// one it does not read) and appending each iteration's scan outputs. The
// buffers grow and are never given back, so a run whose sizes equal the
// previous one's allocates no tensor memory. A LOOP in a body nests the
// same way.
#ifndef RILL_INFERENCE_RUNTIME_LOOP_EXECUTION_H_
#define RILL_INFERENCE_RUNTIME_LOOP_EXECUTION_H_

#include <memory>
#include <vector>

#include "inference/backend/backend.h"
#include "inference/ir/graph.h"
#include "inference/runtime/dynamic_region.h"

namespace rill::inference {

// The execution of LOOP node `args.node` (bindings in `args`), its body's
// executions created on `cpu` with `args`' policies; fails naming the body
// node that `cpu` cannot run.
StatusOr<std::unique_ptr<Execution>> MakeLoopExecution(DynamicRegion* region, Backend* cpu, const ExecutionArgs& args,
                                                       std::vector<RunGuard> guards);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_LOOP_EXECUTION_H_
