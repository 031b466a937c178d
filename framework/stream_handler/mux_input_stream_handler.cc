// MuxInputStreamHandler: a SELECT input (int) picks, per timestamp, which of
// the INPUT:i streams passes through. Runs at t once SELECT has a packet at t
// and the selected input is settled at t; packets of unselected inputs at or
// below t are dropped.
#include "absl/strings/str_cat.h"
#include "framework/input_stream_handler.h"

namespace rill {

class MuxInputStreamHandler : public InputStreamHandler {
 public:
  absl::Status Initialize(const TagMap& inputs, const MediaPipeOptions& options,
                          bool process_bounds) override {
    select_id_ = inputs.GetId("SELECT", 0);
    first_input_ = inputs.BeginId("INPUT");
    num_inputs_ = inputs.NumEntries("INPUT");
    if (select_id_ < 0 || first_input_ < 0) {
      return absl::InvalidArgumentError(
          "MuxInputStreamHandler needs a SELECT input and INPUT:i inputs");
    }
    return absl::OkStatus();
  }

  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    InputQueue& select = queues[select_id_];
    if (select.packets.empty()) {
      return select.IsDone() ? State::kReadyForClose : State::kNotReady;
    }
    const Timestamp t = select.packets.front().Timestamp();
    const Packet& sel = select.packets.front();
    int chosen = -1;
    if (sel.Holds<int>()) chosen = sel.Get<int>();
    if (chosen >= 0 && chosen < num_inputs_) {
      InputQueue& q = queues[first_input_ + chosen];
      while (!q.packets.empty() && q.packets.front().Timestamp() < t) {
        q.packets.pop_front();  // Stale: earlier selections are done.
      }
      if (q.packets.empty() && q.bound <= t) return State::kNotReady;
      if (!q.packets.empty() && q.packets.front().Timestamp() == t) {
        (*out)[first_input_ + chosen] = std::move(q.packets.front());
        q.packets.pop_front();
      }
    }
    for (int i = 0; i < num_inputs_; ++i) {
      if (i == chosen) continue;
      InputQueue& q = queues[first_input_ + i];
      while (!q.packets.empty() && q.packets.front().Timestamp() <= t) {
        q.packets.pop_front();
      }
    }
    (*out)[select_id_] = std::move(select.packets.front());
    select.packets.pop_front();
    *ts = t;
    return State::kReadyForProcess;
  }

 private:
  int select_id_ = -1;
  int first_input_ = -1;
  int num_inputs_ = 0;
};
REGISTER_INPUT_STREAM_HANDLER(MuxInputStreamHandler);

}  // namespace rill
