// Placement: which backend runs each node (SessionConfig::node_backends,
// placement, backend), the executions that backend creates for it (falling
// back to the CPU on Unimplemented), the transfers where a tensor crosses
// memory spaces, the streams, and each host-computing backend's share of
// the threads.
#ifndef RILL_INFERENCE_RUNTIME_PLACEMENT_H_
#define RILL_INFERENCE_RUNTIME_PLACEMENT_H_

#include <set>
#include <vector>

#include "inference/ir/graph.h"
#include "inference/runtime/execution_plan.h"
#include "rill/inference/config.h"

namespace rill::inference {

// Fills `plan` (empty on entry) for `graph`. Nodes in `host_nodes` run on
// the CPU whatever the config says (their device execution refused them in
// Prepare); so do the nodes of the dynamic region (`dynamic_nodes`, per
// node, from Graph::InferShapes), each in a DynamicExecution
// (dynamic_region.h). `tuning` is passed to executions under
// AlgorithmPolicy::kTune.
Status PlaceGraph(const ir::Graph& graph, const SessionConfig& config, const std::set<int>& host_nodes,
                  const std::vector<bool>& dynamic_nodes, TuningCache* tuning, ExecutionPlan* plan);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_PLACEMENT_H_
