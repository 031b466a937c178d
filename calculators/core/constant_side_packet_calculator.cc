// ConstantSidePacketCalculator turns values written in the graph config into
// output side packets, one per PACKET:i, typed by the value field that is set.
//
//   node {
//     calculator: "ConstantSidePacketCalculator"
//     output_side_packet: "PACKET:0:threshold"
//     output_side_packet: "PACKET:1:label"
//     options { [rill.ConstantSidePacketCalculatorOptions.ext] {
//       packet { float_value: 0.5 }
//       packet { string_value: "face" } } }
//   }
//
// Types: int_value int, uint64_value uint64_t, int64_value int64_t,
// float_value float, double_value double, bool_value bool, string_value
// std::string.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/core/constant_side_packet_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {
namespace {

constexpr char kPacketTag[] = "PACKET";

using ConstantPacket = ConstantSidePacketCalculatorOptions::ConstantSidePacket;

class ConstantSidePacketCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string& node = cc->GetNodeName();
    const auto& options = cc->Options<ConstantSidePacketCalculatorOptions>();
    const int n = cc->OutputSidePackets().NumEntries(kPacketTag);
    if (cc->OutputSidePackets().NumEntries() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ConstantSidePacketCalculator node \"", node,
          "\": every output side packet must be tagged PACKET (PACKET:i:name)"));
    }
    if (n != options.packet_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ConstantSidePacketCalculator node \"", node, "\" has ", n,
          " PACKET output side packets but its "
          "ConstantSidePacketCalculatorOptions give ",
          options.packet_size(), " packet values; they must match"));
    }
    for (int i = 0; i < n; ++i) {
      PacketType& port = cc->OutputSidePackets().Get(kPacketTag, i);
      const ConstantPacket& value = options.packet(i);
      switch (value.value_case()) {
        case ConstantPacket::kIntValue:
          port.Set<int>();
          break;
        case ConstantPacket::kUint64Value:
          port.Set<uint64_t>();
          break;
        case ConstantPacket::kInt64Value:
          port.Set<int64_t>();
          break;
        case ConstantPacket::kFloatValue:
          port.Set<float>();
          break;
        case ConstantPacket::kDoubleValue:
          port.Set<double>();
          break;
        case ConstantPacket::kBoolValue:
          port.Set<bool>();
          break;
        case ConstantPacket::kStringValue:
          port.Set<std::string>();
          break;
        case ConstantPacket::VALUE_NOT_SET:
          return absl::InvalidArgumentError(absl::StrCat(
              "ConstantSidePacketCalculator node \"", node,
              "\": ConstantSidePacketCalculatorOptions.packet[", i,
              "] has no value set"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<ConstantSidePacketCalculatorOptions>();
    for (int i = 0; i < options.packet_size(); ++i) {
      OutputSidePacket& out = cc->OutputSidePackets().Get(kPacketTag, i);
      const ConstantPacket& value = options.packet(i);
      switch (value.value_case()) {
        case ConstantPacket::kIntValue:
          out.Set(MakePacket<int>(value.int_value()));
          break;
        case ConstantPacket::kUint64Value:
          out.Set(MakePacket<uint64_t>(value.uint64_value()));
          break;
        case ConstantPacket::kInt64Value:
          out.Set(MakePacket<int64_t>(value.int64_value()));
          break;
        case ConstantPacket::kFloatValue:
          out.Set(MakePacket<float>(value.float_value()));
          break;
        case ConstantPacket::kDoubleValue:
          out.Set(MakePacket<double>(value.double_value()));
          break;
        case ConstantPacket::kBoolValue:
          out.Set(MakePacket<bool>(value.bool_value()));
          break;
        case ConstantPacket::kStringValue:
          out.Set(MakePacket<std::string>(value.string_value()));
          break;
        case ConstantPacket::VALUE_NOT_SET:
          return absl::InvalidArgumentError(absl::StrCat(
              "ConstantSidePacketCalculator node \"", cc->NodeName(),
              "\": packet[", i, "] has no value set"));
      }
    }
    return absl::OkStatus();
  }

  // No input streams makes this a source; it has nothing to emit.
  absl::Status Process(CalculatorContext* cc) override { return StatusStop(); }
};

}  // namespace

REGISTER_CALCULATOR(ConstantSidePacketCalculator);

}  // namespace rill
