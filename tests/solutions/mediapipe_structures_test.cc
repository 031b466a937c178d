// Graphs the project writes itself with the structures MediaPipe's own
// module files use (issue 20): options handed through three levels of
// subgraphs (OPTIONS:options, node_options merged with what the caller
// passes), every option_value form, a model-loader subgraph feeding the
// model as a side packet, model paths in MediaPipe's repository layout found
// under a resource root, and a broken module file on the subgraph path. The
// modules live in tests/solutions/testdata/mediapipe_structures; the
// detections they give are checked against Rill's own face detection module
// (graphs/face_detection) on the same image.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame.h"
#include "framework/graph.h"
#include "framework/tool/config_loader.h"
#include "framework/tool/subgraph_expansion.h"
#include "gtest/gtest.h"
#include "tests/solutions/solution_test_util.h"

namespace rill {
namespace {

using solutions::FileExists;
using solutions::LoadRgb;
using solutions::MediaPath;
using solutions::ModelPath;

constexpr char kModules[] = "tests/solutions/testdata/mediapipe_structures";
constexpr char kMediaPipeModelPath[] =
    "mediapipe/modules/face_detection/face_detection_short_range.tflite";

#define SKIP_IF_MISSING(path) \
  RILL_REQUIRE(FileExists(path), path << " is missing: run scripts/fetch_models.sh")

// A graph running one face detection module on IMAGE; `node_options` goes
// into the module's node.
std::string DetectorGraph(const std::string& module,
                          const std::string& node_options = "") {
  return "input_stream: \"image\"\noutput_stream: \"detections\"\n"
         "node { calculator: \"" + module + "\" input_stream: \"IMAGE:image\" "
         "output_stream: \"DETECTIONS:detections\" " + node_options + " }\n";
}

struct DetectRun {
  absl::Status status;
  std::vector<Detection> detections;
};

// Runs `config_text` on one image; `roots` (when not empty) replaces the
// graph's resource roots.
DetectRun Detect(const std::string& config_text, const std::string& image,
           const std::vector<std::string>& roots = {}) {
  DetectRun run;
  auto config = ParseGraphConfigText(config_text);
  if (!config.ok()) {
    run.status = config.status();
    return run;
  }
  CalculatorGraph graph;
  if (!roots.empty()) graph.SetResourceRoots(roots);
  run.status = graph.Initialize(*config);
  if (run.status.ok()) {
    run.status = graph.ObserveOutputStream("detections", [&](const Packet& p) {
      run.detections = p.Get<std::vector<Detection>>();
      return absl::OkStatus();
    });
  }
  if (run.status.ok()) run.status = graph.StartRun();
  if (run.status.ok()) {
    ImageFrame frame = LoadRgb(image);
    run.status = graph.AddPacketToInputStream(
        "image", MakePacket<ImageFrame>(std::move(frame)).At(Timestamp(0)));
  }
  if (run.status.ok()) run.status = graph.CloseAllInputStreams();
  const absl::Status done = graph.WaitUntilDone();
  if (run.status.ok()) run.status = done;
  return run;
}

class MediaPipeStructuresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AddSubgraphSearchPath(kModules);
    solutions::UseGraphs({"face_detection"});
    // A resource root laid out as MediaPipe's repository names the model.
    root_ = ::testing::TempDir();
    while (!root_.empty() && root_.back() == '/') root_.pop_back();
    root_ += "/mediapipe_root";
    const std::string dir = root_ + "/mediapipe/modules/face_detection";
    ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
    char cwd[4096];
    ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
    const std::string target = std::string(cwd) + "/" + ModelPath("face_detection_short_range.tflite");
    unlink((root_ + "/" + kMediaPipeModelPath).c_str());
    ASSERT_EQ(symlink(target.c_str(), (root_ + "/" + kMediaPipeModelPath).c_str()), 0);
  }
  std::string root_;
};

void ExpectSameDetections(const std::vector<Detection>& got,
                          const std::vector<Detection>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].score(0), want[i].score(0));
    const auto& a = got[i].location_data().relative_bounding_box();
    const auto& b = want[i].location_data().relative_bounding_box();
    EXPECT_EQ(a.xmin(), b.xmin());
    EXPECT_EQ(a.ymin(), b.ymin());
    EXPECT_EQ(a.width(), b.width());
    EXPECT_EQ(a.height(), b.height());
    ASSERT_EQ(got[i].location_data().relative_keypoints_size(),
              want[i].location_data().relative_keypoints_size());
    for (int k = 0; k < got[i].location_data().relative_keypoints_size(); ++k) {
      EXPECT_EQ(got[i].location_data().relative_keypoints(k).x(),
                want[i].location_data().relative_keypoints(k).x());
      EXPECT_EQ(got[i].location_data().relative_keypoints(k).y(),
                want[i].location_data().relative_keypoints(k).y());
    }
  }
}

// Three levels, a model loader and a MediaPipe-layout model path give the
// detections of Rill's own module (whose model path is the repository's).
TEST_F(MediaPipeStructuresTest, ThreeLevelsAndAModelLoaderMatchRillsOwnModule) {
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  const std::string image = MediaPath("astronaut.png");
  DetectRun compat = Detect(DetectorGraph("CompatFaceDetectionCpu"), image, {root_});
  ASSERT_TRUE(compat.status.ok()) << compat.status;
  DetectRun own = Detect(DetectorGraph("FaceDetectionShortRange"), image);
  ASSERT_TRUE(own.status.ok()) << own.status;
  ASSERT_EQ(own.detections.size(), 1u);  // the astronaut's face
  ExpectSameDetections(compat.detections, own.detections);
}

// Options the caller gives at level 1 travel through level 2's node_options
// (the caller wins) to level 3's Ext:: binding: a score threshold above the
// face's score leaves no detection; one below keeps it.
TEST_F(MediaPipeStructuresTest, CallersOptionsWinThroughThreeLevels) {
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  const std::string image = MediaPath("astronaut.png");
  DetectRun base = Detect(DetectorGraph("CompatFaceDetectionCpu"), image, {root_});
  ASSERT_TRUE(base.status.ok()) << base.status;
  ASSERT_EQ(base.detections.size(), 1u);
  const float score = base.detections[0].score(0);
  ASSERT_GT(score, 0.5f);
  ASSERT_LT(score, 0.999f);
  auto with_threshold = [&](float t) {
    return DetectorGraph(
        "CompatFaceDetectionCpu",
        "node_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] { min_score_thresh: " +
            std::to_string(t) + " } }");
  };
  DetectRun above = Detect(with_threshold(std::min(0.999f, score + 0.001f)), image, {root_});
  ASSERT_TRUE(above.status.ok()) << above.status;
  EXPECT_TRUE(above.detections.empty());
  DetectRun below = Detect(with_threshold(score - 0.01f), image, {root_});
  ASSERT_TRUE(below.status.ok()) << below.status;
  // The face stays; its box moves a little, as weighted NMS now averages
  // fewer candidate boxes (only those above the higher threshold).
  ASSERT_EQ(below.detections.size(), 1u);
  const auto& a = below.detections[0].location_data().relative_bounding_box();
  const auto& b = base.detections[0].location_data().relative_bounding_box();
  EXPECT_NEAR(a.xmin(), b.xmin(), 0.01);
  EXPECT_NEAR(a.ymin(), b.ymin(), 0.01);
  EXPECT_NEAR(a.width(), b.width(), 0.01);
}

// The model-loader's path comes from the caller: a model_path given at
// level 1 replaces level 2's, and a missing file is reported with every
// place looked in.
TEST_F(MediaPipeStructuresTest, MissingModelNamesEveryPlaceLookedIn) {
  DetectRun run = Detect(
      DetectorGraph("CompatFaceDetectionCpu",
                    "node_options { [type.googleapis.com/mediapipe.FaceDetectionOptions] { "
                    "model_path: \"mediapipe/modules/face_detection/no_such_model.tflite\" } }"),
      MediaPath("astronaut.png"), {root_, "/nonexistent_root"});
  ASSERT_FALSE(run.status.ok());
  const std::string m(run.status.message());
  EXPECT_NE(m.find("mediapipe/modules/face_detection/no_such_model.tflite"), std::string::npos) << m;
  EXPECT_NE(m.find(root_), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent_root"), std::string::npos) << m;
}

// A module file on the path that declares its type but does not parse: the
// graph that uses the type gets that file's error, with its line.
TEST_F(MediaPipeStructuresTest, BrokenModuleFileIsReportedWithItsOwnError) {
  AddSubgraphSearchPath(std::string(kModules) + "/broken");
  auto config = ParseGraphConfigText(
      "input_stream: \"image\"\n"
      "node { calculator: \"CompatBrokenModule\" input_stream: \"IMAGE:image\" }\n");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  const absl::Status s = graph.Initialize(*config);
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_NE(m.find("compat_broken_module.pbtxt"), std::string::npos) << m;
  EXPECT_EQ(m.find("no calculator named"), std::string::npos) << m;
}

}  // namespace
}  // namespace rill
