// Subgraphs: a node whose `calculator` names a registered subgraph is
// replaced, before validation, by the subgraph's nodes. Subgraphs come from
// C++ (REGISTER_SUBGRAPH) or from .pbtxt files whose `type:` names them
// (registered explicitly or found on the subgraph search path).
//
// Options flow as in MediaPipe: the subgraph's `graph_options` give defaults,
// the invoking node's options of the same type override them, and each inner
// node's `option_value: "NODE_FIELD:options/GRAPH_FIELD"` copies a graph
// option into that node's options ("OPTIONS:options" copies the whole
// message).
#ifndef RILL_FRAMEWORK_TOOL_SUBGRAPH_EXPANSION_H_
#define RILL_FRAMEWORK_TOOL_SUBGRAPH_EXPANSION_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/proto/calculator.pb.h"
#include "framework/registry.h"

namespace rill {

using SubgraphOptions = CalculatorGraphConfig::Node;

class Subgraph {
 public:
  virtual ~Subgraph() = default;
  virtual absl::StatusOr<CalculatorGraphConfig> GetConfig(
      const SubgraphOptions& options) = 0;
};

using SubgraphFactory = std::function<absl::StatusOr<CalculatorGraphConfig>(
    const SubgraphOptions&)>;
Registry<SubgraphFactory>& SubgraphRegistry();

template <typename T>
bool RegisterSubgraphClass(const std::string& name, const char* file = "") {
  return SubgraphRegistry().Register(
      name, [](const SubgraphOptions& options) { return T().GetConfig(options); },
      file);
}

// Registers a config under its `type:` field.
absl::Status RegisterSubgraphConfig(const CalculatorGraphConfig& config);
// Loads a .pbtxt subgraph file and registers it under its `type:`.
absl::Status RegisterSubgraphFile(const std::string& path);
// Folders searched for `<anything>.pbtxt` files whose `type:` matches an
// unknown calculator name.
void AddSubgraphSearchPath(const std::string& dir);
// True when `name` is a registered or findable subgraph.
bool IsSubgraph(const std::string& name);

// Replaces every subgraph node (recursively) by its nodes.
absl::Status ExpandSubgraphs(CalculatorGraphConfig* config);

// Applies one option_value binding to `node` from the enclosing graph's
// options (exposed for tests).
absl::Status ApplyOptionValue(
    const std::string& spec,
    const std::vector<const google::protobuf::Message*>& graph_options,
    CalculatorGraphConfig::Node* node);

}  // namespace rill

#define REGISTER_SUBGRAPH(Class)                                  \
  static const bool RILL_REGISTER_SUBGRAPH_##Class [[maybe_unused]] = \
      ::rill::RegisterSubgraphClass<Class>(#Class, __FILE__)

#endif  // RILL_FRAMEWORK_TOOL_SUBGRAPH_EXPANSION_H_
