// The pieces of the `rill` command that work on configs and registries
// without running anything: DOT export, a one-line graph summary, a listing
// of registered calculators with the ports their contracts ask for, and
// parsing of command-line side packet values. Kept apart from rill.cc so
// they can be tested directly.
#ifndef RILL_TOOLS_GRAPH_TOOLS_H_
#define RILL_TOOLS_GRAPH_TOOLS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/packet.h"
#include "framework/proto/calculator.pb.h"

namespace rill {
namespace tools {

// Graphviz DOT for an (expanded) graph config:
//   - each node is a box labelled with its name and calculator;
//   - each stream is an edge from its producer to each consumer, labelled
//     with the stream name; back edges are dashed;
//   - graph input streams are "invhouse" shapes, graph output streams
//     "house" shapes, side packets "note" shapes joined by dotted edges;
//   - a stream nobody consumes ends in a small point.
std::string GraphToDot(const CalculatorGraphConfig& config,
                       const std::string& graph_name = "rill");

struct GraphCounts {
  int nodes = 0;
  int streams = 0;       // distinct stream names (graph inputs + node outputs)
  int side_packets = 0;  // distinct side packet names
  std::vector<std::string> executors;  // "default" first, then declared ones
};
GraphCounts CountGraph(const CalculatorGraphConfig& config);
// "5 nodes, 7 streams, 2 executors (default, gpu)"
std::string SummaryLine(const GraphCounts& counts);

// One port a calculator's contract asked for.
struct PortInfo {
  enum class Kind { kInput, kOutput, kInputSide, kOutputSide };
  Kind kind;
  std::string tag;
  int index = 0;
  std::string type;  // as the contract declared it ("int", "any", ...)
  bool optional = false;
};

struct CalculatorInfo {
  std::string name;
  std::string source_file;
  std::vector<PortInfo> ports;
  // Non-OK when no synthetic node satisfied GetContract: the message is what
  // the calculator said about an empty node.
  absl::Status contract_status;
  // The contract accepted a node without ports; the ports listed are those
  // it declares for one untagged input and one untagged output.
  bool variadic = false;
  // Some ports were guessed (from the contract's error messages or generic
  // tries), so their counts are examples, not requirements.
  bool guessed = false;
};

// Calls the registered calculator's GetContract on synthetic nodes: first
// with no ports, then adding every port it asked for (ports it looked up but
// the node lacked), the ports its error message names ("needs a TICK input
// stream", "an untagged input stream"), and as a last resort an untagged
// input and output, until the contract succeeds. Ports a contract only
// declares after checking HasTag() stay unseen unless its messages name them.
CalculatorInfo DescribeCalculator(const std::string& name);
// Every registered calculator whose name contains `filter` (all when empty).
std::vector<CalculatorInfo> DescribeCalculators(const std::string& filter);
std::string FormatCalculators(const std::vector<CalculatorInfo>& infos);

// Parses "name=value" or "name:type=value" (type: int, int64, float, double,
// bool, string). Without a type: int when the value is an integer (int64
// when it does not fit an int), float when it is a number, bool for
// true/false, else string (surrounding quotes are removed).
absl::StatusOr<std::pair<std::string, Packet>> ParseSidePacketFlag(
    const std::string& text);

}  // namespace tools
}  // namespace rill

#endif  // RILL_TOOLS_GRAPH_TOOLS_H_
