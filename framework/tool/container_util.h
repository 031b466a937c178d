// Helpers shared by SwitchContainer and its SwitchDemuxCalculator /
// SwitchMuxCalculator: a channel's ports carry the container's tags behind a
// "C<channel>__" prefix ("C1__IMAGE" is IMAGE of contained node 1), and the
// selected channel comes from the options, the SELECT/ENABLE side packets or
// the SELECT/ENABLE input stream, as in MediaPipe.
#ifndef RILL_FRAMEWORK_TOOL_CONTAINER_UTIL_H_
#define RILL_FRAMEWORK_TOOL_CONTAINER_UTIL_H_

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "framework/calculator_context.h"
#include "framework/calculator_contract.h"
#include "framework/tag_map.h"

namespace rill {
namespace tool {

// "C<channel>__<tag>".
std::string ChannelTag(absl::string_view tag, int channel);
// Splits "C<n>__<tag>"; false for a tag without a channel prefix.
bool ParseChannelTag(absl::string_view channel_tag, std::string* tag,
                     int* channel);
// The container tags found behind channel prefixes in `map`.
std::set<std::string> ChannelTags(const TagMap& map);
// One more than the largest channel number in `map` (0 when none).
int ChannelCount(const TagMap& map);

// Declares the SELECT (int) / ENABLE (bool) input streams and optional side
// packets a demux or mux may have.
void DeclareSelection(CalculatorContract* cc);

// Types one side of a demux or mux: each port of `shared` (the container's
// TAG:i, any type) and its copies in `channels` (C<n>__TAG:i, the same
// type). Demux: shared = inputs, channels = outputs; mux: the reverse.
void ShareTypeAcrossChannels(PacketTypeSet* shared, PacketTypeSet* channels);

// The channel selected in Open (the options' select/enable, overridden by a
// SELECT/ENABLE side packet) or, in Process, by a SELECT/ENABLE packet at
// this timestamp; `previous` when nothing says otherwise. A selection
// outside [0, num_channels) is an error naming its source; num_channels 0
// skips that check.
absl::StatusOr<int> GetChannelIndex(const CalculatorContext& cc, int previous,
                                    int num_channels);

}  // namespace tool
}  // namespace rill

#endif  // RILL_FRAMEWORK_TOOL_CONTAINER_UTIL_H_
