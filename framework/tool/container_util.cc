#include "framework/tool/container_util.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "framework/proto/switch_container.pb.h"

namespace rill {
namespace tool {

std::string ChannelTag(absl::string_view tag, int channel) {
  return absl::StrCat("C", channel, "__", tag);
}

bool ParseChannelTag(absl::string_view channel_tag, std::string* tag,
                     int* channel) {
  if (!absl::StartsWith(channel_tag, "C")) return false;
  const size_t sep = channel_tag.find("__");
  if (sep == absl::string_view::npos) return false;
  int n = -1;
  if (!absl::SimpleAtoi(channel_tag.substr(1, sep - 1), &n) || n < 0) {
    return false;
  }
  *tag = std::string(channel_tag.substr(sep + 2));
  *channel = n;
  return true;
}

std::set<std::string> ChannelTags(const TagMap& map) {
  std::set<std::string> tags;
  for (const std::string& t : map.Tags()) {
    std::string tag;
    int channel = 0;
    if (ParseChannelTag(t, &tag, &channel)) tags.insert(tag);
  }
  return tags;
}

int ChannelCount(const TagMap& map) {
  int count = 0;
  for (const std::string& t : map.Tags()) {
    std::string tag;
    int channel = 0;
    if (ParseChannelTag(t, &tag, &channel)) count = std::max(count, channel + 1);
  }
  return count;
}

namespace {

absl::StatusOr<int> Checked(int channel, int num_channels,
                            const std::string& source) {
  if (num_channels > 0 && (channel < 0 || channel >= num_channels)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SwitchContainer: ", source, " selects channel ", channel,
        ", but the container has ", num_channels, " contained node",
        num_channels == 1 ? "" : "s", " (channels 0..", num_channels - 1,
        ")"));
  }
  return channel;
}

}  // namespace

absl::StatusOr<int> GetChannelIndex(const CalculatorContext& cc, int previous,
                                    int num_channels) {
  int channel = previous;
  std::string source = "the previous selection";
  const Packet* enable = nullptr;
  const Packet* select = nullptr;
  if (cc.InputTimestamp() == Timestamp::Unstarted()) {
    const auto& options = cc.Options<SwitchContainerOptions>();
    if (options.has_enable()) {
      channel = options.enable() ? 1 : 0;
      source = "option enable";
    }
    if (options.has_select()) {
      channel = options.select();
      source = "option select";
    }
    if (cc.InputSidePackets().HasTag("ENABLE")) {
      enable = &cc.InputSidePackets().Tag("ENABLE");
    }
    if (cc.InputSidePackets().HasTag("SELECT")) {
      select = &cc.InputSidePackets().Tag("SELECT");
    }
    if (enable != nullptr && !enable->IsEmpty()) {
      channel = enable->Get<bool>() ? 1 : 0;
      source = "the ENABLE side packet";
    }
    if (select != nullptr && !select->IsEmpty()) {
      channel = select->Get<int>();
      source = "the SELECT side packet";
    }
  } else {
    if (cc.Inputs().HasTag("ENABLE") && !cc.Inputs().Tag("ENABLE").IsEmpty()) {
      channel = cc.Inputs().Tag("ENABLE").Get<bool>() ? 1 : 0;
      source = absl::StrCat("the ENABLE packet at ",
                            cc.InputTimestamp().DebugString());
    }
    if (cc.Inputs().HasTag("SELECT") && !cc.Inputs().Tag("SELECT").IsEmpty()) {
      channel = cc.Inputs().Tag("SELECT").Get<int>();
      source = absl::StrCat("the SELECT packet at ",
                            cc.InputTimestamp().DebugString());
    }
  }
  return Checked(channel, num_channels, source);
}

void DeclareSelection(CalculatorContract* cc) {
  if (cc->Inputs().HasTag("SELECT")) cc->Inputs().Tag("SELECT").Set<int>();
  if (cc->Inputs().HasTag("ENABLE")) cc->Inputs().Tag("ENABLE").Set<bool>();
  if (cc->InputSidePackets().HasTag("SELECT")) {
    cc->InputSidePackets().Tag("SELECT").Set<int>().Optional();
  }
  if (cc->InputSidePackets().HasTag("ENABLE")) {
    cc->InputSidePackets().Tag("ENABLE").Set<bool>().Optional();
  }
}

void ShareTypeAcrossChannels(PacketTypeSet* shared, PacketTypeSet* channels) {
  const TagMap& map = *channels->GetTagMap();
  const int count = ChannelCount(map);
  for (const std::string& tag : ChannelTags(map)) {
    for (int i = 0; i < shared->NumEntries(tag); ++i) {
      PacketType& port = shared->Get(tag, i);
      port.SetAny();
      for (int c = 0; c < count; ++c) {
        const std::string channel_tag = ChannelTag(tag, c);
        if (channels->GetId(channel_tag, i) >= 0) {
          channels->Get(channel_tag, i).SetSameAs(&port);
        }
      }
    }
  }
}

}  // namespace tool
}  // namespace rill
