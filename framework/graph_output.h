// Internal to the graph (not for calculators or applications): how a graph
// output stream reaches the application. ObserveOutputStream and
// AddOutputStreamPoller each add a GraphObserver; at StartRun the scheduler
// turns every observer into an internal sink node, so delivery is ordinary
// scheduling (callbacks run on scheduler threads outside the scheduling lock,
// like any calculator) rather than a side channel with its own locking.
#ifndef RILL_FRAMEWORK_GRAPH_OUTPUT_H_
#define RILL_FRAMEWORK_GRAPH_OUTPUT_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "framework/calculator_base.h"
#include "framework/packet.h"
#include "framework/proto/calculator.pb.h"
#include "framework/validated_graph.h"

namespace rill {

// Shared by a poller's sink (producer, on a scheduler thread) and its
// OutputStreamPoller handles (consumers, on application threads).
struct PollerQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Packet> packets;
  bool done = false;
  int max_size = 0;
};

// One ObserveOutputStream (callback set) or AddOutputStreamPoller (poller
// set) registration. It outlives runs; each run rebuilds its sink node.
struct GraphObserver {
  std::string stream;
  bool observe_bounds = false;
  std::function<absl::Status(const Packet&)> callback;
  std::shared_ptr<PollerQueue> poller;
  // Spec of the sink node (its config and contract live here).
  std::unique_ptr<CalculatorGraphConfig::Node> config;
  std::unique_ptr<NodeSpec> spec;
};

// Empties the poller's queue and reopens it, so a new run starts clean.
void ResetPollerForRun(GraphObserver* observer);

// Fills observer->config and observer->spec for a sink reading stream index
// `stream`; `priority` should exceed every real node's so that delivery
// drains the graph before more input is admitted.
absl::Status BuildSinkSpec(int stream, int priority, GraphObserver* observer);

// The sink calculator: calls the observer's callback or fills its poller.
std::unique_ptr<CalculatorBase> MakeGraphOutputSink(
    const GraphObserver& observer);

}  // namespace rill

#endif  // RILL_FRAMEWORK_GRAPH_OUTPUT_H_
