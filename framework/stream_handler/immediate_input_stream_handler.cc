// ImmediateInputStreamHandler: runs as soon as any input has a packet,
// without waiting for the other inputs to settle. Each invocation delivers
// the packets at the smallest queued timestamp.
#include "framework/input_stream_handler.h"

namespace rill {

class ImmediateInputStreamHandler : public InputStreamHandler {
 public:
  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    Timestamp min_packet = Timestamp::Done();
    for (const InputQueue& q : queues) {
      if (!q.packets.empty()) {
        min_packet = std::min(min_packet, q.packets.front().Timestamp());
      }
    }
    if (min_packet < Timestamp::Done()) {
      *ts = min_packet;
      for (size_t i = 0; i < queues.size(); ++i) {
        InputQueue& q = queues[i];
        if (!q.packets.empty() && q.packets.front().Timestamp() == min_packet) {
          (*out)[i] = std::move(q.packets.front());
          q.packets.pop_front();
        }
      }
      return State::kReadyForProcess;
    }
    std::vector<int> all(queues.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    if (AllDone(queues, all)) return State::kReadyForClose;
    if (process_bounds_) {
      // No packet, but the forward inputs' bounds moved: report the largest
      // timestamp every one of them has settled.
      Timestamp min_bound = Timestamp::Done();
      for (const InputQueue& q : queues) {
        if (!q.back_edge) min_bound = std::min(min_bound, q.bound);
      }
      Timestamp settled = Timestamp::Unset();
      if (min_bound == Timestamp::PostStream()) {
        settled = Timestamp::Max();
      } else if (min_bound.IsRangeValue() && min_bound > Timestamp::Min()) {
        settled = min_bound - 1;
      }
      if (settled.IsRangeValue() && (!last.IsRangeValue() || settled > last)) {
        *ts = settled;
        return State::kReadyForProcess;
      }
    }
    return State::kNotReady;
  }
};
REGISTER_INPUT_STREAM_HANDLER(ImmediateInputStreamHandler);

}  // namespace rill
