// Calculators used by the framework's own tests (registered with a "Test"
// prefix so they never collide with the real calculators).
#ifndef RILL_FRAMEWORK_TEST_CALCULATORS_H_
#define RILL_FRAMEWORK_TEST_CALCULATORS_H_

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "framework/graph.h"

namespace rill {
namespace testing {

// Runs `config_text` with `side_packets`, feeding `inputs` (stream ->
// (timestamp, int value) list), and returns every packet of the graph's
// output streams. Fails the test on any error.
struct RunResult {
  absl::Status status;
  std::map<std::string, std::vector<Packet>> outputs;
};
RunResult RunGraph(const std::string& config_text,
                   const std::map<std::string, std::vector<std::pair<int64_t, int>>>&
                       inputs = {},
                   const std::map<std::string, Packet>& side_packets = {});

std::vector<int> Values(const std::vector<Packet>& packets);
std::vector<int64_t> Timestamps(const std::vector<Packet>& packets);

// Thread names seen by TestThreadNameCalculator.
std::vector<std::string> SeenThreadNames();
void ClearSeenThreadNames();

}  // namespace testing
}  // namespace rill

#endif  // RILL_FRAMEWORK_TEST_CALCULATORS_H_
