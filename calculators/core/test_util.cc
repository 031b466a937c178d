#include "calculators/core/test_util.h"

#include <algorithm>
#include <mutex>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "framework/calculator_contract.h"
#include "framework/calculator_registry.h"
#include "framework/graph.h"
#include "framework/status_util.h"
#include "framework/tool/config_loader.h"

namespace rill {
namespace {

absl::Status ParseText(const std::string& text,
                       google::protobuf::Message* out) {
  return ParseTextProto(text, "<test config>", out);
}

}  // namespace

absl::StatusOr<CalculatorGraphConfig> ParseGraphConfig(
    const std::string& text) {
  CalculatorGraphConfig config;
  RILL_RETURN_IF_ERROR(ParseText(text, &config));
  return config;
}

absl::Status CheckContract(const std::string& node_text) {
  CalculatorGraphConfig::Node node;
  RILL_RETURN_IF_ERROR(ParseText(node_text, &node));
  const std::string name =
      node.name().empty() ? node.calculator() : node.name();
  RILL_ASSIGN_OR_RETURN(CalculatorEntry entry,
                        CalculatorRegistry().Lookup(node.calculator()));
  CalculatorContract contract;
  RILL_RETURN_IF_ERROR(contract.Initialize(node, name));
  return entry.get_contract(&contract);
}

absl::StatusOr<StreamPackets> RunGraph(
    const std::string& config_text, const std::vector<std::string>& observed,
    const StreamPackets& inputs,
    const std::map<std::string, Packet>& side_packets,
    bool settle_each_packet) {
  RILL_ASSIGN_OR_RETURN(CalculatorGraphConfig config,
                        ParseGraphConfig(config_text));
  CalculatorGraph graph;
  RILL_RETURN_IF_ERROR(graph.Initialize(config));
  std::mutex mu;
  StreamPackets result;
  for (const std::string& stream : observed) {
    result[stream];  // present even when nothing arrives
    RILL_RETURN_IF_ERROR(graph.ObserveOutputStream(
        stream, [&mu, &result, stream](const Packet& p) {
          std::lock_guard<std::mutex> lock(mu);
          result[stream].push_back(p);
          return absl::OkStatus();
        }));
  }
  RILL_RETURN_IF_ERROR(graph.StartRun(side_packets));

  // Feed every stream's packets in one timestamp order, as a live source
  // would.
  std::vector<std::tuple<Timestamp, std::string, const Packet*>> order;
  for (const auto& [stream, packets] : inputs) {
    for (const Packet& p : packets) order.emplace_back(p.Timestamp(), stream, &p);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) {
                     return std::get<0>(a) < std::get<0>(b);
                   });
  absl::Status feed = absl::OkStatus();
  for (const auto& [ts, stream, packet] : order) {
    feed = graph.AddPacketToInputStream(stream, *packet);
    if (feed.ok() && settle_each_packet) feed = graph.WaitUntilIdle();
    if (!feed.ok()) break;
  }
  absl::Status close = graph.CloseAllInputStreams();
  absl::Status done = graph.WaitUntilDone();
  // The run's own error explains a failed AddPacketToInputStream best.
  RILL_RETURN_IF_ERROR(done);
  RILL_RETURN_IF_ERROR(feed);
  RILL_RETURN_IF_ERROR(close);
  std::lock_guard<std::mutex> lock(mu);
  return result;
}

std::vector<int64_t> PacketTimestamps(const std::vector<Packet>& packets) {
  std::vector<int64_t> out;
  for (const Packet& p : packets) out.push_back(p.Timestamp().Value());
  return out;
}

}  // namespace rill
