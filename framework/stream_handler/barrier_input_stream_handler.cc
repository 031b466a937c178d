// BarrierInputStreamHandler: runs once every input has a packet, whatever
// their timestamps, and delivers the oldest packet of each. The invocation's
// timestamp is the newest of them.
#include "framework/input_stream_handler.h"

namespace rill {

class BarrierInputStreamHandler : public InputStreamHandler {
 public:
  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    bool all_have = !queues.empty();
    bool any_done = false;
    for (const InputQueue& q : queues) {
      if (q.packets.empty()) all_have = false;
      if (q.IsDone()) any_done = true;
    }
    if (all_have) {
      Timestamp newest = Timestamp::Unset();
      for (size_t i = 0; i < queues.size(); ++i) {
        newest = std::max(newest, queues[i].packets.front().Timestamp());
        (*out)[i] = std::move(queues[i].packets.front());
        queues[i].packets.pop_front();
      }
      *ts = std::max(newest, last.IsRangeValue() ? last + 1 : newest);
      return State::kReadyForProcess;
    }
    // A done input can never complete another barrier.
    return any_done ? State::kReadyForClose : State::kNotReady;
  }
};
REGISTER_INPUT_STREAM_HANDLER(BarrierInputStreamHandler);

}  // namespace rill
