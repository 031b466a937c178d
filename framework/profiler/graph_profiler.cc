#include "framework/profiler/graph_profiler.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rill {
namespace {

int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t ThreadId() {
  thread_local uint32_t id = static_cast<uint32_t>(syscall(SYS_gettid));
  return id;
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void GraphProfiler::Initialize(
    const ProfilerConfig& config, const std::vector<std::string>& node_names,
    const std::vector<std::string>& calculators,
    const std::vector<std::vector<std::string>>& input_names) {
  std::lock_guard<std::mutex> lock(mu_);
  if (config.histogram_interval_size_usec() > 0) {
    histogram_interval_ns_ = config.histogram_interval_size_usec() * 1000;
  }
  if (config.num_histogram_intervals() > 0) {
    num_buckets_ = static_cast<int>(config.num_histogram_intervals());
  }
  if (config.trace_log_capacity() > 0) {
    trace_capacity_ = static_cast<size_t>(config.trace_log_capacity());
  }
  stats_.clear();
  for (size_t i = 0; i < node_names.size(); ++i) {
    CalculatorStats s;
    s.node_name = node_names[i];
    s.calculator = calculators[i];
    s.histogram.assign(num_buckets_, 0);
    s.input_names = input_names[i];
    s.max_queue_size.assign(input_names[i].size(), 0);
    stats_.push_back(std::move(s));
  }
  trace_.clear();
  trace_next_ = 0;
  trace_wrapped_ = false;
  epoch_ns_ = MonotonicNs();
  stats_enabled_ = config.enable_profiler();
  trace_enabled_ = config.trace_enabled();
}

void GraphProfiler::Enable(bool stats, bool trace) {
  stats_enabled_ = stats;
  trace_enabled_ = trace;
}

int64_t GraphProfiler::NowNs() const { return MonotonicNs() - epoch_ns_; }

void GraphProfiler::RecordInvocation(int node, TraceEvent::Kind kind,
                                     int64_t start_ns, int64_t end_ns,
                                     Timestamp timestamp) {
  std::lock_guard<std::mutex> lock(mu_);
  if (node < 0 || node >= static_cast<int>(stats_.size())) return;
  if (StatsEnabled()) {
    CalculatorStats& s = stats_[node];
    const int64_t d = end_ns - start_ns;
    switch (kind) {
      case TraceEvent::kOpen:
        ++s.open_count;
        break;
      case TraceEvent::kClose:
        ++s.close_count;
        break;
      case TraceEvent::kProcess: {
        ++s.process_count;
        s.total_process_ns += d;
        s.max_process_ns = std::max(s.max_process_ns, d);
        const int64_t b =
            std::min<int64_t>(d / histogram_interval_ns_, num_buckets_ - 1);
        ++s.histogram[b];
        break;
      }
    }
  }
  if (TraceEnabled() && trace_capacity_ > 0) {
    TraceEvent e;
    e.node = node;
    e.kind = kind;
    e.start_ns = start_ns;
    e.end_ns = end_ns;
    e.packet_timestamp = timestamp.Value();
    e.thread = ThreadId();
    if (trace_.size() < trace_capacity_) {
      trace_.push_back(e);
    } else {
      trace_[trace_next_] = e;
      trace_wrapped_ = true;
    }
    trace_next_ = (trace_next_ + 1) % trace_capacity_;
  }
}

void GraphProfiler::RecordQueueSize(int node, int input, int64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (node < 0 || node >= static_cast<int>(stats_.size())) return;
  auto& q = stats_[node].max_queue_size;
  if (input >= 0 && input < static_cast<int>(q.size())) {
    q[input] = std::max(q[input], size);
  }
}

std::vector<CalculatorStats> GraphProfiler::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::string GraphProfiler::StatsTable() const {
  std::vector<CalculatorStats> stats = Stats();
  std::string out = absl::StrFormat("%-32s %-34s %9s %10s %10s %10s\n", "node",
                                    "calculator", "calls", "mean_us",
                                    "max_us", "max_queue");
  for (const CalculatorStats& s : stats) {
    int64_t max_queue = 0;
    for (int64_t q : s.max_queue_size) max_queue = std::max(max_queue, q);
    out += absl::StrFormat(
        "%-32s %-34s %9d %10.2f %10.2f %10d\n", s.node_name, s.calculator,
        s.process_count,
        s.process_count ? s.total_process_ns / 1e3 / s.process_count : 0.0,
        s.max_process_ns / 1e3, max_queue);
  }
  return out;
}

std::vector<TraceEvent> GraphProfiler::Trace() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TraceEvent> events;
  const size_t n = trace_.size();
  const size_t start = trace_wrapped_ ? trace_next_ : 0;
  for (size_t k = 0; k < n; ++k) events.push_back(trace_[(start + k) % n]);
  return events;
}

std::string GraphProfiler::NodeName(int node) const {
  std::lock_guard<std::mutex> lock(mu_);
  return node >= 0 && node < static_cast<int>(stats_.size()) ? stats_[node].node_name : "";
}

std::string GraphProfiler::TraceJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  static const char* kKinds[] = {"Open", "Process", "Close"};
  bool first = true;
  const size_t n = trace_.size();
  const size_t start = trace_wrapped_ ? trace_next_ : 0;
  for (size_t k = 0; k < n; ++k) {
    const TraceEvent& e = trace_[(start + k) % n];
    const CalculatorStats& s = stats_[e.node];
    if (!first) out += ",\n";
    first = false;
    out += absl::StrFormat(
        "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,"
        "\"dur\":%.3f,\"pid\":1,\"tid\":%u,\"args\":{\"node\":\"%s\","
        "\"timestamp\":%d}}",
        JsonEscape(s.calculator), kKinds[e.kind], e.start_ns / 1e3,
        (e.end_ns - e.start_ns) / 1e3, e.thread, JsonEscape(s.node_name),
        e.packet_timestamp);
  }
  out += "\n]}\n";
  return out;
}

absl::Status GraphProfiler::WriteTrace(const std::string& path) const {
  std::ofstream f(path);
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write trace file \"", path, "\""));
  }
  f << TraceJson();
  return f.good() ? absl::OkStatus()
                  : absl::DataLossError(
                        absl::StrCat("error writing trace \"", path, "\""));
}

void GraphProfiler::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  for (CalculatorStats& s : stats_) {
    s.open_count = s.process_count = s.close_count = 0;
    s.total_process_ns = s.max_process_ns = 0;
    std::fill(s.histogram.begin(), s.histogram.end(), 0);
    std::fill(s.max_queue_size.begin(), s.max_queue_size.end(), 0);
  }
  trace_.clear();
  trace_next_ = 0;
  trace_wrapped_ = false;
}

}  // namespace rill
