// The desktop demo's engine: feeds frames from a camera (or, where there is
// no camera, a video file) into a graph's input stream, takes the annotated
// frames from its output stream, draws the frame rate on them, and shows
// them in an OpenCV window and/or writes them to a video file. The graph is
// any .pbtxt with MediaPipe's desktop convention:
//   input_stream: "input_video"    (ImageFrame, SRGB)
//   output_stream: "output_video"  (ImageFrame)
// e.g. a face detection desktop live graph, or pass_through_live.pbtxt.
#ifndef RILL_EXAMPLES_DESKTOP_DEMO_RUNNER_H_
#define RILL_EXAMPLES_DESKTOP_DEMO_RUNNER_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "framework/packet.h"

namespace rill {

struct DemoOptions {
  std::string graph_path;
  std::string input_stream = "input_video";
  std::string output_stream = "output_video";
  // A V4L2 device ("/dev/video0") or index ("0"); empty: no camera.
  std::string camera = "0";
  // Used when the camera cannot be opened (or camera is empty).
  std::string fallback_video;
  // Annotated output video (empty: none).
  std::string output_video;
  // Show an OpenCV window (needs a display). Key q or Esc quits.
  bool window = true;
  // With a window, play a video file at its own frame rate.
  bool realtime_video = true;
  // Stop after this many frames (0: until the source ends or q).
  int max_frames = 0;
  // A graph that neither answers a frame nor moves its output's timestamp
  // bound past it for this long ends the run with a wait report.
  double stall_timeout_s = 20;
  // Side packets for the graph (e.g. model paths).
  std::map<std::string, Packet> side_packets;
};

struct DemoStats {
  std::string source;  // "camera /dev/video0" or "video FILE"
  bool used_camera = false;
  int64_t frames_in = 0;
  int64_t frames_out = 0;
  double seconds = 0;
  double fps = 0;              // frames out per second of wall time
  double mean_latency_ms = 0;  // from sending a frame to its result
  double p50_latency_ms = 0;
  double p99_latency_ms = 0;
};

absl::StatusOr<DemoStats> RunDemo(const DemoOptions& options);

}  // namespace rill

#endif  // RILL_EXAMPLES_DESKTOP_DEMO_RUNNER_H_
