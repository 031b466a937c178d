// DefaultInputStreamHandler: runs at timestamp t once every input has either
// a packet at t or a bound past t; delivers all packets at t together.
#include <numeric>

#include "framework/input_stream_handler.h"

namespace rill {

class DefaultInputStreamHandler : public InputStreamHandler {
 public:
  absl::Status Initialize(const TagMap& inputs, const MediaPipeOptions& options,
                          bool process_bounds) override {
    process_bounds_ = process_bounds;
    ids_.resize(inputs.NumEntries());
    std::iota(ids_.begin(), ids_.end(), 0);
    return absl::OkStatus();
  }
  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    return SyncFill(queues, ids_, last, out, ts);
  }

 private:
  std::vector<int> ids_;
};
REGISTER_INPUT_STREAM_HANDLER(DefaultInputStreamHandler);

}  // namespace rill
