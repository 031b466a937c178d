// A graph config after subgraph expansion and validation: every node's
// calculator found and its contract checked against the config, every stream
// with exactly one producer and consistent types, cycles only through back
// edges, executors and stream handlers known. Building one reports every
// problem at once, each naming the node and the stream or field.
#ifndef RILL_FRAMEWORK_VALIDATED_GRAPH_H_
#define RILL_FRAMEWORK_VALIDATED_GRAPH_H_

#include <map>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "absl/status/statusor.h"
#include "framework/calculator_contract.h"
#include "framework/calculator_registry.h"
#include "framework/proto/calculator.pb.h"

namespace rill {

// OK, or an error naming every calculator, subgraph, input stream handler or
// executor type registered from two places (framework/registry.h). Checked
// before every graph is built and by `rill` after loading plugins.
absl::Status CheckRegistrations();


struct NodeSpec {
  int id = 0;
  std::string name;
  CalculatorEntry entry;
  std::unique_ptr<CalculatorContract> contract;
  std::vector<int> input_streams;                // per input id: stream index
  std::vector<int> output_streams;               // per output id: stream index
  std::vector<bool> back_edge;                   // per input id
  std::vector<std::string> input_side_packets;   // per id: side packet name
  std::vector<std::string> output_side_packets;  // per id: side packet name
  std::string handler;
  MediaPipeOptions handler_options;
  std::string executor;
  int max_in_flight = 1;
  // Larger for nodes closer to the sinks: ready nodes with a larger
  // priority run first, which drains the graph before admitting more input.
  int priority = 0;
  bool IsSource() const { return input_streams.empty(); }
};

struct StreamSpec {
  std::string name;
  int producer = -1;  // node id; -1 for a graph input stream
  int producer_output = -1;
  std::vector<std::pair<int, int>> consumers;  // (node id, input id)
  const std::type_info* type = nullptr;        // nullptr: any
};

// Bounds on what a graph config may ask of the machine.
inline constexpr int kMaxGraphThreads = 1024;
inline constexpr int kMaxInFlight = 1024;

class ValidatedGraph {
 public:
  // Takes the config as written (subgraphs are expanded here).
  static absl::StatusOr<std::unique_ptr<ValidatedGraph>> Create(
      CalculatorGraphConfig config);

  const CalculatorGraphConfig& Config() const { return config_; }
  // What is legal but probably a mistake (options a calculator does not
  // read), one line each naming the node.
  const std::vector<std::string>& Warnings() const { return warnings_; }
  std::vector<NodeSpec>& Nodes() { return nodes_; }
  const std::vector<NodeSpec>& Nodes() const { return nodes_; }
  const std::vector<StreamSpec>& Streams() const { return streams_; }
  // -1 when no such stream.
  int StreamIndex(const std::string& name) const;
  const std::vector<int>& GraphInputStreams() const { return graph_inputs_; }
  // Side packet name -> producing node id (-1: none, given at StartRun).
  const std::map<std::string, int>& SidePacketProducers() const {
    return side_producers_;
  }
  // Side packet name -> declared type (from consumers), nullptr: any.
  const std::map<std::string, const PacketType*>& SidePacketTypes() const {
    return side_types_;
  }

 private:
  struct BuildState;  // what Build's passes hand on to one another

  // Runs the passes below, in order.
  absl::Status Build();

  // Build's passes.
  // Folds external_input into input_side_packet; names unnamed nodes.
  void CanonicalizeNodes(BuildState* state);
  // Checks the executor list; records the declared names.
  void CheckExecutors(BuildState* state);
  // Registers the graph's input streams; parses its other port lists.
  void AddGraphPorts(BuildState* state);
  // Per node: calculator, contract, settings, outputs (steps below).
  void ParseNodes(BuildState* state);
  // Connects parsed nodes' input streams and side packets to producers.
  void ConnectInputs(BuildState* state);
  // Every graph output_stream must have a producer.
  void CheckGraphOutputs(BuildState* state);
  // Gives node-produced streams concrete types through "same as" ports.
  void ResolveStreamTypes();
  // Each stream consumer's expected type against the stream's type.
  void CheckStreamTypes(BuildState* state);
  // Each produced side packet's type against what consumers expect.
  void CheckSidePacketTypes(BuildState* state);
  // Rejects cycles without a back edge; sets node priorities.
  absl::Status ComputeTopologicalOrder();

  // Records options blocks the node's contract did not ask for.
  void WarnAboutUnreadOptions(const NodeSpec& spec);

  // ParseNodes' steps for one node; false: the node is not checked further.
  // Finds the calculator and fills its contract from the node config.
  bool LoadContract(NodeSpec* spec, BuildState* state);
  // Contract ports against connected ports, both ways.
  bool CheckContractPorts(const NodeSpec& spec, BuildState* state);
  // Back edges, input stream handler, executor, max_in_flight.
  void ConfigureNode(NodeSpec* spec, BuildState* state);
  // Registers the node's output streams and output side packets.
  void AddNodeOutputs(NodeSpec* spec, BuildState* state);

  // Helpers shared by the passes.
  bool AddStream(const std::string& name, int producer, int output,
                 BuildState* state);
  const std::type_info* ResolveType(const NodeSpec& n,
                                    const PacketType* t) const;
  std::string DescribeCycle(const std::vector<int>& indegree) const;

  CalculatorGraphConfig config_;
  std::vector<NodeSpec> nodes_;
  std::vector<std::string> warnings_;
  std::vector<StreamSpec> streams_;
  std::map<std::string, int> stream_index_;
  std::vector<int> graph_inputs_;
  std::map<std::string, int> side_producers_;
  std::map<std::string, const PacketType*> side_types_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_VALIDATED_GRAPH_H_
