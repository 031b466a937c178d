// Profiler glue for `rill run --trace/--stats`: turns the profiler on in a
// graph's config before the run, and writes the trace (Chrome trace-event
// JSON) or the statistics table after it.
#ifndef RILL_TOOLS_TRACE_EXPORT_H_
#define RILL_TOOLS_TRACE_EXPORT_H_

#include <string>

#include "absl/status/status.h"
#include "framework/graph.h"
#include "framework/proto/calculator.pb.h"

namespace rill {
namespace tools {

// Sets the config's profiler_config so the run records a trace.
void EnableTracing(CalculatorGraphConfig* config);
// Sets the config's profiler_config so the run keeps per-calculator stats.
void EnableStats(CalculatorGraphConfig* config);
// Writes the finished run's trace as Chrome trace-event JSON.
absl::Status WriteTrace(CalculatorGraph* graph, const std::string& path);
// Per-calculator invocation counts and times of the run, as a text table.
std::string StatsTable(CalculatorGraph* graph);

}  // namespace tools
}  // namespace rill

#endif  // RILL_TOOLS_TRACE_EXPORT_H_
