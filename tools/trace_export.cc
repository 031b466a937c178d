#include "tools/trace_export.h"

#include "framework/profiler/graph_profiler.h"

namespace rill {
namespace tools {

void EnableTracing(CalculatorGraphConfig* config) {
  ProfilerConfig* profiler = config->mutable_profiler_config();
  profiler->set_trace_enabled(true);
  profiler->set_enable_profiler(true);
  // Keep a whole short run; the profiler keeps the newest events beyond this.
  if (profiler->trace_log_capacity() == 0) {
    profiler->set_trace_log_capacity(1000000);
  }
}

void EnableStats(CalculatorGraphConfig* config) {
  config->mutable_profiler_config()->set_enable_profiler(true);
}

absl::Status WriteTrace(CalculatorGraph* graph, const std::string& path) {
  GraphProfiler* profiler = graph->Profiler();
  if (profiler == nullptr) {
    return absl::FailedPreconditionError("the graph has no profiler");
  }
  return profiler->WriteTrace(path);
}

std::string StatsTable(CalculatorGraph* graph) {
  GraphProfiler* profiler = graph->Profiler();
  return profiler ? profiler->StatsTable() : std::string();
}

}  // namespace tools
}  // namespace rill
