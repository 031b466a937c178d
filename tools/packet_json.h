// Packets as one line of JSON, for `rill run --dump_stream=NAME`. Protos
// (detections, rects, landmarks, classifications, render data) print in
// protobuf's standard JSON form; vectors as arrays; images and tensors as a
// summary of their shape. Unknown payload types print their type name.
#ifndef RILL_TOOLS_PACKET_JSON_H_
#define RILL_TOOLS_PACKET_JSON_H_

#include <string>

#include "framework/packet.h"

namespace rill {
namespace tools {

// The payload as JSON (no timestamp).
// `s` as a JSON string literal (quotes, backslashes and control characters
// escaped).
std::string JsonQuote(const std::string& s);

std::string PayloadToJson(const Packet& packet);
// {"stream":..., "timestamp":..., "value":...} on one line.
std::string PacketToJsonLine(const std::string& stream, const Packet& packet);

}  // namespace tools
}  // namespace rill

#endif  // RILL_TOOLS_PACKET_JSON_H_
