// The face detection pipeline end to end on a 640x480 video: per-frame
// latency (p50/p99) with one frame in flight, to the annotated frame and to
// the detections (image to tensor + inference + postprocessing, without the
// rendering), throughput with every frame queued, at 1 and 2 scheduler
// threads, and where the time goes per calculator (the graph profiler's mean
// Process() time). Prints one table.
//
//   bazel build //benchmarks:face_detection_pipeline
//   bazel-bin/benchmarks/face_detection_pipeline [--frames=200]
//       [--graph=graphs/demo/face_detection_file.pbtxt]
//       [--video=third_party/media/Megamind.avi]
//
// The 640x480 video is made from the test media (resized with OpenCV) the
// first time, in /tmp.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/graph.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"
#include "opencv2/imgproc.hpp"
#include "opencv2/videoio.hpp"

namespace rill {
namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  int frames = 200;
  std::string graph = "graphs/demo/face_detection_file.pbtxt";
  std::string video = "third_party/media/Megamind.avi";
};

// Frames of `video` resized to 640x480, as RGB ImageFrames (kept in memory
// so that decoding does not count).
std::vector<cv::Mat> LoadFrames(const Flags& flags) {
  std::vector<cv::Mat> frames;
  cv::VideoCapture cap(flags.video);
  cv::Mat bgr;
  while (static_cast<int>(frames.size()) < flags.frames) {
    if (!cap.read(bgr) || bgr.empty()) {
      if (frames.empty()) break;
      cap.open(flags.video);  // loop the clip
      continue;
    }
    cv::Mat small, rgb;
    cv::resize(bgr, small, cv::Size(640, 480), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
    frames.push_back(rgb);
  }
  return frames;
}

struct Result {
  double p50_ms = 0, p99_ms = 0, fps = 0;
  // Latency to the second output stream (the detections): image to tensor,
  // inference and postprocessing, without the rendering.
  double detections_p50_ms = 0, detections_p99_ms = 0;
  int64_t faces = 0;
  std::vector<CalculatorStats> stats;
};

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5))];
}

absl::StatusOr<Result> RunOnce(const CalculatorGraphConfig& base,
                               const std::vector<cv::Mat>& frames, int threads) {
  Result result;
  CalculatorGraphConfig config = base;
  config.set_num_threads(threads);
  config.mutable_profiler_config()->set_enable_profiler(true);
  const std::string in = config.input_stream(0);
  const std::string out = config.output_stream(0);

  // 1) Latency: one frame at a time, waiting for its output.
  {
    CalculatorGraph graph;
    absl::Status s = graph.Initialize(config);
    if (!s.ok()) return s;
    std::mutex mu;
    std::condition_variable cv;
    int64_t done_ts = -1;
    s = graph.ObserveOutputStream(out, [&](const Packet& p) {
      std::lock_guard<std::mutex> lock(mu);
      done_ts = p.Timestamp().Value();
      cv.notify_all();
      return absl::OkStatus();
    }, /*observe_timestamp_bounds=*/true);
    if (!s.ok()) return s;
    // When each frame's detections (or the bound saying there are none)
    // came out.
    std::vector<Clock::time_point> detected(frames.size());
    std::vector<bool> has_detected(frames.size(), false);
    if (config.output_stream_size() > 1) {
      s = graph.ObserveOutputStream(config.output_stream(1), [&](const Packet& p) {
        const auto now = Clock::now();
        std::lock_guard<std::mutex> lock(mu);
        const int64_t ts = p.Timestamp().Value();
        if (ts >= 0 && ts % 33333 == 0 && ts / 33333 < static_cast<int64_t>(frames.size()) &&
            !has_detected[ts / 33333]) {
          detected[ts / 33333] = now;
          has_detected[ts / 33333] = true;
        }
        if (p.Holds<std::vector<Detection>>()) {
          result.faces += static_cast<int64_t>(p.Get<std::vector<Detection>>().size());
        }
        return absl::OkStatus();
      }, /*observe_timestamp_bounds=*/true);
      if (!s.ok()) return s;
    }
    s = graph.StartRun();
    if (!s.ok()) return s;
    std::vector<double> latencies, detection_latencies;
    for (size_t i = 0; i < frames.size(); ++i) {
      const int64_t ts = static_cast<int64_t>(i) * 33333;
      const auto t0 = Clock::now();
      s = graph.AddPacketToInputStream(
          in, MakePacket<ImageFrame>(formats::FromMat(frames[i], ImageFormat::SRGB))
                  .At(Timestamp(ts)));
      if (!s.ok()) return s;
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return done_ts >= ts; });
      // The first frames warm caches and lazily-built state.
      if (i >= 5) {
        latencies.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (has_detected[i]) {
          detection_latencies.push_back(std::chrono::duration<double, std::milli>(detected[i] - t0).count());
        }
      }
    }
    s = graph.CloseAllInputStreams();
    if (s.ok()) s = graph.WaitUntilDone();
    if (!s.ok()) return s;
    result.p50_ms = Percentile(latencies, 0.5);
    result.p99_ms = Percentile(latencies, 0.99);
    result.detections_p50_ms = Percentile(detection_latencies, 0.5);
    result.detections_p99_ms = Percentile(detection_latencies, 0.99);
    result.stats = graph.Profiler()->Stats();
  }
  // 2) Throughput: every frame queued at once (pipelined).
  {
    CalculatorGraph graph;
    config.set_max_queue_size(-1);
    absl::Status s = graph.Initialize(config);
    if (!s.ok()) return s;
    s = graph.StartRun();
    if (!s.ok()) return s;
    std::vector<Packet> packets;
    for (size_t i = 0; i < frames.size(); ++i) {
      packets.push_back(
          MakePacket<ImageFrame>(formats::FromMat(frames[i], ImageFormat::SRGB))
              .At(Timestamp(static_cast<int64_t>(i) * 33333)));
    }
    const auto t0 = Clock::now();
    for (Packet& p : packets) {
      s = graph.AddPacketToInputStream(in, std::move(p));
      if (!s.ok()) return s;
    }
    s = graph.CloseAllInputStreams();
    if (s.ok()) s = graph.WaitUntilDone();
    if (!s.ok()) return s;
    result.fps = frames.size() /
                 std::chrono::duration<double>(Clock::now() - t0).count();
  }
  return result;
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (absl::StartsWith(a, "--frames=")) {
      if (!absl::SimpleAtoi(a.substr(9), &flags.frames) || flags.frames < 10) {
        std::fprintf(stderr, "--frames needs a count >= 10\n");
        return 2;
      }
    } else if (absl::StartsWith(a, "--graph=")) {
      flags.graph = a.substr(8);
    } else if (absl::StartsWith(a, "--video=")) {
      flags.video = a.substr(8);
    } else {
      std::fprintf(stderr,
                   "usage: face_detection_pipeline [--frames=N] [--graph=G] "
                   "[--video=V]\n");
      return 2;
    }
  }
  AddSubgraphSearchPath("graphs/face_detection");
  auto config = LoadGraphConfigFile(flags.graph);
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", std::string(config.status().message()).c_str());
    return 1;
  }
  const std::vector<cv::Mat> frames = LoadFrames(flags);
  if (frames.empty()) {
    std::fprintf(stderr, "cannot read frames from %s\n", flags.video.c_str());
    return 1;
  }
  std::printf("# face detection pipeline: %s, %zu frames of 640x480 from %s\n\n",
              flags.graph.c_str(), frames.size(), flags.video.c_str());
  std::printf("| threads | latency p50 ms | latency p99 ms | detections p50 ms | detections p99 ms | "
              "throughput frames/s | faces found |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  std::map<int, Result> results;
  for (int threads : {1, 2}) {
    auto r = RunOnce(*config, frames, threads);
    if (!r.ok()) {
      std::fprintf(stderr, "run failed: %s\n", std::string(r.status().message()).c_str());
      return 1;
    }
    results[threads] = *r;
    std::printf("| %d | %.2f | %.2f | %.2f | %.2f | %.1f | %lld |\n", threads, r->p50_ms, r->p99_ms,
                r->detections_p50_ms, r->detections_p99_ms, r->fps, static_cast<long long>(r->faces));
  }
  std::printf("\nTime per frame by calculator (mean Process(), one frame in flight):\n\n");
  std::printf("| node | calculator | 1 thread µs | 2 threads µs |\n|---|---|---:|---:|\n");
  const auto& s1 = results[1].stats;
  const auto& s2 = results[2].stats;
  double total1 = 0, total2 = 0;
  for (size_t i = 0; i < s1.size() && i < s2.size(); ++i) {
    if (s1[i].process_count == 0 || absl::StartsWith(s1[i].node_name, "__sink")) continue;
    const double m1 = s1[i].total_process_ns / 1e3 / s1[i].process_count;
    const double m2 = s2[i].process_count ? s2[i].total_process_ns / 1e3 / s2[i].process_count : 0;
    total1 += m1;
    total2 += m2;
    std::printf("| %s | %s | %.1f | %.1f |\n", s1[i].node_name.c_str(),
                s1[i].calculator.c_str(), m1, m2);
  }
  std::printf("| **sum** | | %.1f | %.1f |\n", total1, total2);
  return 0;
}

}  // namespace
}  // namespace bench
}  // namespace rill

int main(int argc, char** argv) { return rill::bench::Main(argc, argv); }
