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
// to every channel (each contained node opens). With a SELECT/ENABLE stream
// the inputs are synchronized (the DefaultInputStreamHandler), so a packet
// waits until the selection at its timestamp is known, and every channel's
// outputs advance to each processed timestamp (offset 0); without one,
// packets pass at once (the ImmediateInputStreamHandler) and each input's
// bound is relayed to its outputs on every channel.
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
    if (cc->Inputs().HasTag("SELECT")) cc->Inputs().Tag("SELECT").Set<int>();
    if (cc->Inputs().HasTag("ENABLE")) cc->Inputs().Tag("ENABLE").Set<bool>();
    if (cc->InputSidePackets().HasTag("SELECT")) {
      cc->InputSidePackets().Tag("SELECT").Set<int>().Optional();
    }
    if (cc->InputSidePackets().HasTag("ENABLE")) {
      cc->InputSidePackets().Tag("ENABLE").Set<bool>().Optional();
    }
    const TagMap& outputs = *cc->Outputs().GetTagMap();
    const int channels = tool::ChannelCount(outputs);
    for (const std::string& tag : tool::ChannelTags(outputs)) {
      for (int i = 0; i < cc->Inputs().NumEntries(tag); ++i) {
        PacketType& in = cc->Inputs().Get(tag, i);
        in.SetAny();
        for (int c = 0; c < channels; ++c) {
          const std::string out = tool::ChannelTag(tag, c);
          if (cc->Outputs().GetId(out, i) >= 0) {
            cc->Outputs().Get(out, i).SetSameAs(&in);
          }
        }
      }
    }
    const TagMap& side_outputs = *cc->OutputSidePackets().GetTagMap();
    const int side_channels = tool::ChannelCount(side_outputs);
    for (const std::string& tag : tool::ChannelTags(side_outputs)) {
      for (int i = 0; i < cc->InputSidePackets().NumEntries(tag); ++i) {
        PacketType& in = cc->InputSidePackets().Get(tag, i);
        in.SetAny();
        for (int c = 0; c < side_channels; ++c) {
          const std::string out = tool::ChannelTag(tag, c);
          if (cc->OutputSidePackets().GetId(out, i) >= 0) {
            cc->OutputSidePackets().Get(out, i).SetSameAs(&in);
          }
        }
      }
    }
    const bool stream_selection =
        cc->Inputs().HasTag("SELECT") || cc->Inputs().HasTag("ENABLE");
    if (stream_selection) {
      // Invocations come in timestamp order, so every channel's outputs
      // may advance with each one.
      cc->SetInputStreamHandler("DefaultInputStreamHandler");
      cc->SetTimestampOffset(TimestampDiff(0));
    } else {
      // Each input passes on its own: a later invocation may be at an
      // earlier timestamp of another input, so bounds are relayed per
      // stream rather than by an offset.
      cc->SetInputStreamHandler("ImmediateInputStreamHandler");
      cc->SetProcessTimestampBounds(true);
    }
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
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().NumEntries() == 0) return StatusStop();
    absl::StatusOr<int> channel =
        tool::GetChannelIndex(*cc, channel_, num_channels_);
    if (!channel.ok()) return channel.status();
    channel_ = *channel;
    const bool relay_bounds = !cc->Inputs().HasTag("SELECT") &&
                              !cc->Inputs().HasTag("ENABLE");
    for (const std::string& tag : tags_) {
      for (int i = 0; i < cc->Inputs().NumEntries(tag); ++i) {
        const InputStreamShard& in = cc->Inputs().Get(tag, i);
        const std::string active = tool::ChannelTag(tag, channel_);
        if (!in.IsEmpty() && cc->Outputs().GetId(active, i) >= 0) {
          cc->Outputs().Get(active, i).AddPacket(in.Value());
        }
        if (!relay_bounds) continue;
        for (int c = 0; c < num_channels_; ++c) {
          const std::string out = tool::ChannelTag(tag, c);
          if (cc->Outputs().GetId(out, i) >= 0) {
            cc->Outputs().Get(out, i).SetNextTimestampBound(
                in.NextTimestampBound());
          }
        }
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
