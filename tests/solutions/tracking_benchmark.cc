// tracking_benchmark: MediaPipe's tracking solutions on video frames already
// in memory (decode excluded), at 1 and 2 engine threads. For each solution
// it prints per-frame latency p50/p99 with one frame in flight, split into
// tracking frames (landmarks from the previous frame's region, no detector)
// and detection frames (USE_PREV_LANDMARKS false: the detector runs on every
// frame), the throughput with every frame pushed at once, where a frame's
// time goes (models, ImageToTensor, other calculators, the scheduler) for
// both kinds of frame, and with --stats the time per calculator from the
// graph profiler (tracking and detection runs).
//
//   bazel build //tests/solutions:tracking_benchmark
//   bazel-bin/tests/solutions/tracking_benchmark [--frames=150]
//       [--threads=1,2] [--solutions=hands,hands_lite,face_mesh,
//        face_mesh_attention,pose,pose_segmentation,holistic] [--stats]
//
// Run from the repository root (models in third_party/models, graphs in
// graphs/, media in third_party/media). Inputs: hands on messi5.jpg (his
// outstretched hand; the test videos show no hands large enough), face mesh
// on Megamind.avi, pose on Megamind.avi (vtest.avi's pedestrians are too
// small for the pose detector). Every InferenceCalculator of the
// expanded graph gets the thread count (xnnpack.num_threads).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "calculators/core/test_util.h"
#include "calculators/inference/inference_calculator.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/graph.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/tool/subgraph_expansion.h"

namespace rill {
namespace {

using Clock = std::chrono::steady_clock;

struct Solution {
  std::string name;
  std::string subgraph;     // the tracking subgraph's type
  std::string output_tag;   // landmarks output
  std::string media;        // third_party/media file
  std::map<std::string, Packet> side_packets;  // by tag
  std::string describe;
};

std::vector<Solution> Solutions() {
  return {
      {"hands", "HandLandmarkTrackingCpu", "LANDMARKS", "messi5.jpg",
       {{"NUM_HANDS", MakePacket<int>(1)}, {"MODEL_COMPLEXITY", MakePacket<int>(1)}},
       "hand tracking, full models, 1 hand, messi5.jpg 548x342"},
      {"hands_lite", "HandLandmarkTrackingCpu", "LANDMARKS", "messi5.jpg",
       {{"NUM_HANDS", MakePacket<int>(1)}, {"MODEL_COMPLEXITY", MakePacket<int>(0)}},
       "hand tracking, lite models, 1 hand, messi5.jpg 548x342"},
      {"face_mesh", "FaceLandmarkFrontCpu", "LANDMARKS", "Megamind.avi",
       {{"NUM_FACES", MakePacket<int>(1)}, {"WITH_ATTENTION", MakePacket<bool>(false)}},
       "face mesh, 468 landmarks, 1 face, Megamind.avi 720x528"},
      {"face_mesh_attention", "FaceLandmarkFrontCpu", "LANDMARKS", "Megamind.avi",
       {{"NUM_FACES", MakePacket<int>(1)}, {"WITH_ATTENTION", MakePacket<bool>(true)}},
       "face mesh with attention (irises), 478 landmarks, 1 face, Megamind.avi 720x528"},
      {"pose", "PoseLandmarkCpu", "LANDMARKS", "Megamind.avi",
       {{"MODEL_COMPLEXITY", MakePacket<int>(1)}},
       "pose tracking, full model, Megamind.avi 720x528"},
      {"pose_segmentation", "PoseLandmarkCpu", "LANDMARKS", "Megamind.avi",
       {{"MODEL_COMPLEXITY", MakePacket<int>(1)},
        {"ENABLE_SEGMENTATION", MakePacket<bool>(true)}},
       "pose tracking with segmentation, full model, Megamind.avi 720x528"},
      {"holistic", "HolisticLandmarkCpu", "POSE_LANDMARKS", "Megamind.avi",
       {{"MODEL_COMPLEXITY", MakePacket<int>(1)}},
       "holistic (pose, both hands, face mesh), full pose model, Megamind.avi 720x528"},
  };
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

std::vector<cv::Mat> LoadFrames(const std::string& media, int n) {
  std::vector<cv::Mat> frames;
  const std::string path = "third_party/media/" + media;
  cv::Mat bgr, rgb;
  if (media.size() > 4 && media.substr(media.size() - 4) == ".avi") {
    cv::VideoCapture cap(path);
    while (static_cast<int>(frames.size()) < n && cap.read(bgr)) {
      cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
      frames.push_back(rgb.clone());
    }
  } else {
    bgr = cv::imread(path, cv::IMREAD_COLOR);
    if (!bgr.empty()) {
      cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
      frames.push_back(rgb);
    }
  }
  for (size_t i = 0; !frames.empty() && static_cast<int>(frames.size()) < n; ++i)
    frames.push_back(frames[i]);
  return frames;
}

// A side packet's name: its tag in lower case.
std::string SideName(const std::string& tag) {
  std::string name = tag;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// The solution's graph, expanded, with every InferenceCalculator on
// `threads` threads.
absl::StatusOr<CalculatorGraphConfig> Config(const Solution& s, int threads) {
  std::string text = "profiler_config { enable_profiler: true }\n"
                     "input_stream: \"image\"\noutput_stream: \"landmarks\"\n";
  std::string node = "node { calculator: \"" + s.subgraph +
                     "\" input_stream: \"IMAGE:image\" output_stream: \"" +
                     s.output_tag + ":landmarks\"\n";
  for (const auto& [tag, p] : s.side_packets) {
    text += "input_side_packet: \"" + SideName(tag) + "\"\n";
    node += "  input_side_packet: \"" + tag + ":" + SideName(tag) + "\"\n";
  }
  text += "input_side_packet: \"use_prev_landmarks\"\n";
  node += "  input_side_packet: \"USE_PREV_LANDMARKS:use_prev_landmarks\"\n";
  auto config = ParseGraphConfig(text + node + "}\n");
  if (!config.ok()) return config.status();
  absl::Status st = ExpandSubgraphs(&*config);
  if (!st.ok()) return st;
  for (auto& n : *config->mutable_node()) {
    if (n.calculator() != "InferenceCalculator") continue;
    n.mutable_options()
        ->MutableExtension(InferenceCalculatorOptions::ext)
        ->mutable_delegate()
        ->mutable_xnnpack()
        ->set_num_threads(threads);
  }
  return config;
}

std::map<std::string, Packet> Sides(const Solution& s, bool use_prev) {
  std::map<std::string, Packet> sides;
  for (const auto& [tag, p] : s.side_packets) sides[SideName(tag)] = p;
  sides["use_prev_landmarks"] = MakePacket<bool>(use_prev);
  return sides;
}

// Where a frame's time goes, mean ms per timed frame, from the profiler's
// per-calculator totals. Nodes inside a detector subgraph (their expanded
// name holds palm_detection, face_detection or pose_detection: the detector
// and its detection -> region nodes) count as the detector (holistic's face
// detector on the pose's face region runs on every frame); every
// InferenceCalculator and ImageToTensorCalculator outside them as the
// landmark side. `outside`
// is the frame's mean latency less every Process() call: the scheduler,
// thread wake-ups and waiting.
struct Breakdown {
  double frame = 0;      // mean latency
  double det_model = 0;  // detector InferenceCalculators
  double det_rest = 0;   // its other nodes (ImageToTensor, decoding, ...)
  double lm_model = 0;   // landmark (and re-crop) InferenceCalculators
  double lm_i2t = 0;     // their ImageToTensorCalculators
  double other = 0;      // every other calculator
  double outside = 0;
};

Breakdown Split(const std::vector<CalculatorStats>& stats,
                const std::vector<double>& ms) {
  Breakdown b;
  if (ms.empty()) return b;
  for (double m : ms) b.frame += m;
  b.frame /= ms.size();
  double total = 0;
  for (const CalculatorStats& c : stats) {
    if (c.node_name.rfind("__sink", 0) == 0) continue;
    const double per_frame = c.total_process_ns * 1e-6 / ms.size();
    total += per_frame;
    const bool detector =
        c.node_name.find("palm_detection") != std::string::npos ||
        c.node_name.find("face_detection") != std::string::npos ||
        c.node_name.find("pose_detection") != std::string::npos;
    if (detector) {
      (c.calculator == "InferenceCalculator" ? b.det_model : b.det_rest) +=
          per_frame;
    } else if (c.calculator == "InferenceCalculator") {
      b.lm_model += per_frame;
    } else if (c.calculator == "ImageToTensorCalculator") {
      b.lm_i2t += per_frame;
    } else {
      b.other += per_frame;
    }
  }
  b.outside = b.frame - total;
  return b;
}

struct Latency {
  std::vector<double> ms;
  std::string table;
  Breakdown split;
  int with_landmarks = 0;
};

// One frame in flight: AddPacket, then wait until the graph is idle.
absl::StatusOr<Latency> MeasureLatency(const Solution& s, int threads, bool use_prev,
                                       const std::vector<cv::Mat>& frames) {
  auto config = Config(s, threads);
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  absl::Status st = graph.Initialize(*config);
  Latency out;
  std::mutex mu;
  if (st.ok()) {
    st = graph.ObserveOutputStream("landmarks", [&](const Packet&) {
      std::lock_guard<std::mutex> l(mu);
      ++out.with_landmarks;
      return absl::OkStatus();
    });
  }
  if (st.ok()) st = graph.StartRun(Sides(s, use_prev));
  for (size_t i = 0; st.ok() && i < frames.size(); ++i) {
    ImageFrame* f = new ImageFrame(formats::FromMat(frames[i], ImageFormat::SRGB));
    const Clock::time_point t0 = Clock::now();
    st = graph.AddPacketToInputStream("image",
                                      Adopt(f).At(Timestamp(static_cast<int64_t>(i) * 33333)));
    if (st.ok()) st = graph.WaitUntilIdle();
    // The first frames load caches and, when tracking, detect.
    // The profiler's totals then cover the timed frames only.
    if (i >= 5) out.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (i == 4) graph.Profiler()->Reset();
  }
  if (st.ok()) {
    out.table = graph.Profiler()->StatsTable();
    out.split = Split(graph.Profiler()->Stats(), out.ms);
  }
  if (st.ok()) st = graph.CloseAllInputStreams();
  if (st.ok()) st = graph.WaitUntilDone();
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<double> MeasureThroughput(const Solution& s, int threads,
                                         const std::vector<cv::Mat>& frames) {
  auto config = Config(s, threads);
  if (!config.ok()) return config.status();
  config->mutable_profiler_config()->set_enable_profiler(false);
  CalculatorGraph graph;
  absl::Status st = graph.Initialize(*config);
  if (st.ok())
    st = graph.ObserveOutputStream("landmarks", [](const Packet&) { return absl::OkStatus(); });
  if (st.ok()) st = graph.StartRun(Sides(s, true));
  std::vector<Packet> packets;
  for (size_t i = 0; i < frames.size(); ++i) {
    packets.push_back(Adopt(new ImageFrame(formats::FromMat(frames[i], ImageFormat::SRGB)))
                          .At(Timestamp(static_cast<int64_t>(i) * 33333)));
  }
  const Clock::time_point t0 = Clock::now();
  for (size_t i = 0; st.ok() && i < packets.size(); ++i)
    st = graph.AddPacketToInputStream("image", packets[i]);
  if (st.ok()) st = graph.CloseAllInputStreams();
  if (st.ok()) st = graph.WaitUntilDone();
  if (!st.ok()) return st;
  return packets.size() / std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string CpuModel() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  char line[512];
  std::string model = "unknown CPU";
  while (f && std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "model name", 10) == 0) {
      const char* colon = std::strchr(line, ':');
      if (colon) model = std::string(colon + 2);
      if (!model.empty() && model.back() == '\n') model.pop_back();
      break;
    }
  }
  if (f) std::fclose(f);
  return model;
}

int Run(int num_frames, const std::vector<int>& thread_counts,
        const std::vector<std::string>& wanted, bool stats) {
  for (const char* d : {"graphs/hand_landmark", "graphs/palm_detection", "graphs/face_landmark",
                        "graphs/face_detection", "graphs/pose_landmark", "graphs/pose_detection",
                        "graphs/holistic_landmark"}) {
    AddSubgraphSearchPath(d);
  }
  std::printf("%s, %u CPUs, %d frames per run (first 5 not timed)\n\n", CpuModel().c_str(),
              std::thread::hardware_concurrency(), num_frames);
  std::printf("| solution | threads | tracking p50 ms | tracking p99 ms | detection p50 ms | "
              "detection p99 ms | detect/track | frames/s |\n|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> tables;
  std::string split_rows;
  for (const Solution& s : Solutions()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), s.name) == wanted.end()) continue;
    const std::vector<cv::Mat> frames = LoadFrames(s.media, num_frames);
    if (frames.empty()) {
      std::fprintf(stderr, "%s: cannot read third_party/media/%s (scripts/fetch_models.sh)\n",
                   s.name.c_str(), s.media.c_str());
      return 1;
    }
    for (int threads : thread_counts) {
      auto track = MeasureLatency(s, threads, true, frames);
      auto detect = track.ok() ? MeasureLatency(s, threads, false, frames) : track;
      auto fps = detect.ok() ? MeasureThroughput(s, threads, frames) : absl::StatusOr<double>(detect.status());
      if (!fps.ok()) {
        std::fprintf(stderr, "%s: %s\n", s.name.c_str(), std::string(fps.status().message()).c_str());
        return 1;
      }
      const double t50 = Percentile(track->ms, 0.5), d50 = Percentile(detect->ms, 0.5);
      std::printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2fx | %.1f |\n", s.name.c_str(),
                  threads, t50, Percentile(track->ms, 0.99), d50, Percentile(detect->ms, 0.99),
                  t50 > 0 ? d50 / t50 : 0, *fps);
      if (track->with_landmarks < num_frames * 9 / 10) {
        std::printf("|   (landmarks on only %d of %d tracking frames) | | | | | | | |\n",
                    track->with_landmarks, num_frames);
      }
      for (const auto* l : {&*track, &*detect}) {
        const Breakdown& b = l->split;
        char row[512];
        std::snprintf(row, sizeof row,
                      "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | "
                      "%.2f | %.2f |\n",
                      s.name.c_str(), threads,
                      l == &*track ? "tracking" : "detection", b.frame,
                      b.det_model, b.det_rest, b.lm_model, b.lm_i2t, b.other,
                      b.outside);
        split_rows += row;
      }
      // detect/track if frames cost their models only: the ratio's ceiling.
      const Breakdown& bt = track->split;
      const Breakdown& bd = detect->split;
      char row[256];
      std::snprintf(
          row, sizeof row,
          "| %s | %d | models only: detect/track %.2fx | | | | | | | |\n",
          s.name.c_str(), threads,
          bt.lm_model + bt.det_model > 0
              ? (bd.det_model + bd.lm_model) / (bt.lm_model + bt.det_model)
              : 0);
      split_rows += row;
      if (stats) {
        tables.push_back(s.describe + ", " + std::to_string(threads) +
                         " thread(s), tracking, per calculator:\n" + track->table);
        tables.push_back(s.describe + ", " + std::to_string(threads) +
                         " thread(s), detection, per calculator:\n" +
                         detect->table);
      }
    }
  }
  std::printf(
      "\nWhere a frame's time goes (mean ms per frame; detector: the nodes of "
      "the detector "
      "subgraphs; outside: the frame's latency less every calculator's "
      "Process):\n\n"
      "| solution | threads | frames | mean | detector models | detector rest "
      "| "
      "landmark models | landmark ImageToTensor | other calculators | outside "
      "calculators |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n%s",
      split_rows.c_str());
  std::printf("\nInputs:\n");
  for (const Solution& s : Solutions()) {
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), s.name) != wanted.end())
      std::printf("  %s: %s\n", s.name.c_str(), s.describe.c_str());
  }
  for (const std::string& t : tables) std::printf("\n%s", t.c_str());
  return 0;
}

}  // namespace
}  // namespace rill

int main(int argc, char** argv) {
  int frames = 150;
  std::vector<int> threads = {1, 2};
  std::vector<std::string> solutions;
  bool stats = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--frames=", 0) == 0) {
      frames = std::atoi(a.c_str() + 9);
    } else if (a.rfind("--threads=", 0) == 0) {
      threads.clear();
      for (absl::string_view t : absl::StrSplit(a.substr(10), ',')) threads.push_back(std::atoi(std::string(t).c_str()));
    } else if (a.rfind("--solutions=", 0) == 0) {
      for (absl::string_view t : absl::StrSplit(a.substr(12), ',')) solutions.emplace_back(t);
    } else if (a == "--stats") {
      stats = true;
    } else {
      std::fprintf(stderr, "tracking_benchmark: unknown flag %s\n", a.c_str());
      return 1;
    }
  }
  if (frames < 10) {
    std::fprintf(stderr, "tracking_benchmark: --frames must be at least 10\n");
    return 1;
  }
  return rill::Run(frames, threads, solutions, stats);
}
