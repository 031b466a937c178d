#include "framework/calculator_contract.h"

#include "absl/strings/str_cat.h"

namespace rill {
namespace {

absl::Status MakeSet(const google::protobuf::RepeatedPtrField<std::string>& ports,
                     const char* field, const std::string& node_name,
                     std::unique_ptr<PacketTypeSet>* out) {
  auto map = TagMap::Create(ports);
  if (!map.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node \"", node_name, "\": ", field, " ", map.status().message()));
  }
  *out = std::make_unique<PacketTypeSet>(*map);
  return absl::OkStatus();
}

}  // namespace

absl::Status CalculatorContract::Initialize(
    const CalculatorGraphConfig::Node& node, const std::string& node_name) {
  node_ = &node;
  node_name_ = node_name;
  options_ = std::make_unique<NodeOptions>(&node);
  absl::Status s = MakeSet(node.input_stream(), "input_stream", node_name,
                           &inputs_);
  if (s.ok()) {
    s = MakeSet(node.output_stream(), "output_stream", node_name, &outputs_);
  }
  if (s.ok()) {
    s = MakeSet(node.input_side_packet(), "input_side_packet", node_name,
                &input_side_packets_);
  }
  if (s.ok()) {
    s = MakeSet(node.output_side_packet(), "output_side_packet", node_name,
                &output_side_packets_);
  }
  return s;
}

}  // namespace rill
