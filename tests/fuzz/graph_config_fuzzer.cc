// libFuzzer target for the graph-config reader and everything a graph file
// reaches before and at the start of a run: the text and binary parsers,
// option and Any resolution, subgraph expansion, validation, and a short run
// of whatever validates (cancelled after a few milliseconds, so endless
// sources end). Bad input must come back as a status: no crash, no hang,
// no leak, no unbounded allocation.
//
// Coverage-guided with clang's libFuzzer under ASan: scripts/fuzz.sh.
// Under bazel (gcc) fuzz_driver.cc runs it over the shipped graphs and their
// mutations (//tests/fuzz:graph_config_fuzz_test).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "framework/graph.h"
#include "framework/proto/calculator.pb.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"

namespace {

// The shipped graphs' subgraphs (FaceDetectionShortRangeCpu, ...) are found
// by type under graphs/ of the folder the fuzzer runs from, or of
// $RILL_FUZZ_ROOT (scripts/fuzz.sh runs it elsewhere).
bool AddSearchPaths() {
  const char* root = std::getenv("RILL_FUZZ_ROOT");
  const std::string base = root != nullptr ? std::string(root) + "/" : "";
  for (const char* dir : {"graphs/face_detection", "graphs/hand_landmark", "graphs/pose_landmark",
                          "graphs/selfie_segmentation", "graphs/demo", "tools/testdata"}) {
    rill::AddSubgraphSearchPath(base + dir);
  }
  return true;
}
const bool kSearchPaths = AddSearchPaths();

void Exercise(const rill::CalculatorGraphConfig& config) {
  rill::CalculatorGraph graph;
  if (!graph.Initialize(config).ok()) return;
  (void)graph.ValidationWarnings();
  if (!graph.StartRun().ok()) return;
  (void)graph.CloseAllInputStreams();
  // Cancel after 5 ms unless the run ends first.
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::milliseconds(5), [&] { return done; })) {
      lock.unlock();
      graph.Cancel();
      lock.lock();
      // A cancelled run must end: after 10 s, say what it waits for and
      // stop (libFuzzer saves the input as a crash).
      if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return done; })) {
        std::fprintf(stderr, "graph_config_fuzzer: the run did not end 10 s after Cancel\n%s\n%s",
                     graph.DebugWaitReport().c_str(), config.DebugString().c_str());
        std::abort();
      }
    }
  });
  (void)graph.WaitUntilDone();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)kSearchPaths;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto text = rill::ParseGraphConfigText(bytes, "fuzz.pbtxt");
  if (text.ok()) Exercise(*text);
  rill::CalculatorGraphConfig binary;
  if (binary.ParseFromString(bytes)) Exercise(binary);
  return 0;
}
