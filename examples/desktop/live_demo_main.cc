// rill_live_demo: a live camera window with the graph's overlay and the
// frame rate; falls back to a video file where no camera exists.
//
//   bazel-bin/examples/desktop/rill_live_demo
//       --graph=examples/desktop/pass_through_live.pbtxt
//   # no display: write the annotated video instead
//   bazel-bin/examples/desktop/rill_live_demo --nowindow
//       --output_video=/tmp/demo.avi --max_frames=100
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "examples/desktop/demo_runner.h"

ABSL_FLAG(std::string, graph, "examples/desktop/pass_through_live.pbtxt",
          "graph .pbtxt with input_stream input_video and output_stream "
          "output_video");
ABSL_FLAG(std::string, camera, "0",
          "camera: V4L2 index or device path; empty for none");
ABSL_FLAG(std::string, fallback_video, "third_party/media/Megamind.avi",
          "video file played when no camera can be opened");
ABSL_FLAG(std::string, output_video, "",
          "also write the annotated frames to this .avi/.mp4");
ABSL_FLAG(bool, window, true,
          "show an OpenCV window (off by default without $DISPLAY)");
ABSL_FLAG(int, max_frames, 0, "stop after this many frames (0: no limit)");
ABSL_FLAG(std::string, input_stream, "input_video", "graph input stream");
ABSL_FLAG(std::string, output_stream, "output_video", "graph output stream");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs a graph on a live camera (or a video file) and shows the result.");
  absl::ParseCommandLine(argc, argv);
  rill::DemoOptions options;
  options.graph_path = absl::GetFlag(FLAGS_graph);
  options.camera = absl::GetFlag(FLAGS_camera);
  options.fallback_video = absl::GetFlag(FLAGS_fallback_video);
  options.output_video = absl::GetFlag(FLAGS_output_video);
  options.max_frames = absl::GetFlag(FLAGS_max_frames);
  options.input_stream = absl::GetFlag(FLAGS_input_stream);
  options.output_stream = absl::GetFlag(FLAGS_output_stream);
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  const bool have_display = (display && *display) || (wayland && *wayland);
  options.window = absl::GetFlag(FLAGS_window) && have_display;
  if (absl::GetFlag(FLAGS_window) && !have_display) {
    std::cerr << "no display ($DISPLAY unset): running without a window"
              << (options.output_video.empty()
                      ? "; pass --output_video=FILE to see the result"
                      : "")
              << "\n";
  }
  auto stats = rill::RunDemo(options);
  if (!stats.ok()) {
    std::cerr << "rill_live_demo: " << stats.status().message() << "\n";
    return 1;
  }
  std::cout << absl::StrFormat(
      "%s: %d frames in, %d out, %.2f s, %.1f fps; latency mean %.2f ms, "
      "p50 %.2f ms, p99 %.2f ms\n",
      stats->source, stats->frames_in, stats->frames_out, stats->seconds,
      stats->fps, stats->mean_latency_ms, stats->p50_latency_ms,
      stats->p99_latency_ms);
  return 0;
}
