// End to end: the face detection graphs (graphs/face_detection) on real
// images, through the graph runtime, subgraph expansion and option_value, the
// engine, and the detection calculators.
#include <cstdio>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/rect.pb.h"
#include "gtest/gtest.h"
#include "tests/solutions/solution_test_util.h"

namespace rill {
namespace {

using solutions::FileExists;
using solutions::LoadRgb;
using solutions::MediaPath;
using solutions::ModelPath;

#define SKIP_IF_MISSING(path) \
  if (!FileExists(path)) GTEST_SKIP() << path << " is missing: run scripts/fetch_models.sh"

std::string DetectorGraph(const std::string& subgraph, const std::string& extra = "") {
  return R"pb(
    input_stream: "image"
    output_stream: "detections"
    node {
      calculator: ")pb" + subgraph + R"pb("
      input_stream: "IMAGE:image"
      output_stream: "DETECTIONS:detections"
      )pb" + extra + R"pb(
    })pb";
}

void PrintDetections(const std::vector<Detection>& faces) {
  for (const Detection& d : faces) {
    const auto& b = d.location_data().relative_bounding_box();
    std::printf("face score %.4f box xmin %.4f ymin %.4f w %.4f h %.4f\n", d.score(0), b.xmin(),
                b.ymin(), b.width(), b.height());
    for (const auto& k : d.location_data().relative_keypoints()) {
      std::printf("  keypoint %.4f %.4f\n", k.x(), k.y());
    }
  }
}

void SaveAnnotated(const std::string& image_path, const std::vector<Detection>& faces,
                   const std::string& name) {
  cv::Mat bgr = cv::imread(image_path, cv::IMREAD_COLOR);
  solutions::DrawDetections(faces, &bgr);
  cv::imwrite(solutions::OutputDir() + "/" + name, bgr);
}

class FaceDetectionGraphTest : public ::testing::Test {
 protected:
  void SetUp() override { solutions::UseGraphs({"face_detection"}); }
};

// Expected faces, as read off the annotated outputs (written to
// test.outputs/) and checked by eye.
struct ExpectedFace {
  float xmin, ymin, width, height;
  std::vector<std::pair<float, float>> keypoints;  // empty: not checked
};

void ExpectFace(const Detection& d, const ExpectedFace& e, float tol) {
  const auto& b = d.location_data().relative_bounding_box();
  EXPECT_NEAR(b.xmin(), e.xmin, tol);
  EXPECT_NEAR(b.ymin(), e.ymin, tol);
  EXPECT_NEAR(b.width(), e.width, tol);
  EXPECT_NEAR(b.height(), e.height, tol);
  if (e.keypoints.empty()) return;
  ASSERT_EQ(d.location_data().relative_keypoints_size(), 6);
  for (int k = 0; k < 6; ++k) {
    const auto& kp = d.location_data().relative_keypoints(k);
    EXPECT_NEAR(kp.x(), e.keypoints[k].first, tol) << "keypoint " << k;
    EXPECT_NEAR(kp.y(), e.keypoints[k].second, tol) << "keypoint " << k;
  }
}

// The astronaut portrait (skimage's astronaut.png, 512x512), Eileen Collins'
// face. Checked on face_detection_short_range_astronaut.png: the box frames
// the face from the brows to the chin; keypoints 0..5 sit on her right eye,
// left eye, nose tip, mouth, right and left ear tragion. Tolerance 0.02 of
// the image (10 px): the weighted NMS average moves by less than that with
// kernel or resampling changes, and a wrong decode (swapped x/y, missing
// letterbox/projection) moves it by far more.
const ExpectedFace kAstronaut = {
    0.3468f, 0.1619f, 0.1862f, 0.1862f,
    {{0.3935f, 0.2049f}, {0.4802f, 0.2131f}, {0.4305f, 0.2486f},
     {0.4293f, 0.2903f}, {0.3480f, 0.2260f}, {0.5316f, 0.2419f}}};

TEST_F(FaceDetectionGraphTest, ShortRangeFindsTheAstronautsFace) {
  const std::string image_path = MediaPath("astronaut.png");
  SKIP_IF_MISSING(image_path);
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  ImageFrame frame = LoadRgb(image_path);
  ASSERT_FALSE(frame.IsEmpty());
  auto out = RunGraph(DetectorGraph("FaceDetectionShortRangeCpu"), {"detections"},
                      {{"image", {Adopt(new ImageFrame(std::move(frame))).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["detections"].size(), 1u);
  const auto& faces = (*out)["detections"][0].Get<std::vector<Detection>>();
  PrintDetections(faces);
  SaveAnnotated(image_path, faces, "face_detection_short_range_astronaut.png");
  ASSERT_EQ(faces.size(), 1u);
  EXPECT_GT(faces[0].score(0), 0.85f);
  ExpectFace(faces[0], kAstronaut, 0.02f);
  // Anatomy, independent of the recorded numbers: eyes level and apart, the
  // nose below them and between, the mouth below the nose, ears outside.
  const auto& k = faces[0].location_data().relative_keypoints();
  EXPECT_LT(k[0].x(), k[2].x());
  EXPECT_LT(k[2].x(), k[1].x());
  EXPECT_GT(k[2].y(), k[0].y());
  EXPECT_GT(k[3].y(), k[2].y());
  EXPECT_LT(k[4].x(), k[0].x());
  EXPECT_GT(k[5].x(), k[1].x());
}

// The same face through the ROI form of the module (FaceDetectionShortRange,
// input ROI): a region holding the head, rotated by 0, must give the same
// face in whole-image coordinates (the projection undoes the crop).
TEST_F(FaceDetectionGraphTest, ShortRangeInARegionProjectsBackToTheImage) {
  const std::string image_path = MediaPath("astronaut.png");
  SKIP_IF_MISSING(image_path);
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  NormalizedRect roi;
  roi.set_x_center(0.45f);
  roi.set_y_center(0.3f);
  roi.set_width(0.5f);
  roi.set_height(0.6f);
  auto out = RunGraph(R"pb(
    input_stream: "image"
    input_stream: "roi"
    output_stream: "detections"
    node {
      calculator: "FaceDetectionShortRange"
      input_stream: "IMAGE:image"
      input_stream: "ROI:roi"
      output_stream: "DETECTIONS:detections"
    })pb",
                      {"detections"},
                      {{"image", {Adopt(new ImageFrame(LoadRgb(image_path))).At(Timestamp(0))}},
                       {"roi", {MakePacket<NormalizedRect>(roi).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["detections"].size(), 1u);
  const auto& faces = (*out)["detections"][0].Get<std::vector<Detection>>();
  PrintDetections(faces);
  SaveAnnotated(image_path, faces, "face_detection_short_range_roi_astronaut.png");
  ASSERT_EQ(faces.size(), 1u);
  // The face is larger in the tensor, so the model sees it differently: a
  // looser tolerance than the whole-image run.
  ExpectFace(faces[0], kAstronaut, 0.03f);
}

}  // namespace
}  // namespace rill
