// Per-calculator statistics and an execution trace for one graph. Enabled by
// the graph's profiler_config (enable_profiler for statistics, trace_enabled
// for the trace) or by CalculatorGraph::Profiler()->Enable(). Costs nothing
// when disabled: the scheduler skips the clock reads.
//
// The trace exports as Chrome trace-event JSON, which opens in the Perfetto
// UI (ui.perfetto.dev) and chrome://tracing: one row per worker thread, one
// slice per Open/Process/Close, with the packet timestamp in its args.
#ifndef RILL_FRAMEWORK_PROFILER_GRAPH_PROFILER_H_
#define RILL_FRAMEWORK_PROFILER_GRAPH_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/proto/calculator.pb.h"
#include "framework/timestamp.h"

namespace rill {

struct CalculatorStats {
  std::string node_name;
  std::string calculator;
  int64_t open_count = 0;
  int64_t process_count = 0;
  int64_t close_count = 0;
  int64_t total_process_ns = 0;
  int64_t max_process_ns = 0;
  // Process() time histogram: bucket i counts calls in
  // [i, i+1) * histogram_interval_us; the last bucket is open-ended.
  std::vector<int64_t> histogram;
  // Largest queue seen on each input stream (by input id).
  std::vector<int64_t> max_queue_size;
  std::vector<std::string> input_names;
};

struct TraceEvent {
  int node = 0;
  enum Kind : uint8_t { kOpen, kProcess, kClose } kind = kProcess;
  int64_t start_ns = 0;  // since the profiler's epoch
  int64_t end_ns = 0;
  int64_t packet_timestamp = 0;
  uint32_t thread = 0;
};

class GraphProfiler {
 public:
  void Initialize(const ProfilerConfig& config,
                  const std::vector<std::string>& node_names,
                  const std::vector<std::string>& calculators,
                  const std::vector<std::vector<std::string>>& input_names);
  void Enable(bool stats, bool trace);
  bool StatsEnabled() const { return stats_enabled_.load(std::memory_order_relaxed); }
  bool TraceEnabled() const { return trace_enabled_.load(std::memory_order_relaxed); }
  bool Enabled() const { return StatsEnabled() || TraceEnabled(); }

  // Monotonic nanoseconds since the profiler's epoch.
  int64_t NowNs() const;
  void RecordInvocation(int node, TraceEvent::Kind kind, int64_t start_ns,
                        int64_t end_ns, Timestamp timestamp);
  void RecordQueueSize(int node, int input, int64_t size);

  std::vector<CalculatorStats> Stats() const;
  // A text table: calculator, calls, mean/max time, histogram summary.
  std::string StatsTable() const;
  // The recorded trace, oldest first, and the name of a node by index.
  std::vector<TraceEvent> Trace() const;
  std::string NodeName(int node) const;
  // Chrome trace-event JSON of the recorded trace.
  std::string TraceJson() const;
  absl::Status WriteTrace(const std::string& path) const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::atomic<bool> stats_enabled_{false};
  std::atomic<bool> trace_enabled_{false};
  int64_t histogram_interval_ns_ = 1000000;  // 1 ms
  int num_buckets_ = 20;
  size_t trace_capacity_ = 100000;
  std::vector<CalculatorStats> stats_;
  std::vector<TraceEvent> trace_;  // ring buffer once full
  size_t trace_next_ = 0;
  bool trace_wrapped_ = false;
  int64_t epoch_ns_ = 0;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_PROFILER_GRAPH_PROFILER_H_
