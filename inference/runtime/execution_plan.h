// What a session prepares before its first run, shared by its three stages
// (docs/design.md, "Session = plan, then run"):
// - placement (placement.h): which backend runs each node, the executions,
//   the transfers where tensors cross memories, the streams;
// - memory planning (memory_planner.h): each tensor's storage on its
//   backend, the elisions (in-place concatenations and reshapes) and one
//   arena per backend;
// - execution (executor.h): walks the prepared task list, stream by stream.
#ifndef RILL_INFERENCE_RUNTIME_EXECUTION_PLAN_H_
#define RILL_INFERENCE_RUNTIME_EXECUTION_PLAN_H_

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inference/backend/backend.h"
#include "inference/runtime/dynamic_region.h"

namespace rill::inference {

// A unit of a run: a node's execution or a transfer, on one backend's stream.
struct Task {
  std::unique_ptr<Execution> exec;
  int backend = 0;  // index into ExecutionPlan::backends
  int stream = 0;   // index into ExecutionPlan::stream_tasks
  int lane = 0;     // the backend's queue (Backend::MaxLanes; 0 unless branch_streams)
  int node = -1;    // graph node; -1 for a transfer
  std::vector<int> reads, writes;  // binding ids
  std::vector<int> waits;          // tasks of other streams that must finish first
  bool signals = false;            // a task of another stream waits for it
  bool sync_lane = false;          // another lane of its backend reads what it writes: SyncLane first
  bool elided = false;             // runs as a view (in-place concatenation or reshape)
  // A node of the dynamic region (runtime/dynamic_region.h): its execution
  // infers its shapes and binds its outputs' memory at run time (again only
  // when its input shapes or the values they are computed from change).
  bool dynamic = false;
  // The first / last task of its backend in a run: the backend's BeginRun /
  // EndRun hooks run around it.
  bool begins_backend = false, ends_backend = false;
};

struct BackendSlot {
  std::string name;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Buffer> arena;  // this session's arena on the backend
  // Tensors stored outside the arena (image storage): binding id -> buffer.
  std::map<int, std::unique_ptr<Buffer>> own_buffers;
};

struct ExecutionPlan {
  std::vector<BackendSlot> backends;  // [0]: the host CPU
  // Bindings: the graph's tensors (same ids), then copies of tensors in other
  // memory spaces. A deque, so that executions may keep pointers to them.
  std::deque<TensorBinding> bindings;
  std::vector<int> memory;  // backend whose memory holds each binding (-1: constant)
  std::vector<int> source;  // graph tensor each binding holds
  std::vector<int> writer;  // task that writes each binding (-1: none)
  // Bindings that live inside another's bytes (an elided concatenation's
  // inputs, an elided reshape's output): the binding holding them (-1: none)
  // and the byte offset there. Set by the memory planner at every plan.
  std::vector<int> alias_of;
  std::vector<size_t> alias_offset;
  std::map<std::pair<int, int>, int> copies;  // (tensor, memory space) -> binding
  std::vector<Task> tasks;  // in a valid sequential order
  std::vector<int> node_task;     // task of each graph node
  std::vector<int> host_outputs;  // binding of each graph output in host memory
  std::vector<std::vector<int>> stream_tasks;  // [0]: the calling thread's
  std::vector<std::pair<int, int>> stream_lane;  // (backend, lane) each stream > 0 runs
  size_t arena_bytes = 0;
  // The dynamic region's shared state (shape table, memory it holds), when
  // the graph has one.
  std::unique_ptr<DynamicRegion> dynamic_region;

  // Memory space of a backend: 0 for host memory, else its own.
  int SpaceOf(int backend) const { return backends[backend].backend->host_memory() ? 0 : backend; }
};

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_EXECUTION_PLAN_H_
