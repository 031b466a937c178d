// CalculatorGraph runs a graph config: it expands subgraphs, validates every
// node and stream, then schedules calculators on executors as packets arrive.
//
//   CalculatorGraph graph;
//   RILL_RETURN_IF_ERROR(graph.Initialize(config));
//   RILL_ASSIGN_OR_RETURN(OutputStreamPoller poller,
//                         graph.AddOutputStreamPoller("out"));
//   RILL_RETURN_IF_ERROR(graph.StartRun({}));
//   graph.AddPacketToInputStream("in", MakePacket<int>(1).At(Timestamp(0)));
//   graph.CloseAllInputStreams();
//   Packet p;
//   while (poller.Next(&p)) { ... }
//   RILL_RETURN_IF_ERROR(graph.WaitUntilDone());
#ifndef RILL_FRAMEWORK_GRAPH_H_
#define RILL_FRAMEWORK_GRAPH_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/executor.h"
#include "framework/output_stream_poller.h"
#include "framework/packet.h"
#include "framework/proto/calculator.pb.h"
#include "framework/resources.h"
#include "framework/timestamp.h"

namespace rill {

class GraphRuntime;
class GraphProfiler;
class ValidatedGraph;
struct GraphObserver;
struct PollerQueue;

class CalculatorGraph {
 public:
  enum class GraphInputStreamAddMode {
    // AddPacketToInputStream blocks while a consumer's queue is full.
    kWaitTillNotFull,
    // AddPacketToInputStream fails with Unavailable when a queue is full.
    kAddIfNotFull,
  };

  CalculatorGraph();
  ~CalculatorGraph();
  CalculatorGraph(const CalculatorGraph&) = delete;
  CalculatorGraph& operator=(const CalculatorGraph&) = delete;

  // Expands subgraphs and validates. `side_packets` are available to every
  // run (merged with those given to StartRun).
  absl::Status Initialize(const CalculatorGraphConfig& config,
                          const std::map<std::string, Packet>& side_packets = {});
  // Initialize from a .pbtxt or .binarypb file.
  absl::Status InitializeFromFile(const std::string& path);

  // The folders where nodes find the files their options name (models,
  // label maps); see framework/resources.h. InitializeFromFile defaults them
  // to the graph file's repository, then the working directory; without
  // roots relative paths resolve against the working directory.
  void SetResourceRoots(std::vector<std::string> roots) {
    resources_ = Resources(std::move(roots));
    resource_roots_set_ = true;
  }
  const Resources& GetResources() const { return resources_; }

  // The config after subgraph expansion.
  const CalculatorGraphConfig& Config() const;
  // Validation's warnings (options a node's calculator does not read), one
  // line each naming the node; empty before Initialize.
  std::vector<std::string> ValidationWarnings() const;

  // Calls `callback` with every packet of `stream` (on a scheduler thread).
  // With observe_timestamp_bounds the callback also gets an empty packet
  // each time the bound moves past a timestamp that had no packet.
  absl::Status ObserveOutputStream(
      const std::string& stream,
      std::function<absl::Status(const Packet&)> callback,
      bool observe_timestamp_bounds = false);
  absl::StatusOr<OutputStreamPoller> AddOutputStreamPoller(
      const std::string& stream, bool observe_timestamp_bounds = false);

  // Uses `executor` for nodes whose config names executor `name` (or for
  // the default executor when name is empty). Call before StartRun.
  absl::Status SetExecutor(const std::string& name,
                           std::shared_ptr<Executor> executor);

  absl::Status StartRun(const std::map<std::string, Packet>& side_packets = {});
  // Run = StartRun + CloseAllInputStreams + WaitUntilDone.
  absl::Status Run(const std::map<std::string, Packet>& side_packets = {});

  void SetGraphInputStreamAddMode(GraphInputStreamAddMode mode);
  absl::Status AddPacketToInputStream(const std::string& stream,
                                      const Packet& packet);
  absl::Status AddPacketToInputStream(const std::string& stream,
                                      Packet&& packet);
  absl::Status SetInputStreamTimestampBound(const std::string& stream,
                                            Timestamp bound);
  absl::Status CloseInputStream(const std::string& stream);
  absl::Status CloseAllInputStreams();
  // Closes inputs and source nodes; the run ends as soon as queued work is
  // done. WaitUntilDone then returns Cancelled.
  void Cancel();

  // Waits until no calculator can make progress without new input.
  absl::Status WaitUntilIdle();
  // Waits until every node has closed; returns the run's status.
  absl::Status WaitUntilDone();
  bool HasError() const;

  // Called once with the first error of a run (on the failing thread).
  void SetErrorCallback(std::function<void(const absl::Status&)> callback);

  absl::StatusOr<Packet> GetOutputSidePacket(const std::string& name) const;

  // Per-calculator statistics and the trace (see profiler/graph_profiler.h).
  GraphProfiler* Profiler();

  // Describes, for each node that has not finished, which input stream it
  // waits on (what the deadlock report prints).
  std::string DebugWaitReport() const;

  // (node name, text) for each node whose calculator described how it runs
  // (CalculatorContext::SetReport; InferenceCalculator names its backend),
  // from the current or last run.
  std::vector<std::pair<std::string, std::string>> NodeReports() const;

 private:
  std::unique_ptr<ValidatedGraph> validated_;
  std::map<std::string, Packet> initial_side_packets_;
  std::map<std::string, std::shared_ptr<Executor>> custom_executors_;
  std::unique_ptr<GraphProfiler> profiler_;
  std::unique_ptr<GraphRuntime> runtime_;
  Resources resources_;
  bool resource_roots_set_ = false;
  absl::Status AddObserver(const char* what, const std::string& stream,
                           bool observe_timestamp_bounds,
                           std::function<absl::Status(const Packet&)> callback,
                           std::shared_ptr<PollerQueue> poller);
  std::vector<GraphObserver> observers_;
  std::function<void(const absl::Status&)> error_callback_;
  GraphInputStreamAddMode add_mode_ = GraphInputStreamAddMode::kWaitTillNotFull;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_GRAPH_H_
