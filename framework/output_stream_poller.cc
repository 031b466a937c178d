// OutputStreamPoller: the application-thread end of a PollerQueue; the graph's
// output sink (graph_output.cc) fills the other end.
#include "framework/output_stream_poller.h"

#include <chrono>
#include <mutex>

#include "framework/graph_output.h"

namespace rill {

bool OutputStreamPoller::Next(Packet* packet) {
  return NextWithTimeout(packet, -1);
}

bool OutputStreamPoller::NextWithTimeout(Packet* packet, int64_t timeout_us) {
  if (!queue_) return false;
  std::unique_lock<std::mutex> lock(queue_->mu);
  auto ready = [&] { return !queue_->packets.empty() || queue_->done; };
  if (timeout_us < 0) {
    queue_->cv.wait(lock, ready);
  } else if (!queue_->cv.wait_for(lock, std::chrono::microseconds(timeout_us),
                                  ready)) {
    return false;
  }
  if (queue_->packets.empty()) return false;
  *packet = std::move(queue_->packets.front());
  queue_->packets.pop_front();
  return true;
}

int OutputStreamPoller::QueueSize() const {
  if (!queue_) return 0;
  std::lock_guard<std::mutex> lock(queue_->mu);
  return static_cast<int>(queue_->packets.size());
}

void OutputStreamPoller::SetMaxQueueSize(int max_queue_size) {
  if (!queue_) return;
  std::lock_guard<std::mutex> lock(queue_->mu);
  queue_->max_size = max_queue_size;
}

void OutputStreamPoller::Reset() {
  if (!queue_) return;
  std::lock_guard<std::mutex> lock(queue_->mu);
  queue_->packets.clear();
  queue_->done = false;
}

}  // namespace rill
