#include "framework/input_stream_handler.h"

namespace rill {

Registry<InputStreamHandlerFactory>& InputStreamHandlerRegistry() {
  static auto* registry =
      new Registry<InputStreamHandlerFactory>("input stream handler");
  return *registry;
}

bool InputStreamHandler::AllDone(const std::vector<InputQueue>& queues,
                                 const std::vector<int>& ids) {
  bool any_forward = false;
  for (int id : ids) {
    if (queues[id].back_edge) continue;
    any_forward = true;
    if (!queues[id].IsDone()) return false;
  }
  if (any_forward) return true;
  // Only back edges: done when they are.
  for (int id : ids) {
    if (!queues[id].IsDone()) return false;
  }
  return true;
}

InputStreamHandler::State InputStreamHandler::SyncFill(
    std::vector<InputQueue>& queues, const std::vector<int>& ids,
    Timestamp last, std::vector<Packet>* out, Timestamp* ts) const {
  Timestamp min_packet = Timestamp::Done();
  Timestamp min_empty_bound = Timestamp::Done();
  for (int id : ids) {
    const InputQueue& q = queues[id];
    if (!q.packets.empty()) {
      min_packet = std::min(min_packet, q.packets.front().Timestamp());
    } else {
      min_empty_bound = std::min(min_empty_bound, q.bound);
    }
  }
  if (min_packet < Timestamp::Done() && min_packet < min_empty_bound) {
    *ts = min_packet;
    for (int id : ids) {
      InputQueue& q = queues[id];
      if (!q.packets.empty() && q.packets.front().Timestamp() == min_packet) {
        (*out)[id] = std::move(q.packets.front());
        q.packets.pop_front();
      }
    }
    return State::kReadyForProcess;
  }
  if (AllDone(queues, ids)) return State::kReadyForClose;
  if (process_bounds_) {
    // Report a bound change: every input is settled below `next`.
    const Timestamp next = std::min(min_packet, min_empty_bound);
    Timestamp settled = Timestamp::Unset();
    if (next == Timestamp::PostStream()) {
      settled = Timestamp::Max();
    } else if (next.IsRangeValue() && next > Timestamp::Min()) {
      settled = next - 1;
    }
    if (settled.IsRangeValue() && (!last.IsRangeValue() || settled > last)) {
      *ts = settled;
      return State::kReadyForProcess;
    }
  }
  return State::kNotReady;
}

}  // namespace rill
