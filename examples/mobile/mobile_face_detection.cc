// Face detection for phones and boards: MediaPipe's short-range face
// detection graph (graphs/face_detection) on an image, a video file or a
// camera, printing each frame's detections and its latency (from handing
// the frame to the graph to its detections), then a latency summary. No
// window, no GPU: what an ARM board's shell or an Android `adb shell` can
// run. examples/mobile/README.md says how to build, copy and run it.
//
//   mobile_face_detection --input=photo.jpg
//   mobile_face_detection --input=clip.mp4 [--max_frames=N]
//   mobile_face_detection --input=camera:0
//
// Flags: --input (required), --max_frames (0: all), --threads (the engine's
// threads, default 2), --graph_dir (where graphs/face_detection is; default
// the repository layout next to the binary's working directory),
// --model_dir (where the .tflite models are; default third_party/models).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/graph.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"

namespace rill {
namespace {

struct Flags {
  std::string input;
  int max_frames = 0;
  int threads = 2;
  std::string graph_dir = "graphs/face_detection";
  std::string model_dir = "third_party/models";
};

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string("--") + name + "=";
      if (!absl::StartsWith(a, prefix)) return false;
      *out = a.substr(prefix.size());
      return true;
    };
    std::string v;
    if (value("input", &f->input) || value("graph_dir", &f->graph_dir) || value("model_dir", &f->model_dir)) continue;
    if (value("max_frames", &v) && absl::SimpleAtoi(v, &f->max_frames) && f->max_frames >= 0) continue;
    if (value("threads", &v) && absl::SimpleAtoi(v, &f->threads) && f->threads > 0) continue;
    std::fprintf(stderr, "unknown or bad flag: %s\n", a.c_str());
    return false;
  }
  if (f->input.empty()) {
    std::fprintf(stderr,
                 "usage: mobile_face_detection --input=IMAGE|VIDEO|camera:N [--max_frames=N] [--threads=N]\n"
                 "                             [--graph_dir=DIR] [--model_dir=DIR]\n");
    return false;
  }
  return true;
}

bool IsImage(const std::string& path) {
  for (const char* ext : {".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".pgm", ".webp", ".tif", ".tiff"}) {
    if (absl::EndsWithIgnoreCase(path, ext)) return true;
  }
  return false;
}

int Run(const Flags& flags) {
  AddSubgraphSearchPath(flags.graph_dir);
  const std::string model = flags.model_dir + "/face_detection_short_range.tflite";
  const std::string text = absl::StrCat(R"pb(
    input_stream: "image"
    output_stream: "detections"
    node {
      calculator: "FaceDetectionShortRangeCpu"
      input_stream: "IMAGE:image"
      output_stream: "DETECTIONS:detections"
      node_options: {
        [type.googleapis.com/mediapipe.FaceDetectionOptions] {
          model_path: ")pb",
                                        model, R"pb("
          delegate { xnnpack { num_threads: )pb",
                                        flags.threads, R"pb( } }
        }
      }
    })pb");
  auto config = ParseGraphConfigText(text, "mobile_face_detection");
  if (!config.ok()) {
    std::fprintf(stderr, "graph: %s\n", config.status().ToString().c_str());
    return 1;
  }
  CalculatorGraph graph;
  if (auto s = graph.Initialize(*config); !s.ok()) {
    std::fprintf(stderr, "graph: %s\n", s.ToString().c_str());
    return 1;
  }
  std::mutex mu;
  std::vector<std::vector<Detection>> results;
  if (auto s = graph.ObserveOutputStream("detections",
                                         [&](const Packet& p) {
                                           std::lock_guard<std::mutex> lock(mu);
                                           results.push_back(p.Get<std::vector<Detection>>());
                                           return absl::OkStatus();
                                         });
      !s.ok()) {
    std::fprintf(stderr, "graph: %s\n", s.ToString().c_str());
    return 1;
  }
  if (auto s = graph.StartRun({}); !s.ok()) {
    std::fprintf(stderr, "graph: %s\n", s.ToString().c_str());
    return 1;
  }

  cv::VideoCapture capture;
  cv::Mat still;
  std::string source;
  if (absl::StartsWith(flags.input, "camera:")) {
    int index = 0;
    if (!absl::SimpleAtoi(flags.input.substr(7), &index) || !capture.open(index)) {
      std::fprintf(stderr, "cannot open %s\n", flags.input.c_str());
      return 1;
    }
    source = flags.input;
  } else if (IsImage(flags.input)) {
    still = cv::imread(flags.input, cv::IMREAD_COLOR);
    if (still.empty()) {
      std::fprintf(stderr, "cannot read image %s\n", flags.input.c_str());
      return 1;
    }
    source = "image " + flags.input;
  } else {
    if (!capture.open(flags.input)) {
      std::fprintf(stderr, "cannot open video %s\n", flags.input.c_str());
      return 1;
    }
    source = "video " + flags.input;
  }
  std::printf("source: %s\n", source.c_str());

  // One frame at a time: feed it, wait for the graph to finish it, print.
  std::vector<double> latencies;
  int frame = 0;
  cv::Mat bgr, rgb;
  while (flags.max_frames == 0 || frame < flags.max_frames) {
    if (!still.empty()) {
      if (frame > 0) break;
      bgr = still;
    } else if (!capture.read(bgr) || bgr.empty()) {
      break;
    }
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    const auto t0 = std::chrono::steady_clock::now();
    auto packet = Adopt(new ImageFrame(formats::FromMat(rgb, ImageFormat::SRGB))).At(Timestamp(frame));
    if (auto s = graph.AddPacketToInputStream("image", packet); !s.ok()) {
      std::fprintf(stderr, "frame %d: %s\n", frame, s.ToString().c_str());
      break;
    }
    if (auto s = graph.WaitUntilIdle(); !s.ok()) {
      std::fprintf(stderr, "frame %d: %s\n", frame, s.ToString().c_str());
      break;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    latencies.push_back(ms);
    std::vector<Detection> faces;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!results.empty()) faces = results.back();
      results.clear();
    }
    std::printf("frame %d: %zu face(s), %.1f ms\n", frame, faces.size(), ms);
    for (const Detection& d : faces) {
      const auto& b = d.location_data().relative_bounding_box();
      std::printf("  face score %.3f box x %.3f y %.3f w %.3f h %.3f (%dx%d px at %d,%d)\n", d.score(0), b.xmin(),
                  b.ymin(), b.width(), b.height(), static_cast<int>(b.width() * bgr.cols),
                  static_cast<int>(b.height() * bgr.rows), static_cast<int>(b.xmin() * bgr.cols),
                  static_cast<int>(b.ymin() * bgr.rows));
    }
    ++frame;
  }
  graph.CloseAllInputStreams().IgnoreError();
  if (auto s = graph.WaitUntilDone(); !s.ok()) {
    std::fprintf(stderr, "graph: %s\n", s.ToString().c_str());
    return 1;
  }
  if (latencies.empty()) {
    std::fprintf(stderr, "no frames from %s\n", source.c_str());
    return 1;
  }
  std::vector<double> sorted = latencies;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double l : latencies) sum += l;
  std::printf("frames: %zu, latency ms: mean %.1f, p50 %.1f, max %.1f (first frame %.1f: weights packed there)\n",
              latencies.size(), sum / latencies.size(), sorted[sorted.size() / 2], sorted.back(), latencies[0]);
  return 0;
}

}  // namespace
}  // namespace rill

int main(int argc, char** argv) {
  rill::Flags flags;
  if (!rill::ParseFlags(argc, argv, &flags)) return 2;
  return rill::Run(flags);
}
