// GraphRuntime: the scheduler behind CalculatorGraph, internal to the graph
// (CalculatorGraph is its only user). One instance serves one run, so a new
// StartRun gets fresh calculators and queues by building a new runtime.
//
// One mutex guards all scheduling state; calculators run outside it. Each
// executor has a heap of ready nodes (highest priority first) and at most
// NumThreads() "drainers": tasks that pop and run nodes until the heap is
// empty. A node is in at most one heap entry at a time.
#ifndef RILL_FRAMEWORK_GRAPH_RUNTIME_H_
#define RILL_FRAMEWORK_GRAPH_RUNTIME_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "framework/adaptive_mutex.h"
#include "framework/calculator_node.h"
#include "framework/executor.h"
#include "framework/packet.h"
#include "framework/packet_type.h"
#include "framework/timestamp.h"

namespace rill {

class GraphProfiler;
class ValidatedGraph;
struct GraphObserver;

class GraphRuntime {
 public:
  GraphRuntime(ValidatedGraph* validated, GraphProfiler* profiler,
               const Resources* resources)
      : validated_(validated), profiler_(profiler), resources_(resources) {}
  ~GraphRuntime() { Shutdown(); }

  absl::Status Setup(
      std::vector<GraphObserver>* observers,
      const std::map<std::string, std::shared_ptr<Executor>>& custom_executors);
  absl::Status Start(const std::map<std::string, Packet>& side_packets);
  absl::Status AddPacket(const std::string& stream, Packet packet,
                         bool wait_if_full);
  absl::Status SetInputBound(const std::string& stream, Timestamp bound);
  absl::Status CloseInput(const std::string& stream);
  absl::Status CloseAllInputs();
  void Cancel();
  absl::Status WaitUntilIdle();
  absl::Status WaitUntilDone();
  bool HasError() const {
    std::lock_guard<AdaptiveMutex> lock(mu_);
    return !status_.ok();
  }
  bool IsRunning() const {
    std::lock_guard<AdaptiveMutex> lock(mu_);
    return running_;
  }
  void SetErrorCallback(std::function<void(const absl::Status&)> cb) {
    error_callback_ = std::move(cb);
  }
  absl::StatusOr<Packet> GetSidePacket(const std::string& name) const;
  // (node name, text) of every node whose calculator set a report.
  std::vector<std::pair<std::string, std::string>> NodeReports() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& node : nodes_) {
      std::lock_guard<std::mutex> lock(node->report.mu);
      if (!node->report.text.empty()) out.emplace_back(node->name(), node->report.text);
    }
    return out;
  }
  // What every open node waits for, then the scheduler's state (calls in
  // flight, each executor's ready nodes and drain tasks): for stall reports.
  std::string WaitReport() const;
  void Shutdown();

 private:
  struct ExecutorState {
    std::shared_ptr<Executor> executor;
    std::priority_queue<std::pair<int, int>> ready;  // (priority, node)
    int drainers = 0;  // drain tasks scheduled or running
    int busy = 0;      // drainers inside a calculator call (lock released)
    int max_drainers = 1;
  };
  struct GraphInput {
    int stream = -1;
    bool closed = false;
    Timestamp bound = Timestamp::PreStream();
    const PacketType* type = nullptr;
  };

  // All *Locked functions require mu_.
  void MaybeScheduleLocked(CalculatorNode* node);
  bool MightBeReadyLocked(const CalculatorNode& node) const;
  void PropagateOffsetBoundsLocked(CalculatorNode* node);
  void Drain(int executor);
  Invocation* PrepareLocked(CalculatorNode* node);
  void FinishLocked(CalculatorNode* node, Invocation* inv);
  void CommitLocked(CalculatorNode* node, Invocation* inv);
  void PropagateLocked(int stream, std::vector<Packet>* packets,
                       Timestamp bound, bool may_move);
  void PublishSidePacketsLocked(CalculatorNode* node);
  bool SidePacketsReadyLocked(const CalculatorNode& node) const;
  bool ThrottledLocked(const CalculatorNode& node) const;
  bool StreamFullLocked(int stream) const;
  void RecheckThrottledLocked();
  bool IdleLocked() const;
  void OnIdleLocked();
  void FailLocked(absl::Status status);
  void EnterShutdownLocked();
  bool DoneLocked() const { return closed_nodes_ == nodes_.size(); }
  std::string WaitReportLocked() const;
  bool HasAppThreadExecutor() const { return app_executor_ != nullptr; }
  void RunAppTasks(std::unique_lock<AdaptiveMutex>& lock);

  ValidatedGraph* validated_;
  GraphProfiler* profiler_;
  const Resources* resources_;
  std::vector<std::unique_ptr<CalculatorNode>> nodes_;
  std::vector<int> node_executor_;  // node -> executor index
  std::vector<ExecutorState> executors_;
  Executor* app_executor_ = nullptr;
  std::vector<GraphInput> inputs_;
  std::map<std::string, int> input_by_name_;
  // stream -> (node, input) consumers, including internal sinks.
  std::vector<std::vector<std::pair<int, int>>> consumers_;
  std::map<std::string, Packet> side_packets_;
  int64_t max_queue_size_ = 100;
  bool report_deadlock_ = false;

  mutable AdaptiveMutex mu_;
  std::condition_variable_any cv_;  // idle / done / queue space
  absl::Status status_;
  bool running_ = false;
  bool shutting_down_ = false;
  size_t closed_nodes_ = 0;
  int in_flight_ = 0;
  int num_throttled_ = 0;
  int waiting_adders_ = 0;
  std::function<void(const absl::Status&)> error_callback_;
  std::vector<absl::Status> pending_callbacks_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_GRAPH_RUNTIME_H_
