// Plans one arena for all activations from their lifetimes: two buffers may
// share bytes only if their lifetimes (first and last step that touches them)
// do not overlap. Greedy by size, largest first, each at the lowest aligned
// offset that fits between the buffers already placed that it overlaps.
#ifndef RILL_INFERENCE_RUNTIME_ARENA_PLANNER_H_
#define RILL_INFERENCE_RUNTIME_ARENA_PLANNER_H_

#include <cstddef>
#include <vector>

namespace rill::inference {

struct BufferRequest {
  size_t bytes = 0;
  int first_step = 0;  // inclusive
  int last_step = 0;   // inclusive
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per request
  size_t total_bytes = 0;
};

ArenaPlan PlanArena(const std::vector<BufferRequest>& requests, size_t alignment = 64);

}  // namespace rill::inference

#endif  // RILL_INFERENCE_RUNTIME_ARENA_PLANNER_H_
