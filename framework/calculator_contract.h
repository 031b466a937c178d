// What a calculator declares about itself in its static GetContract(): the
// type of every input/output stream and side packet it uses, how timestamps
// relate between inputs and outputs, and which input stream handler it wants.
// The graph builder checks the declarations against the node config and
// across every stream before anything runs.
#ifndef RILL_FRAMEWORK_CALCULATOR_CONTRACT_H_
#define RILL_FRAMEWORK_CALCULATOR_CONTRACT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "framework/options.h"
#include "framework/packet_type.h"
#include "framework/proto/calculator.pb.h"
#include "framework/timestamp.h"

namespace rill {

class CalculatorContract {
 public:
  // Builds the port collections from `node`; fails on malformed ports.
  absl::Status Initialize(const CalculatorGraphConfig::Node& node,
                          const std::string& node_name);

  PacketTypeSet& Inputs() { return *inputs_; }
  PacketTypeSet& Outputs() { return *outputs_; }
  PacketTypeSet& InputSidePackets() { return *input_side_packets_; }
  PacketTypeSet& OutputSidePackets() { return *output_side_packets_; }
  const PacketTypeSet& Inputs() const { return *inputs_; }
  const PacketTypeSet& Outputs() const { return *outputs_; }
  const PacketTypeSet& InputSidePackets() const { return *input_side_packets_; }
  const PacketTypeSet& OutputSidePackets() const {
    return *output_side_packets_;
  }

  template <typename T>
  const T& Options() const {
    return options_->Get<T>();
  }
  // Declares that the calculator reads options of type T (in Open or
  // later): `rill validate` warns about any options block on the node of a
  // type no contract asked for. Reading them here with Options<T>() declares
  // them too.
  template <typename T>
  void UseOptions() const {
    (void)options_->Get<T>();
  }
  const NodeOptions& GetNodeOptions() const { return *options_; }
  const CalculatorGraphConfig::Node& GetNodeConfig() const { return *node_; }
  const std::string& GetNodeName() const { return node_name_; }

  // Every output packet's timestamp is its input's plus `offset`, which lets
  // the framework advance downstream bounds without waiting for packets.
  void SetTimestampOffset(TimestampDiff offset) { offset_ = offset; }
  TimestampDiff GetTimestampOffset() const { return offset_; }
  // Process() is also called when input bounds advance with no packet.
  void SetProcessTimestampBounds(bool v) { process_timestamp_bounds_ = v; }
  bool GetProcessTimestampBounds() const { return process_timestamp_bounds_; }

  // Overrides the node's input stream handler unless the config names one.
  void SetInputStreamHandler(const std::string& name) { handler_ = name; }
  void SetInputStreamHandlerOptions(const MediaPipeOptions& options) {
    handler_options_ = options;
  }
  const std::string& GetInputStreamHandler() const { return handler_; }
  const MediaPipeOptions& GetInputStreamHandlerOptions() const {
    return handler_options_;
  }

  // Concurrent Process() calls the calculator tolerates (node max_in_flight
  // wins when set).
  void SetMaxInFlight(int n) { max_in_flight_ = n; }
  int GetMaxInFlight() const { return max_in_flight_; }

 private:
  const CalculatorGraphConfig::Node* node_ = nullptr;
  std::string node_name_;
  std::unique_ptr<NodeOptions> options_;
  std::unique_ptr<PacketTypeSet> inputs_, outputs_, input_side_packets_,
      output_side_packets_;
  TimestampDiff offset_ = TimestampDiff::Unset();
  bool process_timestamp_bounds_ = false;
  std::string handler_;
  MediaPipeOptions handler_options_;
  int max_in_flight_ = 1;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_CALCULATOR_CONTRACT_H_
