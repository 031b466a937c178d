// End to end: the face detection graphs (graphs/face_detection) on real
// images, through the graph runtime, subgraph expansion and option_value, the
// engine, and the detection calculators.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
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

#define SKIP_IF_MISSING(path) RILL_REQUIRE(FileExists(path), path << " is missing: run scripts/fetch_models.sh")

std::string DetectorGraph(const std::string& subgraph,
                          const std::string& extra = "") {
  return R"pb(
           input_stream: "image"
           output_stream: "detections"
           node { calculator: ")pb" +
         subgraph + R"pb("
                         input_stream: "IMAGE:image"
                         output_stream: "DETECTIONS:detections"
         )pb" +
         extra + R"pb(
    })pb";
}

void PrintDetections(const std::vector<Detection>& faces) {
  for (const Detection& d : faces) {
    const auto& b = d.location_data().relative_bounding_box();
    std::printf("face score %.4f box xmin %.4f ymin %.4f w %.4f h %.4f\n",
                d.score(0), b.xmin(), b.ymin(), b.width(), b.height());
    for (const auto& k : d.location_data().relative_keypoints()) {
      std::printf("  keypoint %.4f %.4f\n", k.x(), k.y());
    }
  }
}

void SaveAnnotated(const std::string& image_path,
                   const std::vector<Detection>& faces,
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
const ExpectedFace kAstronaut = {0.3468f,
                                 0.1619f,
                                 0.1862f,
                                 0.1862f,
                                 {{0.3935f, 0.2049f},
                                  {0.4802f, 0.2131f},
                                  {0.4305f, 0.2486f},
                                  {0.4293f, 0.2903f},
                                  {0.3480f, 0.2260f},
                                  {0.5316f, 0.2419f}}};

// messi5.jpg: the face is ~30 px wide in a 548x342 frame; checked on
// face_detection_full_range_messi.png (box on the face, keypoints on eyes,
// nose, mouth, ears). Tolerance 0.015 (8 px across, 5 px down).
const ExpectedFace kMessi = {0.4148f,
                             0.2899f,
                             0.0550f,
                             0.0881f,
                             {{0.4321f, 0.3170f},
                              {0.4536f, 0.3125f},
                              {0.4465f, 0.3324f},
                              {0.4469f, 0.3513f},
                              {0.4173f, 0.3287f},
                              {0.4671f, 0.3198f}}};

TEST_F(FaceDetectionGraphTest, ShortRangeFindsTheAstronautsFace) {
  const std::string image_path = MediaPath("astronaut.png");
  SKIP_IF_MISSING(image_path);
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  ImageFrame frame = LoadRgb(image_path);
  ASSERT_FALSE(frame.IsEmpty());
  auto out = RunGraph(
      DetectorGraph("FaceDetectionShortRangeCpu"), {"detections"},
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
  auto out = RunGraph(
      R"pb(
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
  SaveAnnotated(image_path, faces,
                "face_detection_short_range_roi_astronaut.png");
  ASSERT_EQ(faces.size(), 1u);
  // The face is larger in the tensor, so the model sees it differently: a
  // looser tolerance than the whole-image run.
  ExpectFace(faces[0], kAstronaut, 0.03f);
}

// The portrait turned a quarter clockwise (the face lies on its side) and a
// whole-image ROI turned by +90 degrees, so that the face is upright in the
// tensor: the detector finds it, and the projection (MATRIX with rotation)
// puts box and keypoints where the turned image has them: (x, y) of the
// upright portrait at (1 - y, x).
TEST_F(FaceDetectionGraphTest, RotatedRegionFindsTheTurnedFace) {
  const std::string image_path = MediaPath("astronaut.png");
  SKIP_IF_MISSING(image_path);
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  cv::Mat bgr = cv::imread(image_path, cv::IMREAD_COLOR), turned, rgb;
  cv::rotate(bgr, turned, cv::ROTATE_90_CLOCKWISE);
  cv::cvtColor(turned, rgb, cv::COLOR_BGR2RGB);
  NormalizedRect roi;
  roi.set_x_center(0.5f);
  roi.set_y_center(0.5f);
  roi.set_width(1.0f);
  roi.set_height(1.0f);
  roi.set_rotation(static_cast<float>(M_PI / 2));
  auto out = RunGraph(
      R"pb(
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
      {{"image",
        {Adopt(new ImageFrame(formats::FromMat(rgb, ImageFormat::SRGB)))
             .At(Timestamp(0))}},
       {"roi", {MakePacket<NormalizedRect>(roi).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["detections"].size(), 1u);
  const auto& faces = (*out)["detections"][0].Get<std::vector<Detection>>();
  PrintDetections(faces);
  cv::Mat drawn = turned.clone();
  solutions::DrawDetections(faces, &drawn);
  cv::imwrite(
      solutions::OutputDir() + "/face_detection_rotated_roi_astronaut.png",
      drawn);
  ASSERT_EQ(faces.size(), 1u);
  // The upright face's box and keypoints, turned.
  ExpectedFace turned_face = {1.0f - kAstronaut.ymin - kAstronaut.height,
                              kAstronaut.xmin,
                              kAstronaut.height,
                              kAstronaut.width,
                              {}};
  for (const auto& [x, y] : kAstronaut.keypoints) {
    turned_face.keypoints.push_back({1.0f - y, x});
  }
  ExpectFace(faces[0], turned_face, 0.02f);
}

// messi5.jpg (OpenCV's sample, 548x342): a small face in a football scene,
// the full-range model's case. Checked on face_detection_full_range_messi.png:
// the box is on Messi's face (upper middle of the frame).
TEST_F(FaceDetectionGraphTest, FullRangeFindsMessisFace) {
  const std::string image_path = MediaPath("messi5.jpg");
  SKIP_IF_MISSING(image_path);
  SKIP_IF_MISSING(ModelPath("face_detection_full_range_sparse.tflite"));
  auto out = RunGraph(
      DetectorGraph("FaceDetectionFullRangeCpu"), {"detections"},
      {{"image",
        {Adopt(new ImageFrame(LoadRgb(image_path))).At(Timestamp(0))}}});
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
  ASSERT_GT(frames.size(), 100u);
  // One DETECTIONS packet per frame (empty without a face), in order.
  ASSERT_EQ(dets.size(), frames.size());
  std::vector<Packet> faces;
  int64_t last = -1;
  size_t longest_gap = 0, gap = 0, fi = 0;
  for (const Packet& d : dets) {
    EXPECT_GT(d.Timestamp().Value(), last);
    last = d.Timestamp().Value();
    if (!d.Get<std::vector<Detection>>().empty()) faces.push_back(d);
  }
  std::printf("Megamind.avi: %zu frames, %zu with a face\n", frames.size(),
              faces.size());
  size_t multi = 0;
  for (const Packet& f : faces) {
    const auto& v = f.Get<std::vector<Detection>>();
    // Seen: a second, borderline (0.50-0.54) detection on the other
    // character's hair in about a quarter of the frames.
    if (v.size() > 1) ++multi;
  }
  std::printf("Megamind.avi: %zu frames with more than one face\n", multi);
  // Count runs of frames without a face.
  for (fi = 0; fi < frames.size(); ++fi) {
    EXPECT_EQ(dets[fi].Timestamp(), frames[fi].Timestamp());
    if (!dets[fi].Get<std::vector<Detection>>().empty()) {
      gap = 0;
    } else {
      longest_gap = std::max(longest_gap, ++gap);
    }
  }
  std::printf("Megamind.avi: longest run without a face %zu frames\n",
              longest_gap);
  EXPECT_GE(faces.size() * 10, frames.size() * 9)
      << "a face in at least 90% of frames";
  EXPECT_LE(longest_gap, 5u);
  // Look at one frame from the middle.
  const Packet& mid = faces[faces.size() / 2];
  for (const Packet& f : frames) {
    if (f.Timestamp() != mid.Timestamp()) continue;
    cv::Mat rgb = formats::MatView(&f.Get<ImageFrame>()).clone(), bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    solutions::DrawDetections(mid.Get<std::vector<Detection>>(), &bgr);
    cv::imwrite(solutions::OutputDir() + "/face_detection_megamind_mid.png",
                bgr);
  }
}

// Bad input: each a clear error naming the node and the file, no crash.
TEST_F(FaceDetectionGraphTest, MissingModelNamesTheNodeAndTheFile) {
  auto out = RunGraph(
      DetectorGraph(
          "FaceDetectionShortRangeCpu",
          R"pb(node_options: {
                 [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                   model_path: "third_party/models/no_such_detector.tflite"
                 }
               })pb"),
      {"detections"}, {{"image", {}}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("third_party/models/no_such_detector.tflite"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("inference_calculator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not found (looked in: "), std::string::npos) << msg;
}

TEST_F(FaceDetectionGraphTest,
       ModelOfTheWrongInputSizeNamesTheNodeFileAndShapes) {
  SKIP_IF_MISSING(ModelPath("face_detection_full_range_sparse.tflite"));
  // The full-range model (192x192) in the short-range graph (128x128 tensors).
  auto out = RunGraph(
      DetectorGraph(
          "FaceDetectionShortRangeCpu",
          R"pb(node_options: {
                 [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                   model_path: "third_party/models/face_detection_full_range_sparse.tflite"
                 }
               })pb"),
      {"detections"},
      {{"image",
        {Adopt(new ImageFrame(LoadRgb(MediaPath("astronaut.png"))))
             .At(Timestamp(0))}}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("face_detection_full_range_sparse.tflite"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("inference_calculator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,128,128,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,192,192,3]"), std::string::npos) << msg;
}

TEST_F(FaceDetectionGraphTest, OutputsThatDoNotFitTheDecoderNameTheNode) {
  SKIP_IF_MISSING(ModelPath("face_detection_full_range_sparse.tflite"));
  // Right input size, anchors laid out for the short-range strides (2016 at
  // 192x192) and num_boxes saying so, but the model outputs 2304 boxes.
  auto out = RunGraph(
      DetectorGraph(
          "FaceDetectionShortRangeCpu",
          R"pb(node_options: {
                 [type.googleapis.com/mediapipe.FaceDetectionOptions] {
                   model_path: "third_party/models/face_detection_full_range_sparse.tflite"
                   tensor_width: 192
                   tensor_height: 192
                   num_boxes: 2016
                 }
               })pb"),
      {"detections"},
      {{"image",
        {Adopt(new ImageFrame(LoadRgb(MediaPath("astronaut.png"))))
             .At(Timestamp(0))}}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("tensors_to_detections_calculator"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("[1,2304,16]"), std::string::npos) << msg;
}

TEST_F(FaceDetectionGraphTest, UnreadableVideoNamesTheNodeAndTheFile) {
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  auto out =
      RunGraph(R"pb(
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
               {{"video_path",
                 MakePacket<std::string>(
                     "third_party/models/face_detection_short_range.tflite")}});
  ASSERT_FALSE(out.ok());
  const std::string msg(out.status().message());
  std::printf("%s\n", msg.c_str());
  EXPECT_NE(msg.find("decoder"), std::string::npos) << msg;
  EXPECT_NE(msg.find("face_detection_short_range.tflite"), std::string::npos)
      << msg;
}

// The desktop live graph (FlowLimiter with its FINISHED back edge, detector,
// DetectionsToRenderData, AnnotationOverlay) over the Megamind video fed as
// fast as the graph takes it: every frame let through comes out drawn, and
// red box pixels are on the face.
TEST_F(FaceDetectionGraphTest, DesktopLiveGraphDrawsTheFaces) {
  const std::string video_path = MediaPath("Megamind.avi");
  SKIP_IF_MISSING(video_path);
  SKIP_IF_MISSING(ModelPath("face_detection_short_range.tflite"));
  std::string config;
  {
    std::ifstream f("graphs/face_detection/face_detection_desktop_live.pbtxt");
    config.assign(std::istreambuf_iterator<char>(f),
                  std::istreambuf_iterator<char>());
  }
  ASSERT_FALSE(config.empty());
  cv::VideoCapture cap(video_path);
  ASSERT_TRUE(cap.isOpened());
  std::vector<Packet> frames;
  cv::Mat bgr, rgb;
  for (int i = 0; i < 30 && cap.read(bgr); ++i) {
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    frames.push_back(
        Adopt(new ImageFrame(formats::FromMat(rgb, ImageFormat::SRGB)))
            .At(Timestamp(i * 33333)));
  }
  // settle_each_packet: the FlowLimiter then lets every frame through, so
  // the output is deterministic.
  auto out = RunGraph(config, {"output_video", "face_detections"},
                      {{"input_video", frames}}, {},
                      /*settle_each_packet=*/true);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& video = (*out)["output_video"];
  const auto& dets = (*out)["face_detections"];
  std::printf(
      "desktop live graph: %zu frames in, %zu out, %zu detection packets\n",
      frames.size(), video.size(), dets.size());
  ASSERT_EQ(video.size(), frames.size());
  ASSERT_EQ(dets.size(), frames.size());
  std::vector<Packet> faces;
  for (const Packet& d : dets) {
    if (!d.Get<std::vector<Detection>>().empty()) faces.push_back(d);
  }
  ASSERT_GE(faces.size(), frames.size() * 8 / 10);
  // The first detected face's box edge is drawn red on that frame.
  const Packet& d = faces[0];
  for (const Packet& v : video) {
    if (v.Timestamp() != d.Timestamp()) continue;
    const ImageFrame& f = v.Get<ImageFrame>();
    cv::Mat drawn = formats::MatView(&f).clone();
    const auto& face = d.Get<std::vector<Detection>>().at(0);
    const auto& b = face.location_data().relative_bounding_box();
    const int x = static_cast<int>(b.xmin() * f.Width());
    const int y = static_cast<int>((b.ymin() + b.height() / 2) * f.Height());
    int red = 0;
    for (int dx = -4; dx <= 4; ++dx) {
      if (x + dx < 0 || x + dx >= f.Width()) continue;
      const cv::Vec3b px = drawn.at<cv::Vec3b>(y, x + dx);  // RGB
      if (px[0] > 200 && px[1] < 60 && px[2] < 60) ++red;
    }
    EXPECT_GT(red, 0) << "no red box edge at the face's left side";
    cv::Mat out_bgr;
    cv::cvtColor(drawn, out_bgr, cv::COLOR_RGB2BGR);
    cv::imwrite(
        solutions::OutputDir() + "/face_detection_desktop_live_frame.png",
        out_bgr);
  }
}

}  // namespace
}  // namespace rill
