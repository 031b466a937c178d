// OutputStreamPoller: the application's pull-side handle on one graph output
// stream. It is its own header so that graph.h stays about the graph; users
// keep including framework/graph.h, which includes this.
#ifndef RILL_FRAMEWORK_OUTPUT_STREAM_POLLER_H_
#define RILL_FRAMEWORK_OUTPUT_STREAM_POLLER_H_

#include <cstdint>
#include <memory>

#include "framework/packet.h"

namespace rill {

class CalculatorGraph;
struct PollerQueue;

// Pulls packets from an output stream. Next() blocks until a packet arrives,
// the stream ends (returns false), or, with observe_timestamp_bounds, the
// stream's bound moves past a timestamp with no packet: then Next() returns
// true with an empty packet whose Timestamp() is the last settled timestamp,
// so a caller waiting for "the result at t" learns there is none.
class OutputStreamPoller {
 public:
  OutputStreamPoller() = default;
  bool Next(Packet* packet);
  // Like Next, but gives up after `timeout_us` and returns false.
  bool NextWithTimeout(Packet* packet, int64_t timeout_us);
  int QueueSize() const;
  // Drops queued packets beyond the newest `max_queue_size` (0: unbounded).
  void SetMaxQueueSize(int max_queue_size);
  void Reset();

 private:
  friend class CalculatorGraph;
  explicit OutputStreamPoller(std::shared_ptr<PollerQueue> q)
      : queue_(std::move(q)) {}
  std::shared_ptr<PollerQueue> queue_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_OUTPUT_STREAM_POLLER_H_
