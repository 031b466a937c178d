// FixedSizeInputStreamHandler: the default policy, but when any input queue
// reaches trigger_queue_size the oldest timestamps are dropped (from every
// input alike) until that queue holds target_queue_size packets. Keeps a
// slow node working on recent data instead of an ever-growing backlog.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "framework/input_stream_handler.h"
#include "framework/proto/stream_handler_options.pb.h"

namespace rill {

class FixedSizeInputStreamHandler : public InputStreamHandler {
 public:
  absl::Status Initialize(const TagMap& inputs, const MediaPipeOptions& options,
                          bool process_bounds) override {
    process_bounds_ = process_bounds;
    const auto& opts =
        options.GetExtension(FixedSizeInputStreamHandlerOptions::ext);
    trigger_ = opts.trigger_queue_size();
    target_ = opts.target_queue_size();
    fixed_min_ = opts.fixed_min_size();
    if (target_ < 1 || trigger_ < target_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FixedSizeInputStreamHandler: need 1 <= target_queue_size (",
          target_, ") <= trigger_queue_size (", trigger_, ")"));
    }
    ids_.resize(inputs.NumEntries());
    std::iota(ids_.begin(), ids_.end(), 0);
    return absl::OkStatus();
  }

  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    Timestamp cutoff = Timestamp::Unset();
    for (const InputQueue& q : queues) {
      const int size = static_cast<int>(q.packets.size());
      if (size >= trigger_) {
        const int keep = fixed_min_ ? trigger_ : target_;
        const Timestamp t = q.packets[size - keep].Timestamp();
        if (t > cutoff) cutoff = t;
      }
    }
    if (cutoff != Timestamp::Unset()) {
      for (InputQueue& q : queues) {
        while (!q.packets.empty() && q.packets.front().Timestamp() < cutoff) {
          q.packets.pop_front();
        }
      }
    }
    return SyncFill(queues, ids_, last, out, ts);
  }

 private:
  int trigger_ = 2;
  int target_ = 1;
  bool fixed_min_ = false;
  std::vector<int> ids_;
};
REGISTER_INPUT_STREAM_HANDLER(FixedSizeInputStreamHandler);

}  // namespace rill
