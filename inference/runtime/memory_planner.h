// Memory planning, at every plan (after the executions' Prepare): each
// tensor's storage as its backend lays it out, the elisions (a channel
// CONCATENATION whose inputs are written in place, a RESHAPE as a view of its
// input's bytes), then one arena per backend from the tensors' lifetimes
// (arena_planner.h), and every binding's memory.
#ifndef RILL_INFERENCE_RUNTIME_MEMORY_PLANNER_H_
#define RILL_INFERENCE_RUNTIME_MEMORY_PLANNER_H_

#include <cstddef>
#include <string>

#include "inference/ir/graph.h"
#include "inference/runtime/execution_plan.h"
#include "rill/inference/config.h"

namespace rill::inference {

// Lays out and binds the memory of `plan` for its bindings' current shapes.
// OutOfRange, before allocating, when the arenas together would exceed
// SessionConfig::max_memory_bytes (by default half the machine's memory).
// Bindings whose shape holds ir::kDynamicDim (the dynamic region's) are
// left to their executions (runtime/dynamic_region.h).
Status PlanMemory(const ir::Graph& graph, const SessionConfig& config, ExecutionPlan* plan);

// SessionConfig::max_memory_bytes, or its default: half this machine's
// physical memory.
size_t MemoryBound(const SessionConfig& config);
// "123.4 MB".
std::string Megabytes(size_t bytes);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_MEMORY_PLANNER_H_
