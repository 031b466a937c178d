// face_detection_benchmark: the short-range face detection graph
// (FaceDetectionShortRangeCpu: image-to-tensor, inference, decode, NMS,
// projection) on 640x480 frames already in memory (decode excluded), at 1
// and 2 engine threads. Prints per-frame latency p50/p99 (one frame in
// flight), throughput (frames pushed as fast as the graph takes them) and
// the time per calculator from the graph profiler.
//
//   bazel build -c opt //tests/solutions:face_detection_benchmark
//   bazel-bin/tests/solutions/face_detection_benchmark_frames
//   /tmp/megamind_640x480.rgb
//   bazel-bin/tests/solutions/face_detection_benchmark
//   [--raw=/tmp/megamind_640x480.rgb]
//       [--frames=300] [--threads=1,2]
//
// Run from the repository root (models in third_party/models, graphs in
// graphs/face_detection, the video in third_party/media/Megamind.avi).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <thread>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/graph.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/tool/subgraph_expansion.h"

namespace rill {
namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i =
      std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

std::string Config(int threads) {
  return R"pb(
           profiler_config { enable_profiler: true }
           input_stream: "image"
           output_stream: "detections"
           node { calculator: "FaceDetectionShortRangeCpu"
                  input_stream: "IMAGE:image"
                  output_stream: "DETECTIONS:detections"
                  node_options: {
                    [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                      delegate { xnnpack { num_threads:)pb" +
         std::to_string(threads) + R"pb(}
                                        }
        }
      }
    })pb";
}

int Run(int num_frames, const std::vector<int>& thread_counts,
        const std::string& raw_path) {
  AddSubgraphSearchPath("graphs/face_detection");
  std::vector<cv::Mat> frames;
  {
    // 640x480 RGB frames back to back (face_detection_benchmark_frames
    // writes them from Megamind.avi): the benchmark itself needs no video
    // I/O, so it bundles small enough to run on another machine.
    std::FILE* f = std::fopen(raw_path.c_str(), "rb");
    cv::Mat rgb(480, 640, CV_8UC3);
    while (f && static_cast<int>(frames.size()) < num_frames &&
           std::fread(rgb.data, 1, rgb.total() * 3, f) == rgb.total() * 3) {
      frames.push_back(rgb.clone());
    }
    if (f) std::fclose(f);
  }
  if (frames.empty()) {
    std::fprintf(stderr,
                 "no frames in %s: run face_detection_benchmark_frames first\n",
                 raw_path.c_str());
    return 1;
  }
  // Loop the clip to the requested count.
  for (size_t i = 0; static_cast<int>(frames.size()) < num_frames; ++i)
    frames.push_back(frames[i]);
  std::printf(
      "face detection short range, %zu frames of 640x480 (Megamind.avi), %d "
      "CPUs\n",
      frames.size(), static_cast<int>(std::thread::hardware_concurrency()));
  std::printf("%-8s %10s %10s %10s %12s\n", "threads", "p50 ms", "p99 ms",
              "mean ms", "frames/s");
  std::map<int, std::string> tables;
  for (int threads : thread_counts) {
    auto config = ParseGraphConfig(Config(threads));
    if (!config.ok()) {
      std::fprintf(stderr, "%s\n",
                   std::string(config.status().message()).c_str());
      return 1;
    }
    // Latency: one frame in flight, from AddPacket to the detections.
    std::vector<double> latency_ms;
    {
      CalculatorGraph graph;
      absl::Status s = graph.Initialize(*config);
      std::mutex mu;
      Clock::time_point done;
      int outputs = 0;
      if (s.ok()) {
        s = graph.ObserveOutputStream("detections", [&](const Packet&) {
          std::lock_guard<std::mutex> l(mu);
          done = Clock::now();
          ++outputs;
          return absl::OkStatus();
        });
      }
      if (s.ok()) s = graph.StartRun({});
      for (size_t i = 0; s.ok() && i < frames.size(); ++i) {
        ImageFrame* f =
            new ImageFrame(formats::FromMat(frames[i], ImageFormat::SRGB));
        const Clock::time_point t0 = Clock::now();
        s = graph.AddPacketToInputStream(
            "image", Adopt(f).At(Timestamp(static_cast<int64_t>(i) * 33333)));
        if (s.ok()) s = graph.WaitUntilIdle();
        std::lock_guard<std::mutex> l(mu);
        if (i >= 5)
          latency_ms.push_back(
              std::chrono::duration<double, std::milli>(done - t0).count());
      }
      if (s.ok()) s = graph.CloseAllInputStreams();
      if (s.ok()) s = graph.WaitUntilDone();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
        return 1;
      }
      tables[threads] = graph.Profiler()->StatsTable();
    }
    // Throughput: every frame pushed at once (the graph pipelines them).
    double fps = 0;
    {
      CalculatorGraph graph;
      absl::Status s = graph.Initialize(*config);
      if (s.ok())
        s = graph.ObserveOutputStream(
            "detections", [](const Packet&) { return absl::OkStatus(); });
      if (s.ok()) s = graph.StartRun({});
      std::vector<Packet> packets;
      for (size_t i = 0; i < frames.size(); ++i) {
        packets.push_back(Adopt(new ImageFrame(formats::FromMat(
                                    frames[i], ImageFormat::SRGB)))
                              .At(Timestamp(static_cast<int64_t>(i) * 33333)));
      }
      const Clock::time_point t0 = Clock::now();
      for (size_t i = 0; s.ok() && i < packets.size(); ++i)
        s = graph.AddPacketToInputStream("image", packets[i]);
      if (s.ok()) s = graph.CloseAllInputStreams();
      if (s.ok()) s = graph.WaitUntilDone();
      const double secs =
          std::chrono::duration<double>(Clock::now() - t0).count();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
        return 1;
      }
      fps = packets.size() / secs;
    }
    double mean = 0;
    for (double v : latency_ms) mean += v;
    mean /= std::max<size_t>(1, latency_ms.size());
    std::printf("%-8d %10.3f %10.3f %10.3f %12.1f\n", threads,
                Percentile(latency_ms, 0.5), Percentile(latency_ms, 0.99), mean,
                fps);
  }
  for (const auto& [threads, table] : tables) {
    std::printf("\nper calculator, %d thread(s), one frame in flight:\n%s",
                threads, table.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace rill

int main(int argc, char** argv) {
  int frames = 300;
  std::vector<int> threads = {1, 2};
  std::string raw = "/tmp/megamind_640x480.rgb";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--raw=", 6) == 0) raw = argv[i] + 6;
    if (std::strncmp(argv[i], "--frames=", 9) == 0)
      frames = std::atoi(argv[i] + 9);
    if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads.clear();
      for (const char* p = argv[i] + 10; *p;) {
        threads.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    }
  }
  return rill::Run(frames, threads, raw);
}
