// Chrome trace-event export for `rill run --trace`: turns tracing on in a
// graph's profiler config before the run and writes the trace after it.
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
// Writes the finished run's trace as Chrome trace-event JSON.
absl::Status WriteTrace(CalculatorGraph* graph, const std::string& path);

}  // namespace tools
}  // namespace rill

#endif  // RILL_TOOLS_TRACE_EXPORT_H_
