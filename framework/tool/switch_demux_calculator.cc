// SwitchDemuxCalculator: sends each input packet to the channel selected at
// its timestamp, as MediaPipe's calculator of that name (SwitchContainer's
// front half):
//
//   node {
//     calculator: "SwitchDemuxCalculator"
//     input_stream: "SELECT:select"          # optional, int per timestamp
//     input_stream: "IMAGE:frames"
//     output_stream: "C0__IMAGE:frames_0"
//     output_stream: "C1__IMAGE:frames_1"
//     input_side_packet: "SIZE:size"
//     output_side_packet: "C0__SIZE:size_0"
//     output_side_packet: "C1__SIZE:size_1"
//   }
//
// The channel comes from the SwitchContainerOptions (select, or enable:
// true is 1), overridden by a SELECT/ENABLE side packet, then by each
// SELECT/ENABLE stream packet from its timestamp on. Input side packets go
// to every channel (each contained node opens). The inputs are synchronized
// (the DefaultInputStreamHandler), so a packet waits until the selection at
// its timestamp is known, and every channel's outputs advance with each
// timestamp processed (offset 0). Without a SELECT/ENABLE stream the
// channel is fixed for the run and the other channels' streams are closed
// in Open (their nodes close; the mux need not wait for them);
// SwitchContainer then gives each input stream a demux of its own so that
// each stream's bounds pass on by themselves.
#include <set>
#include <string>

#include "framework/calculator_base.h"
#include "framework/calculator_registry.h"
#include "framework/proto/switch_container.pb.h"
#include "framework/status_util.h"
#include "framework/tool/container_util.h"

namespace rill {

class SwitchDemuxCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<SwitchContainerOptions>();
    tool::DeclareSelection(cc);
    tool::ShareTypeAcrossChannels(&cc->Inputs(), &cc->Outputs());
    tool::ShareTypeAcrossChannels(&cc->InputSidePackets(), &cc->OutputSidePackets());
    // Invocations come in timestamp order, so every channel's outputs may
    // advance with each one, and with the inputs' bounds while idle.
    cc->SetInputStreamHandler("DefaultInputStreamHandler");
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const TagMap& outputs = *cc->Outputs().GetTagMap();
    const TagMap& side_outputs = *cc->OutputSidePackets().GetTagMap();
    num_channels_ =
        std::max(tool::ChannelCount(outputs), tool::ChannelCount(side_outputs));
    tags_ = tool::ChannelTags(outputs);
    absl::StatusOr<int> channel = tool::GetChannelIndex(*cc, 0, num_channels_);
    if (!channel.ok()) return channel.status();
    channel_ = *channel;
    for (const std::string& tag : tool::ChannelTags(side_outputs)) {
      for (int i = 0; i < cc->InputSidePackets().NumEntries(tag); ++i) {
        const Packet& p = cc->InputSidePackets().Get(tag, i);
        for (int c = 0; c < num_channels_; ++c) {
          const std::string out = tool::ChannelTag(tag, c);
          if (cc->OutputSidePackets().GetId(out, i) >= 0) {
            cc->OutputSidePackets().Get(out, i).Set(p);
          }
        }
      }
    }
    // Without a SELECT/ENABLE stream the channel is fixed for the run: the
    // others' streams close now, so their nodes close and the mux does not
    // wait on them.
    if (!cc->Inputs().HasTag("SELECT") && !cc->Inputs().HasTag("ENABLE")) {
      for (const std::string& tag : tags_) {
        for (int c = 0; c < num_channels_; ++c) {
          if (c == channel_) continue;
          const std::string out = tool::ChannelTag(tag, c);
          for (int i = 0; i < cc->Outputs().NumEntries(out); ++i) {
            cc->Outputs().Get(out, i).Close();
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().NumEntries() == 0) return StatusStop();
    absl::StatusOr<int> channel =
        tool::GetChannelIndex(*cc, channel_, num_channels_);
    if (!channel.ok()) return channel.status();
    channel_ = *channel;
    for (const std::string& tag : tags_) {
      const std::string out = tool::ChannelTag(tag, channel_);
      for (int i = 0; i < cc->Inputs().NumEntries(tag); ++i) {
        const InputStreamShard& in = cc->Inputs().Get(tag, i);
        if (in.IsEmpty() || cc->Outputs().GetId(out, i) < 0) continue;
        cc->Outputs().Get(out, i).AddPacket(in.Value());
      }
    }
    return absl::OkStatus();
  }

 private:
  int num_channels_ = 0;
  int channel_ = 0;
  std::set<std::string> tags_;
};
REGISTER_CALCULATOR(SwitchDemuxCalculator);

}  // namespace rill
