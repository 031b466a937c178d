// Helpers for calculator tests: parse a graph config written in text (with
// MediaPipe's `mediapipe.` option names or Rill's `rill.` ones), run it on
// given input packets, and get back the packets of the streams a test looks
// at.
//
//   auto out = RunGraph(R"pb(
//       input_stream: "in"
//       node { calculator: "PassThroughCalculator"
//              input_stream: "in" output_stream: "out" })pb",
//       {"out"}, {{"in", {MakePacket<int>(1).At(Timestamp(10))}}});
//   ASSERT_TRUE(out.ok()) << out.status();
//   EXPECT_THAT(PacketValues<int>((*out)["out"]), ElementsAre(1));
#ifndef RILL_CALCULATORS_CORE_TEST_UTIL_H_
#define RILL_CALCULATORS_CORE_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/packet.h"
#include "framework/proto/calculator.pb.h"

namespace rill {

using StreamPackets = std::map<std::string, std::vector<Packet>>;

// Parses a CalculatorGraphConfig from text format. `[mediapipe.X.ext]` and
// `[type.googleapis.com/mediapipe.X]` resolve to Rill's `rill.X`.
absl::StatusOr<CalculatorGraphConfig> ParseGraphConfig(
    const std::string& text);

// Initializes a graph from `config_text`, observes every stream named in
// `observed`, starts it with `side_packets`, adds the packets of `inputs`
// (all streams merged in timestamp order), closes the inputs and waits until
// the run is done. Returns the packets seen on each observed stream, or the
// first error of initialization or of the run.
// With `settle_each_packet` it waits until the graph is idle after each
// packet, which makes runs of nodes under the ImmediateInputStreamHandler
// (whose order across streams is otherwise up to the scheduler)
// deterministic.
absl::StatusOr<StreamPackets> RunGraph(
    const std::string& config_text, const std::vector<std::string>& observed,
    const StreamPackets& inputs = {},
    const std::map<std::string, Packet>& side_packets = {},
    bool settle_each_packet = false);

// Parses one node (CalculatorGraphConfig.Node text) and runs its registered
// calculator's GetContract, as the graph builder does; returns its status.
// Checks contract errors without building a whole graph.
absl::Status CheckContract(const std::string& node_text);

// The payloads of `packets` as T (aborts on another type).
template <typename T>
std::vector<T> PacketValues(const std::vector<Packet>& packets) {
  std::vector<T> values;
  for (const Packet& p : packets) values.push_back(p.Get<T>());
  return values;
}

// The timestamps of `packets`, as integers.
std::vector<int64_t> PacketTimestamps(const std::vector<Packet>& packets);

// Packets holding `values` at timestamps `timestamps` (same length).
template <typename T>
std::vector<Packet> MakePackets(const std::vector<T>& values,
                                const std::vector<int64_t>& timestamps) {
  std::vector<Packet> packets;
  for (size_t i = 0; i < values.size() && i < timestamps.size(); ++i) {
    packets.push_back(MakePacket<T>(values[i]).At(Timestamp(timestamps[i])));
  }
  return packets;
}

}  // namespace rill

#endif  // RILL_CALCULATORS_CORE_TEST_UTIL_H_
