// SyncSetInputStreamHandler: inputs are split into sets; each set is
// synchronised like the default handler, independently of the other sets.
// Inputs not named in any set form one more set.
#include <set>

#include "absl/strings/str_cat.h"
#include "framework/input_stream_handler.h"
#include "framework/proto/stream_handler_options.pb.h"

namespace rill {

class SyncSetInputStreamHandler : public InputStreamHandler {
 public:
  absl::Status Initialize(const TagMap& inputs, const MediaPipeOptions& options,
                          bool process_bounds) override {
    process_bounds_ = process_bounds;
    const auto& opts =
        options.GetExtension(SyncSetInputStreamHandlerOptions::ext);
    std::set<int> used;
    for (const auto& set : opts.sync_set()) {
      std::vector<int> ids;
      for (const std::string& tag_index : set.tag_index()) {
        std::string tag;
        int index = 0;
        absl::Status s = ParseTagIndex(tag_index, &tag, &index);
        if (!s.ok()) return s;
        const int id = inputs.GetId(tag, index);
        if (id < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "SyncSetInputStreamHandler: sync_set names \"", tag_index,
              "\", which is not an input of the node"));
        }
        if (!used.insert(id).second) {
          return absl::InvalidArgumentError(absl::StrCat(
              "SyncSetInputStreamHandler: \"", tag_index,
              "\" is in more than one sync_set"));
        }
        ids.push_back(id);
      }
      sets_.push_back(ids);
    }
    std::vector<int> rest;
    for (int id = 0; id < inputs.NumEntries(); ++id) {
      if (!used.count(id)) rest.push_back(id);
    }
    if (!rest.empty()) sets_.push_back(rest);
    return absl::OkStatus();
  }

  State Fill(std::vector<InputQueue>& queues, Timestamp last,
             std::vector<Packet>* out, Timestamp* ts) override {
    // Among the sets that are ready, run the one with the smallest timestamp.
    int best = -1;
    Timestamp best_ts = Timestamp::Done();
    bool all_done = true;
    for (size_t i = 0; i < sets_.size(); ++i) {
      if (!AllDone(queues, sets_[i])) all_done = false;
      Timestamp t;
      if (Ready(queues, sets_[i], &t) && t < best_ts) {
        best = static_cast<int>(i);
        best_ts = t;
      }
    }
    if (best >= 0) return SyncFill(queues, sets_[best], last, out, ts);
    return all_done ? State::kReadyForClose : State::kNotReady;
  }

 private:
  static bool Ready(const std::vector<InputQueue>& queues,
                    const std::vector<int>& ids, Timestamp* t) {
    Timestamp min_packet = Timestamp::Done();
    Timestamp min_empty = Timestamp::Done();
    for (int id : ids) {
      if (!queues[id].packets.empty()) {
        min_packet = std::min(min_packet, queues[id].packets.front().Timestamp());
      } else {
        min_empty = std::min(min_empty, queues[id].bound);
      }
    }
    *t = min_packet;
    return min_packet < Timestamp::Done() && min_packet < min_empty;
  }

  std::vector<std::vector<int>> sets_;
};
REGISTER_INPUT_STREAM_HANDLER(SyncSetInputStreamHandler);

}  // namespace rill
