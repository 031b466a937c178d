// End to end: the face detection graphs (graphs/face_detection) on real
// images, through the graph runtime, subgraph expansion and option_value, the
// engine, and the detection calculators.
#include <algorithm>
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

// messi5.jpg: the face is ~30 px wide in a 548x342 frame; checked on
// face_detection_full_range_messi.png (box on the face, keypoints on eyes,
// nose, mouth, ears). Tolerance 0.015 (8 px across, 5 px down).
const ExpectedFace kMessi = {
    0.4148f, 0.2899f, 0.0550f, 0.0881f,
    {{0.4321f, 0.3170f}, {0.4536f, 0.3125f}, {0.4465f, 0.3324f},
     {0.4469f, 0.3513f}, {0.4173f, 0.3287f}, {0.4671f, 0.3198f}}};

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

// messi5.jpg (OpenCV's sample, 548x342): a small face in a football scene,
// the full-range model's case. Checked on face_detection_full_range_messi.png:
// the box is on Messi's face (upper middle of the frame).
TEST_F(FaceDetectionGraphTest, FullRangeFindsMessisFace) {
  const std::string image_path = MediaPath("messi5.jpg");
  SKIP_IF_MISSING(image_path);
  SKIP_IF_MISSING(ModelPath("face_detection_full_range_sparse.tflite"));
  auto out = RunGraph(DetectorGraph("FaceDetectionFullRangeCpu"), {"detections"},
                      {{"image", {Adopt(new ImageFrame(LoadRgb(image_path))).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["detections"].size(), 1u);
  const auto& faces = (*out)["detections"][0].Get<std::vector<Detection>>();
  PrintDetections(faces);
  SaveAnnotated(image_path, faces, "face_detection_full_range_messi.png");
  ASSERT_GE(faces.size(), 1u);
  ExpectFace(faces[0], kMessi, 0.015f);
}

// Megamind.avi (OpenCV's sample): decoded by OpenCvVideoDecoderCalculator in
// the graph; the detector must find the face frame after frame.
TEST_F(FaceDetectionGraphTest, MegamindVideoGivesDetectionsFrameAfterFrame) {
  const std::string video_path = MediaPath("Megamind.avi");
  SKIP_IF_MISSING(video_path);
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  auto out = RunGraph(R"pb(
    input_side_packet: "video_path"
    output_stream: "detections"
    output_stream: "frames"
    node {
      calculator: "OpenCvVideoDecoderCalculator"
      input_side_packet: "INPUT_FILE_PATH:video_path"
      output_stream: "VIDEO:frames"
    }
    node {
      calculator: "FaceDetectionShortRangeCpu"
      input_stream: "IMAGE:frames"
      output_stream: "DETECTIONS:detections"
    })pb",
                      {"detections", "frames"}, {},
                      {{"video_path", MakePacket<std::string>(video_path)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& frames = (*out)["frames"];
  const auto& dets = (*out)["detections"];
  std::printf("Megamind.avi: %zu frames, %zu with a face\n", frames.size(), dets.size());
  ASSERT_GT(frames.size(), 100u);
  // Every detection packet belongs to a decoded frame, in order.
  int64_t last = -1;
  size_t longest_gap = 0, gap = 0, fi = 0;
  for (const Packet& d : dets) {
    EXPECT_GT(d.Timestamp().Value(), last);
    last = d.Timestamp().Value();
    EXPECT_FALSE(d.Get<std::vector<Detection>>().empty());
  }
  // Count runs of frames without a face.
  size_t di = 0;
  for (fi = 0; fi < frames.size(); ++fi) {
    if (di < dets.size() && dets[di].Timestamp() == frames[fi].Timestamp()) {
      ++di;
      gap = 0;
    } else {
      longest_gap = std::max(longest_gap, ++gap);
    }
  }
  std::printf("Megamind.avi: longest run without a face %zu frames\n", longest_gap);
  EXPECT_GE(dets.size() * 10, frames.size() * 8) << "a face in at least 80% of frames";
  EXPECT_LE(longest_gap, 15u);
  // Look at one frame from the middle.
  const Packet& mid = dets[dets.size() / 2];
  for (const Packet& f : frames) {
    if (f.Timestamp() != mid.Timestamp()) continue;
    cv::Mat rgb = formats::MatView(&f.Get<ImageFrame>()).clone(), bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    solutions::DrawDetections(mid.Get<std::vector<Detection>>(), &bgr);
    cv::imwrite(solutions::OutputDir() + "/face_detection_megamind_mid.png", bgr);
  }
}

// Bad input: each a clear error naming the node and the file, no crash.
TEST_F(FaceDetectionGraphTest, MissingModelNamesTheNodeAndTheFile) {
  auto out = RunGraph(
      DetectorGraph("FaceDetectionShortRangeCpu",
                    R"pb(node_options: {
                           [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                             model_path: "third_party/models/no_such_detector.tflite"
                           }
                         })pb"),
      {"detections"}, {{"image", {}}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("third_party/models/no_such_detector.tflite"), std::string::npos) << msg;
  EXPECT_NE(msg.find("inference_calculator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
}

TEST_F(FaceDetectionGraphTest, ModelOfTheWrongInputSizeNamesTheNodeFileAndShapes) {
  SKIP_IF_MISSING(ModelPath("face_detection_full_range_sparse.tflite"));
  // The full-range model (192x192) in the short-range graph (128x128 tensors).
  auto out = RunGraph(
      DetectorGraph("FaceDetectionShortRangeCpu",
                    R"pb(node_options: {
                           [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                             model_path: "third_party/models/face_detection_full_range_sparse.tflite"
                           }
                         })pb"),
      {"detections"},
      {{"image", {Adopt(new ImageFrame(LoadRgb(MediaPath("astronaut.png")))).At(Timestamp(0))}}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("face_detection_full_range_sparse.tflite"), std::string::npos) << msg;
  EXPECT_NE(msg.find("inference_calculator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,128,128,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,192,192,3]"), std::string::npos) << msg;
}

TEST_F(FaceDetectionGraphTest, OutputsThatDoNotFitTheDecoderNameTheNode) {
  SKIP_IF_MISSING(ModelPath("face_detection_full_range_sparse.tflite"));
  // Right input size, anchors laid out for the short-range strides (2016 at
  // 192x192) and num_boxes saying so, but the model outputs 2304 boxes.
  auto out = RunGraph(
      DetectorGraph("FaceDetectionShortRangeCpu",
                    R"pb(node_options: {
                           [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                             model_path: "third_party/models/face_detection_full_range_sparse.tflite"
                             tensor_width: 192
                             tensor_height: 192
                             num_boxes: 2016
                           }
                         })pb"),
      {"detections"},
      {{"image", {Adopt(new ImageFrame(LoadRgb(MediaPath("astronaut.png")))).At(Timestamp(0))}}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("tensors_to_detections_calculator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,2304,16]"), std::string::npos) << msg;
}

TEST_F(FaceDetectionGraphTest, UnreadableVideoNamesTheNodeAndTheFile) {
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  auto out = RunGraph(R"pb(
    input_side_packet: "video_path"
    output_stream: "detections"
    node {
      name: "decoder"
      calculator: "OpenCvVideoDecoderCalculator"
      input_side_packet: "INPUT_FILE_PATH:video_path"
      output_stream: "VIDEO:frames"
    }
    node {
      calculator: "FaceDetectionShortRangeCpu"
      input_stream: "IMAGE:frames"
      output_stream: "DETECTIONS:detections"
    })pb",
                      {"detections"}, {},
                      {{"video_path", MakePacket<std::string>(
                                          "third_party/models/face_detection_short_range.tflite")}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("decoder"), std::string::npos) << msg;
  EXPECT_NE(msg.find("face_detection_short_range.tflite"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rill
