// One graph, two processors at once: face detection's model on the GPU
// (MediaPipe's gpu delegate -> the OpenCL backend) and selfie segmentation's
// on the CPU, both fed every frame of a video. The detections match the
// all-CPU graph's, the masks are the CPU's, and the profiler's trace shows
// the two inference nodes running at the same time. PoCL stands in for the
// GPU in CI; without an OpenCL device this fails under CI=true and skips
// loudly elsewhere.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/graph.h"
#include "framework/profiler/graph_profiler.h"
#include "framework/status_util.h"
#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/solutions/solution_test_util.h"

namespace rill {
namespace {

using solutions::FileExists;
using solutions::MediaPath;
using solutions::ModelPath;

struct Result {
  std::vector<std::vector<Detection>> detections;
  std::vector<Packet> masks;
  // Process calls of the face model that overlapped one of the selfie
  // model's in time (any frames: the graph pipelines frames).
  int overlapping = 0;
};

absl::StatusOr<Result> RunPipeline(const std::string& video, bool gpu) {
  const std::string delegate = gpu ? "delegate { gpu {} }" : "";
  auto config = ParseGraphConfig(R"pb(
    input_side_packet: "video_path"
    output_stream: "detections"
    output_stream: "mask"
    num_threads: 4
    profiler_config { trace_enabled: true }
    node {
      calculator: "OpenCvVideoDecoderCalculator"
      input_side_packet: "INPUT_FILE_PATH:video_path"
      output_stream: "VIDEO:frames"
    }
    node {
      name: "faces"
      calculator: "FaceDetectionShortRangeCpu"
      input_stream: "IMAGE:frames"
      output_stream: "DETECTIONS:detections"
      node_options: { [type.googleapis.com/mediapipe.FaceDetectionOptions] { )pb" +
                                 delegate + R"pb( } }
    }
    node {
      name: "selfie"
      calculator: "SelfieSegmentationCpu"
      input_stream: "IMAGE:frames"
      output_stream: "SEGMENTATION_MASK:mask"
    })pb");
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  RILL_RETURN_IF_ERROR(graph.Initialize(*config));
  Result r;
  RILL_RETURN_IF_ERROR(graph.ObserveOutputStream("detections", [&](const Packet& p) {
    r.detections.push_back(p.Get<std::vector<Detection>>());
    return absl::OkStatus();
  }));
  RILL_RETURN_IF_ERROR(graph.ObserveOutputStream("mask", [&](const Packet& p) {
    r.masks.push_back(p);
    return absl::OkStatus();
  }));
  RILL_RETURN_IF_ERROR(graph.Run({{"video_path", MakePacket<std::string>(video)}}));
  // The two InferenceCalculator nodes (inside the subgraphs "faces" and
  // "selfie"): their Process intervals.
  std::vector<std::pair<int64_t, int64_t>> face, selfie;
  for (const TraceEvent& e : graph.Profiler()->Trace()) {
    const std::string name = graph.Profiler()->NodeName(e.node);
    if (e.kind != TraceEvent::kProcess || name.find("inference") == std::string::npos) continue;
    (name.rfind("faces", 0) == 0 ? face : selfie).emplace_back(e.start_ns, e.end_ns);
  }
  for (const auto& [s0, e0] : face) {
    for (const auto& [s1, e1] : selfie) {
      if (s0 < e1 && s1 < e0) {
        ++r.overlapping;
        break;
      }
    }
  }
  std::printf("%s: %zu face and %zu selfie inference calls\n", gpu ? "GPU + CPU" : "CPU", face.size(), selfie.size());
  return r;
}

TEST(HeterogeneousPipelineTest, FacesOnTheGpuSelfieOnTheCpuAtOnce) {
  const std::string video = MediaPath("Megamind.avi");
  for (const std::string& f : {video, ModelPath("face_detection_short_range.tflite"),
                               ModelPath("selfie_segmentation.tflite")}) {
    if (!FileExists(f)) GTEST_SKIP() << f << " is missing: run scripts/fetch_models.sh";
  }
  inference::SessionConfig opencl;
  opencl.backend = "opencl";
  auto probe = inference::Model::FromFile(ModelPath("face_detection_short_range.tflite"));
  ASSERT_TRUE(probe.ok());
  if (!inference::Session::Create(*probe, opencl).ok()) {
    if (std::getenv("CI")) FAIL() << "no OpenCL device in CI (scripts/setup.sh installs PoCL)";
    GTEST_SKIP() << "NO OPENCL DEVICE: the GPU + CPU pipeline is NOT tested here";
  }
  solutions::UseGraphs({"face_detection", "selfie_segmentation"});
  auto cpu = RunPipeline(video, false);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto mixed = RunPipeline(video, true);
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  ASSERT_GT(cpu->detections.size(), 100u);
  ASSERT_EQ(mixed->detections.size(), cpu->detections.size());
  ASSERT_EQ(mixed->masks.size(), cpu->masks.size());
  int faces = 0;
  for (size_t i = 0; i < cpu->detections.size(); ++i) {
    const auto& a = mixed->detections[i];
    const auto& b = cpu->detections[i];
    ASSERT_EQ(a.size(), b.size()) << "frame " << i;
    for (size_t k = 0; k < a.size(); ++k) {
      const auto& ba = a[k].location_data().relative_bounding_box();
      const auto& bb = b[k].location_data().relative_bounding_box();
      EXPECT_NEAR(ba.xmin(), bb.xmin(), 1e-3) << "frame " << i;
      EXPECT_NEAR(ba.ymin(), bb.ymin(), 1e-3) << "frame " << i;
      EXPECT_NEAR(ba.width(), bb.width(), 1e-3) << "frame " << i;
      EXPECT_NEAR(a[k].score(0), b[k].score(0), 1e-3) << "frame " << i;
      ++faces;
    }
  }
  EXPECT_GT(faces, 100);
  for (size_t i = 0; i < cpu->masks.size(); ++i) {
    const ImageFrame& a = mixed->masks[i].Get<ImageFrame>();
    const ImageFrame& b = cpu->masks[i].Get<ImageFrame>();
    ASSERT_EQ(a.Width(), b.Width());
    ASSERT_EQ(a.Height(), b.Height());
    ASSERT_EQ(a.WidthStep(), b.WidthStep());
    EXPECT_EQ(std::memcmp(a.PixelData(), b.PixelData(), static_cast<size_t>(a.WidthStep()) * a.Height()), 0)
        << "the mask (on the CPU in both graphs) differs at frame " << i;
  }
  std::printf("frames %zu, faces %d, face model calls overlapping a selfie model call: %d (all-CPU graph: %d)\n",
              cpu->detections.size(), faces, mixed->overlapping, cpu->overlapping);
  EXPECT_GT(mixed->overlapping, 0) << "the GPU and CPU models never ran at the same time";
}

}  // namespace
}  // namespace rill
