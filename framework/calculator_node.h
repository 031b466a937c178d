// Runtime state of one node while a graph runs: its calculator instance,
// input queues, committed output bounds, side packets and invocation
// contexts. Owned and driven by the graph's scheduler (graph_runtime.cc);
// every member is guarded by the scheduler's lock except the contexts of
// invocations in progress, which belong to the running thread.
#ifndef RILL_FRAMEWORK_CALCULATOR_NODE_H_
#define RILL_FRAMEWORK_CALCULATOR_NODE_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "framework/calculator_base.h"
#include "framework/input_stream_handler.h"
#include "framework/validated_graph.h"

namespace rill {

struct Invocation {
  enum Kind { kOpen, kProcess, kClose } kind = kProcess;
  CalculatorContext context;
  std::vector<Packet> slots;  // one per input
  Timestamp timestamp;
  absl::Status status;
  bool done = false;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

class CalculatorNode {
 public:
  enum class State { kNotOpened, kOpened, kClosed };

  // `spec` describes a validated node; internal sink nodes pass their own.
  CalculatorNode(int index, const NodeSpec* spec,
                 std::unique_ptr<CalculatorBase> calculator);

  absl::Status Prepare();  // creates the handler, contexts and queues

  // Where the node's calculator resolves file paths (set before Prepare).
  const Resources* resources = nullptr;
  // Set by the calculator through CalculatorContext::SetReport.
  NodeReport report;

  int index() const { return index_; }
  const NodeSpec& spec() const { return *spec_; }
  const std::string& name() const { return spec_->name; }
  const std::string& calculator_type() const { return calculator_type_; }

  // Takes an invocation context from the pool (nullptr when all in use).
  Invocation* AcquireInvocation(Invocation::Kind kind);
  void ReleaseInvocation(Invocation* inv);
  // Moves the handler's chosen packets into the context's input shards.
  void LoadInputs(Invocation* inv);
  void ClearInputs(Invocation* inv);
  absl::Status Call(Invocation* inv);

  // Output stream shard access for committing.
  OutputStreamShard& Shard(Invocation* inv, int output) {
    return inv->context.outputs_.Get(output);
  }
  const std::string& ShardError(Invocation* inv, int output) {
    return inv->context.outputs_.Get(output).error_;
  }
  std::vector<Packet>& ShardPackets(Invocation* inv, int output) {
    return inv->context.outputs_.Get(output).packets_;
  }
  Timestamp ShardBound(Invocation* inv, int output) {
    return inv->context.outputs_.Get(output).bound_;
  }
  bool ShardClose(Invocation* inv, int output) {
    return inv->context.outputs_.Get(output).close_;
  }
  void ResetShard(Invocation* inv, int output, Timestamp committed,
                  bool closed);

  // Scheduler-owned state.
  State state = State::kNotOpened;
  std::unique_ptr<InputStreamHandler> handler;
  std::vector<InputQueue> queues;
  std::vector<int64_t> queue_limits;  // per input; <0: unlimited
  std::vector<OutputStreamSpec> output_specs;
  std::vector<Timestamp> output_bounds;
  PacketSet side_inputs;
  OutputSidePacketSet side_outputs;
  std::vector<bool> side_output_published;
  Timestamp last_timestamp = Timestamp::Unstarted();
  int in_flight = 0;
  int max_in_flight = 1;
  bool in_ready_set = false;
  bool source_stopped = false;
  bool close_started = false;
  bool throttled = false;
  // Running average of one call's cost in timer ticks; starts high so that
  // a node counts as worth a hand-off until measured.
  int64_t avg_cycles = 1 << 20;
  std::deque<Invocation*> commit_order;  // invocations in start order

 private:
  int index_;
  const NodeSpec* spec_;
  std::string calculator_type_;
  std::unique_ptr<CalculatorBase> calculator_;
  std::vector<std::unique_ptr<Invocation>> all_invocations_;
  std::vector<Invocation*> free_invocations_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_CALCULATOR_NODE_H_
