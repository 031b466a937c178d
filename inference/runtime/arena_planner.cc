#include "inference/runtime/arena_planner.h"

#include <algorithm>
#include <numeric>

namespace rill::inference {

ArenaPlan PlanArena(const std::vector<BufferRequest>& requests, size_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(requests.size(), 0);
  auto align = [alignment](size_t v) { return (v + alignment - 1) / alignment * alignment; };
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  std::vector<size_t> placed;
  std::vector<size_t> conflicts;
  for (size_t id : order) {
    const BufferRequest& r = requests[id];
    const size_t need = align(std::max<size_t>(r.bytes, 1));
    conflicts.clear();
    for (size_t other : placed) {
      const BufferRequest& o = requests[other];
      if (o.first_step <= r.last_step && r.first_step <= o.last_step) conflicts.push_back(other);
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    size_t offset = 0;
    for (size_t other : conflicts) {
      const size_t begin = plan.offsets[other];
      const size_t end = begin + align(std::max<size_t>(requests[other].bytes, 1));
      if (offset + need <= begin) break;  // fits in the gap before `other`
      offset = std::max(offset, end);
    }
    plan.offsets[id] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + need);
    placed.push_back(id);
  }
  return plan;
}

}  // namespace rill::inference
