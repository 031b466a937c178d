// SwitchMuxCalculator: passes on, for each timestamp, the packets of the
// channel selected at that timestamp, as MediaPipe's calculator of that name
// (SwitchContainer's back half):
//
//   node {
//     calculator: "SwitchMuxCalculator"
//     input_stream: "SELECT:select"          # optional, int per timestamp
//     input_stream: "C0__IMAGE:frames_0"
//     input_stream: "C1__IMAGE:frames_1"
//     output_stream: "IMAGE:frames"
//     input_side_packet: "C0__MODEL:model_0"
//     input_side_packet: "C1__MODEL:model_1"
//     output_side_packet: "MODEL:model"
//   }
//
// The selection is made as in SwitchDemuxCalculator (options, then the
// SELECT/ENABLE side packet, then SELECT/ENABLE stream packets from their
// timestamps on). Output side packets are the selected channel's, chosen
// in Open. Stream packets are queued per channel and sent in timestamp
// order: those of a stretch of timestamps once the selection over it is
// known (the SELECT/ENABLE stream has settled) and, when the channel
// changes, once the previous channel has settled up to the change; packets
// of channels not selected at their timestamp are dropped.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/proto/switch_container.pb.h"
#include "framework/status_util.h"
#include "framework/tool/container_util.h"

namespace rill {

class SwitchMuxCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<SwitchContainerOptions>();
    tool::DeclareSelection(cc);
    tool::ShareTypeAcrossChannels(&cc->Outputs(), &cc->Inputs());
    tool::ShareTypeAcrossChannels(&cc->OutputSidePackets(), &cc->InputSidePackets());
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const TagMap& inputs = *cc->Inputs().GetTagMap();
    const TagMap& side_inputs = *cc->InputSidePackets().GetTagMap();
    num_channels_ =
        std::max(tool::ChannelCount(inputs), tool::ChannelCount(side_inputs));
    absl::StatusOr<int> channel = tool::GetChannelIndex(*cc, 0, num_channels_);
    if (!channel.ok()) return channel.status();
    history_[Timestamp::Unstarted()] = *channel;
    select_tag_ = cc->Inputs().HasTag("SELECT")   ? "SELECT"
                  : cc->Inputs().HasTag("ENABLE") ? "ENABLE"
                                                  : "";
    for (const std::string& tag : tool::ChannelTags(side_inputs)) {
      for (int i = 0; i < cc->OutputSidePackets().NumEntries(tag); ++i) {
        const std::string in = tool::ChannelTag(tag, *channel);
        if (cc->InputSidePackets().GetId(in, i) < 0) continue;
        cc->OutputSidePackets().Get(tag, i).Set(
            cc->InputSidePackets().Get(in, i));
      }
    }
    for (const std::string& tag : tool::ChannelTags(inputs)) {
      for (int i = 0; i < cc->Outputs().NumEntries(tag); ++i) {
        Output out;
        out.tag = tag;
        out.index = i;
        for (int c = 0; c < num_channels_; ++c) {
          out.channel_ids.push_back(
              cc->Inputs().GetId(tool::ChannelTag(tag, c), i));
        }
        outputs_.push_back(std::move(out));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().NumEntries() == 0) return StatusStop();
    Timestamp select_settled = Timestamp::Done();
    if (!select_tag_.empty()) {
      const InputStreamShard& select = cc->Inputs().Tag(select_tag_);
      if (!select.IsEmpty()) {
        absl::StatusOr<int> channel = tool::GetChannelIndex(
            *cc, std::prev(history_.end())->second, num_channels_);
        if (!channel.ok()) return channel.status();
        if (*channel != std::prev(history_.end())->second) {
          history_[cc->InputTimestamp()] = *channel;
        }
      }
      select_settled = select.NextTimestampBound();
    }
    for (Output& out : outputs_) {
      for (int id : out.channel_ids) {
        if (id < 0) continue;
        const InputStreamShard& in = cc->Inputs().Get(id);
        if (!in.IsEmpty()) queues_[id].push_back(in.Value());
      }
      Send(cc, select_settled, &out);
    }
    return absl::OkStatus();
  }

  absl::Status Close(CalculatorContext* cc) override {
    for (Output& out : outputs_) Send(cc, Timestamp::Done(), &out);
    return absl::OkStatus();
  }

 private:
  struct Output {
    std::string tag;
    int index = 0;
    std::vector<int> channel_ids;  // input id per channel (-1: none)
    // Every packet below this has been sent or dropped.
    Timestamp done_until = Timestamp::Unstarted();
  };

  // Sends what is settled of `out`, stretch by stretch of the selection
  // history, and advances its bound.
  void Send(CalculatorContext* cc, Timestamp select_settled, Output* out) {
    OutputStreamShard& output = cc->Outputs().Get(out->tag, out->index);
    const bool closing = cc->InputTimestamp() == Timestamp::Done();
    while (true) {
      auto it = std::prev(history_.upper_bound(out->done_until));
      const int channel = it->second;
      const Timestamp end = std::next(it) == history_.end()
                                ? Timestamp::Done()
                                : std::next(it)->first;
      const Timestamp limit = std::min(end, select_settled);
      for (int c = 0; c < static_cast<int>(out->channel_ids.size()); ++c) {
        const int id = out->channel_ids[c];
        if (id < 0) continue;
        std::deque<Packet>& q = queues_[id];
        while (!q.empty() && q.front().Timestamp() < limit) {
          if (c == channel && q.front().Timestamp() >= out->done_until) {
            output.AddPacket(q.front());
          }
          q.pop_front();
        }
      }
      // How far the selected channel's input is known.
      Timestamp settled = limit;
      const int id = channel < static_cast<int>(out->channel_ids.size())
                         ? out->channel_ids[channel]
                         : -1;
      if (id >= 0 && !closing) {
        Timestamp next = cc->Inputs().Get(id).NextTimestampBound();
        if (!queues_[id].empty()) {
          next = std::min(next, queues_[id].front().Timestamp());
        }
        settled = std::min(settled, next);
      }
      if (settled > out->done_until) out->done_until = settled;
      if (out->done_until < end || end == Timestamp::Done()) break;
    }
    if (out->done_until.IsRangeValue() ||
        out->done_until == Timestamp::Done()) {
      output.SetNextTimestampBound(out->done_until);
    }
    // Stretches every output has passed are no longer needed.
    Timestamp oldest = Timestamp::Done();
    for (const Output& o : outputs_) oldest = std::min(oldest, o.done_until);
    auto keep = std::prev(history_.upper_bound(oldest));
    history_.erase(history_.begin(), keep);
  }

  int num_channels_ = 0;
  std::string select_tag_;
  std::map<Timestamp, int> history_;
  std::vector<Output> outputs_;
  std::map<int, std::deque<Packet>> queues_;
};
REGISTER_CALCULATOR(SwitchMuxCalculator);

}  // namespace rill
