// `rill run GRAPH --input=... --output=...`: feeds frames from a video file,
// an image or a camera into the graph's input stream, writes the frames of
// its output stream to a video or image file, shows progress on a terminal
// and prints a summary (frames, per-frame latency mean/p50/p99, throughput),
// optionally as one JSON line. --dump_stream prints every packet of a stream
// as a JSON line.
#ifndef RILL_TOOLS_MEDIA_RUN_H_
#define RILL_TOOLS_MEDIA_RUN_H_

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "framework/graph.h"
#include "framework/packet.h"

namespace rill {
namespace tools {

struct MediaRunOptions {
  std::string input;          // video file, image file, or camera:N
  std::string output;         // .mp4/.avi/.mkv (video) or .png/.jpg (image)
  std::string input_stream;   // default: the graph's first input_stream
  std::string output_stream;  // default: the graph's first output_stream
  std::vector<std::string> dump_streams;
  bool json = false;
  int max_frames = 0;  // 0: all
  // Start a video file over at its end (timestamps keep increasing), until
  // max_frames, the timeout or `stop` ends the run (rill run --loop).
  bool loop = false;
  // Every this many seconds, print a line to stderr (a JSON line with json)
  // with the frames so far, the interval's throughput and latency
  // percentiles, and the process's resident memory (rill run
  // --report_every; scripts/reliability.sh reads them). 0: none.
  double report_every_s = 0;
  // Frames sent but not yet out of the graph before the next one is sent
  // (0: no limit). A small number keeps the pipeline busy while the latency
  // figures measure processing, not time spent queued behind other frames.
  int max_in_flight = 2;
  // Cancel the run after this many seconds (0: never), naming the nodes
  // still waiting (rill run --timeout).
  double timeout_s = 0;
  // Set (by a signal handler, say) to stop reading input: the frames sent so
  // far finish, the output is finalized, and the summary says "interrupted".
  const std::atomic<bool>* stop = nullptr;
  std::map<std::string, Packet> side_packets;
};

struct MediaRunSummary {
  int64_t frames_in = 0;
  int64_t frames_out = 0;       // frames with a packet on the output stream
  double wall_s = 0;
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, max_ms = 0;
  double fps = 0;
  bool interrupted = false;  // MediaRunOptions::stop ended the input early
  // Set when a video ended before the frame count its header announces
  // (a truncated or damaged file); both 0 otherwise.
  int64_t frames_read = 0;
  int64_t frames_in_header = 0;
  // (node, how it ran) from CalculatorGraph::NodeReports(): each inference
  // node's model and backends.
  std::vector<std::pair<std::string, std::string>> node_reports;
};

// Runs an initialized graph (observers may already be attached) with media
// I/O. Returns the run's status; fills `summary`.
absl::Status RunWithMedia(CalculatorGraph* graph, const MediaRunOptions& options,
                          MediaRunSummary* summary);

std::string SummaryText(const MediaRunSummary& s);
std::string SummaryJson(const std::string& graph_path, const MediaRunSummary& s);

}  // namespace tools
}  // namespace rill

#endif  // RILL_TOOLS_MEDIA_RUN_H_
