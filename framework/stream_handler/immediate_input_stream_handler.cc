// ImmediateInputStreamHandler: runs as soon as any input has a packet,
// without waiting for the other inputs to settle. Each invocation delivers
// the packets at the smallest queued timestamp.
//
// With SetProcessTimestampBounds, bound changes alone also cause calls: one
// when every forward input has settled past the previous call, and one when a
// back edge's bound moves (MediaPipe treats every input of this handler as a
// sync set of its own, so a loop stream that advances without a packet, "no
// result for the previous frame", wakes the node; PreviousLoopbackCalculator
// depends on it). A back-edge call's timestamp is the last one that edge has
// settled, which may be below the previous call's. Such a node also sees the
// end of its forward inputs as a call at Timestamp::Max() and stays open until
// its back edges end too, so that it can still pair what arrives on them with
// what it received before (MediaPipe's "Done-preceding" call); it must close
// the outputs that feed its back edges itself once it has nothing left to
// send, or the loop never ends.
#include "framework/input_stream_handler.h"

namespace rill {

class ImmediateInputStreamHandler : public InputStreamHandler {
 public:
  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    if (seen_back_edge_bound_.size() != queues.size()) {
      seen_back_edge_bound_.assign(queues.size(), Timestamp::PreStream());
    }
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
      NoteBackEdgeBounds(queues);
      return State::kReadyForProcess;
    }
    std::vector<int> all(queues.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    if (AllDone(queues, all)) {
      bool back_edges_done = true;
      for (const InputQueue& q : queues) {
        if (q.back_edge && !q.IsDone()) back_edges_done = false;
      }
      if (!process_bounds_ || back_edges_done) return State::kReadyForClose;
      if (!end_reported_) {
        end_reported_ = true;
        *ts = Timestamp::Max();
        NoteBackEdgeBounds(queues);
        return State::kReadyForProcess;
      }
    }
    if (process_bounds_) {
      // No packet, but the forward inputs' bounds moved: report the largest
      // timestamp every one of them has settled.
      Timestamp min_bound = Timestamp::Done();
      for (const InputQueue& q : queues) {
        if (!q.back_edge) min_bound = std::min(min_bound, q.bound);
      }
      const Timestamp settled = Settled(min_bound);
      if (settled.IsRangeValue() && (!last.IsRangeValue() || settled > last)) {
        *ts = settled;
        NoteBackEdgeBounds(queues);
        return State::kReadyForProcess;
      }
      // A back edge's bound moved since the node last saw it.
      for (size_t i = 0; i < queues.size(); ++i) {
        const InputQueue& q = queues[i];
        if (!q.back_edge || q.bound <= seen_back_edge_bound_[i]) continue;
        const Timestamp edge_settled = Settled(q.bound);
        if (!edge_settled.IsRangeValue()) continue;
        *ts = edge_settled;
        NoteBackEdgeBounds(queues);
        return State::kReadyForProcess;
      }
    }
    return State::kNotReady;
  }

 private:
  // The last timestamp a stream whose next possible packet is at `bound` has
  // settled (Unset when none is).
  static Timestamp Settled(Timestamp bound) {
    if (bound == Timestamp::PostStream()) return Timestamp::Max();
    if (bound.IsRangeValue() && bound > Timestamp::Min()) return bound - 1;
    return Timestamp::Unset();
  }

  // Each call shows the node its inputs' bounds; remember the back edges'.
  void NoteBackEdgeBounds(const std::vector<InputQueue>& queues) {
    for (size_t i = 0; i < queues.size(); ++i) {
      if (queues[i].back_edge) seen_back_edge_bound_[i] = queues[i].bound;
    }
  }

  std::vector<Timestamp> seen_back_edge_bound_;
  bool end_reported_ = false;
};
REGISTER_INPUT_STREAM_HANDLER(ImmediateInputStreamHandler);

}  // namespace rill
