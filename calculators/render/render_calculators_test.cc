// DetectionsToRenderData, LandmarksToRenderData and AnnotationOverlay: the
// render data they build, and the pixels the overlay draws (the drawn image
// is also written to the test's undeclared outputs for a look).
#include <cstdlib>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/render_data.pb.h"
#include "framework/graph.h"
#include "glog/logging.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

template <typename T>
T ParseText(const std::string& text) {
  T message;
  CHECK(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

Detection FaceDetection() {
  return ParseText<Detection>(R"pb(
    label: "face"
    score: 0.875
    location_data {
      format: RELATIVE_BOUNDING_BOX
      relative_bounding_box { xmin: 0.25 ymin: 0.5 width: 0.25 height: 0.25 }
      relative_keypoints { x: 0.3 y: 0.6 }
      relative_keypoints { x: 0.45 y: 0.6 }
    })pb");
}

constexpr char kDetectionsGraph[] = R"pb(
  input_stream: "detections"
  node {
    calculator: "DetectionsToRenderDataCalculator"
    input_stream: "DETECTIONS:detections"
    output_stream: "RENDER_DATA:render_data"
    options {
      [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
        thickness: 2.0
        color { r: 255 g: 0 b: 0 }
      }
    }
  })pb";

TEST(DetectionsToRenderDataCalculatorTest, BoxKeypointsAndLabel) {
  std::vector<Packet> in = {MakePacket<std::vector<Detection>>(
                                std::vector<Detection>{FaceDetection()})
                                .At(Timestamp(5))};
  auto out = RunGraph(kDetectionsGraph, {"render_data"}, {{"detections", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["render_data"].size(), 1u);
  const RenderData& rd = (*out)["render_data"][0].Get<RenderData>();
  EXPECT_EQ(rd.scene_class(), "DETECTION");
  ASSERT_EQ(rd.render_annotations_size(), 4);  // text, box, 2 points
  ASSERT_TRUE(rd.render_annotations(0).has_text());
  const auto& text = rd.render_annotations(0).text();
  EXPECT_EQ(text.display_text(), "face,0.88");
  EXPECT_EQ(rd.render_annotations(0).scene_tag(), "LABEL");
  // Inside the box's top edge: one line of a tenth of the box height.
  EXPECT_TRUE(text.normalized());
  EXPECT_DOUBLE_EQ(text.left(), 0.25);
  EXPECT_NEAR(text.baseline(), 0.5 + 0.025, 1e-6);
  EXPECT_NEAR(text.font_height(), 0.9 * 0.025, 1e-6);
  const auto& box = rd.render_annotations(1);
  ASSERT_TRUE(box.has_rectangle());
  EXPECT_EQ(box.scene_tag(), "LOCATION");
  EXPECT_TRUE(box.rectangle().normalized());
  EXPECT_FLOAT_EQ(box.rectangle().left(), 0.25);
  EXPECT_FLOAT_EQ(box.rectangle().top(), 0.5);
  EXPECT_FLOAT_EQ(box.rectangle().right(), 0.5);
  EXPECT_FLOAT_EQ(box.rectangle().bottom(), 0.75);
  EXPECT_EQ(box.color().r(), 255);
  EXPECT_EQ(box.thickness(), 2.0);
  EXPECT_TRUE(rd.render_annotations(2).has_point());
  EXPECT_FLOAT_EQ(rd.render_annotations(3).point().x(), 0.45f);
  EXPECT_EQ((*out)["render_data"][0].Timestamp(), Timestamp(5));
}

TEST(DetectionsToRenderDataCalculatorTest, PixelBoxLabelsPerLineFeatureTag) {
  Detection d = ParseText<Detection>(R"pb(
    label: "cat"
    label: "dog"
    score: 0.5
    score: 0.25
    feature_tag: "ssd"
    detection_id: 7
    location_data {
      format: BOUNDING_BOX
      bounding_box { xmin: 10 ymin: 20 width: 100 height: 50 }
    })pb");
  std::vector<Packet> in = {MakePacket<Detection>(d).At(Timestamp(0))};
  auto out =
      RunGraph(R"pb(
                 input_stream: "detection"
                 node {
                   calculator: "DetectionsToRenderDataCalculator"
                   input_stream: "DETECTION:detection"
                   output_stream: "RENDER_DATA:render_data"
                   options {
                     [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
                       one_label_per_line: true
                       render_detection_id: true
                       text { font_height: 12 }
                       scene_class: "ANIMALS"
                     }
                   }
                 })pb",
               {"render_data"}, {{"detection", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)["render_data"][0].Get<RenderData>();
  EXPECT_EQ(rd.scene_class(), "ANIMALS");
  // Id line, two label lines, feature tag, box.
  ASSERT_EQ(rd.render_annotations_size(), 5);
  const char* texts[] = {"Id: 7", "cat,0.5", "dog,0.25", "ssd"};
  const double baselines[] = {32, 44, 56, 70};
  for (int i = 0; i < 4; ++i) {
    const auto& t = rd.render_annotations(i).text();
    EXPECT_EQ(t.display_text(), texts[i]);
    EXPECT_FALSE(t.normalized());
    EXPECT_DOUBLE_EQ(t.left(), 10);
    EXPECT_DOUBLE_EQ(t.baseline(), baselines[i]);
  }
  const auto& rect = rd.render_annotations(4).rectangle();
  EXPECT_FALSE(rect.normalized());
  EXPECT_DOUBLE_EQ(rect.right(), 110);
  EXPECT_DOUBLE_EQ(rect.bottom(), 70);
}

TEST(DetectionsToRenderDataCalculatorTest, EmptyPacketOption) {
  std::vector<Packet> in = {
      MakePacket<std::vector<Detection>>().At(Timestamp(1))};
  auto out = RunGraph(kDetectionsGraph, {"render_data"}, {{"detections", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["render_data"].size(), 1u);
  EXPECT_EQ(
      (*out)["render_data"][0].Get<RenderData>().render_annotations_size(), 0);
  auto none =
      RunGraph(R"pb(
                 input_stream: "detections"
                 node {
                   calculator: "DetectionsToRenderDataCalculator"
                   input_stream: "DETECTIONS:detections"
                   output_stream: "RENDER_DATA:render_data"
                   options {
                     [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
                       produce_empty_packet: false
                     }
                   }
                 })pb",
               {"render_data"}, {{"detections", in}});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE((*none)["render_data"].empty());
}

TEST(LandmarksToRenderDataCalculatorTest, PointsAndConnections) {
  NormalizedLandmarkList landmarks = ParseText<NormalizedLandmarkList>(R"pb(
    landmark { x: 0.1 y: 0.1 z: 0 visibility: 0.9 }
    landmark { x: 0.5 y: 0.5 z: 0 visibility: 0.9 }
    landmark { x: 0.9 y: 0.1 z: 0 visibility: 0.1 })pb");
  std::vector<Packet> in = {
      MakePacket<NormalizedLandmarkList>(landmarks).At(Timestamp(0))};
  const std::string graph = R"pb(
    input_stream: "landmarks"
    node { calculator: "LandmarksToRenderDataCalculator"
           input_stream: "NORM_LANDMARKS:landmarks"
           output_stream: "RENDER_DATA:render_data"
           options {
             [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
               landmark_connections: [ 0, 1, 1, 2 ]
               landmark_color { r: 255 }
               connection_color { g: 255 }
               thickness: 3)pb";
  auto out = RunGraph(graph + " } } }", {"render_data"}, {{"landmarks", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  const RenderData& rd = (*out)["render_data"][0].Get<RenderData>();
  ASSERT_EQ(rd.render_annotations_size(), 5);  // 2 lines, 3 points
  EXPECT_TRUE(rd.render_annotations(0).has_line());
  EXPECT_EQ(rd.render_annotations(0).color().g(), 255);
  EXPECT_FLOAT_EQ(rd.render_annotations(1).line().x_end(), 0.9f);
  EXPECT_TRUE(rd.render_annotations(4).has_point());
  EXPECT_EQ(rd.render_annotations(4).color().r(), 255);

  // With visibility used, landmark 2 and its connection disappear.
  auto vis = RunGraph(
      graph + " utilize_visibility: true visibility_threshold: 0.5 } } }",
      {"render_data"}, {{"landmarks", in}});
  ASSERT_TRUE(vis.ok()) << vis.status();
  EXPECT_EQ(
      (*vis)["render_data"][0].Get<RenderData>().render_annotations_size(), 3);
}

TEST(LandmarksToRenderDataCalculatorTest, OddConnectionsIsAContractError) {
  absl::Status s = CheckContract(R"pb(
    calculator: "LandmarksToRenderDataCalculator"
    input_stream: "NORM_LANDMARKS:l"
    output_stream: "RENDER_DATA:r"
    options {
      [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
        landmark_connections: [ 0, 1, 2 ]
      }
    })pb");
  EXPECT_THAT(s.message(), HasSubstr("odd"));
}

TEST(FaceLandmarksToRenderDataCalculatorTest, DrawsTheFaceMeshOutline) {
  // Landmark i at x = i / 1000, so a line's ends name its landmarks.
  auto mesh = [](int n) {
    NormalizedLandmarkList list;
    for (int i = 0; i < n; ++i) {
      list.add_landmark()->set_x(i / 1000.f);
    }
    return list;
  };
  const std::string graph = R"pb(
    input_stream: "landmarks"
    node { calculator: "FaceLandmarksToRenderDataCalculator"
           input_stream: "NORM_LANDMARKS:landmarks"
           output_stream: "RENDER_DATA:render_data"
           options {
             [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
               landmark_connections: [ 0, 1 ]
               connection_color { b: 255 }
               render_landmarks: false } } })pb";
  auto out = RunGraph(
      graph, {"render_data"},
      {{"landmarks",
        {MakePacket<NormalizedLandmarkList>(mesh(478)).At(Timestamp(0)),
         MakePacket<NormalizedLandmarkList>(mesh(468)).At(Timestamp(1))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["render_data"].size(), 2u);
  // The attention mesh: all 132 connections, the options' [0, 1] ignored;
  // the first joins 61 and 146 (lips), the last 109 and 10 (face oval).
  const RenderData& full = (*out)["render_data"][0].Get<RenderData>();
  ASSERT_EQ(full.render_annotations_size(), 132);
  EXPECT_FLOAT_EQ(full.render_annotations(0).line().x_start(), 0.061f);
  EXPECT_FLOAT_EQ(full.render_annotations(0).line().x_end(), 0.146f);
  EXPECT_EQ(full.render_annotations(0).color().b(), 255);
  EXPECT_FLOAT_EQ(full.render_annotations(131).line().x_start(), 0.109f);
  EXPECT_FLOAT_EQ(full.render_annotations(131).line().x_end(), 0.010f);
  // 468 landmarks: the 8 iris connections (468-477) are skipped.
  EXPECT_EQ((*out)["render_data"][1].Get<RenderData>().render_annotations_size(),
            124);
}

void SaveForReview(const ImageFrame& frame, const std::string& name) {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (dir == nullptr) return;
  cv::Mat bgr;
  cv::cvtColor(formats::MatView(&frame), bgr, cv::COLOR_RGB2BGR);
  cv::imwrite(std::string(dir) + "/" + name, bgr);
}

TEST(AnnotationOverlayCalculatorTest, DrawsDetectionOnImage) {
  ImageFrame image(ImageFormat::SRGB, 800, 400);
  formats::MatView(&image).setTo(cv::Scalar(40, 40, 40));
  std::vector<Packet> images = {
      MakePacket<ImageFrame>(std::move(image)).At(Timestamp(0))};
  const void* input_pixels = images[0].Get<ImageFrame>().PixelData();
  std::vector<Packet> detections = {MakePacket<std::vector<Detection>>(
                                        std::vector<Detection>{FaceDetection()})
                                        .At(Timestamp(0))};
  auto out =
      RunGraph(R"pb(
                 input_stream: "image"
                 input_stream: "detections"
                 node {
                   calculator: "DetectionsToRenderDataCalculator"
                   input_stream: "DETECTIONS:detections"
                   output_stream: "RENDER_DATA:render_data"
                   options {
                     [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
                       thickness: 1.0
                       color { r: 255 g: 0 b: 0 }
                     }
                   }
                 }
                 node {
                   calculator: "AnnotationOverlayCalculator"
                   input_stream: "IMAGE:image"
                   input_stream: "render_data"
                   output_stream: "IMAGE:annotated"
                 })pb",
               {"annotated"}, {{"image", images}, {"detections", detections}});
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["annotated"][0].Get<ImageFrame>();
  SaveForReview(f, "annotated_synthetic.png");
  EXPECT_NE(static_cast<const void*>(f.PixelData()), input_pixels);
  const cv::Mat m = formats::MatView(&f);
  // Box edges: x 200..400, y 200..300. The left edge (x=200, y=260) is
  // red; the inside (x=300, y=280) and far outside (x=720, y=360) are
  // untouched.
  const cv::Vec3b edge = m.at<cv::Vec3b>(260, 200);
  EXPECT_GT(edge[0], 200);
  EXPECT_LT(edge[1], 60);
  EXPECT_EQ(m.at<cv::Vec3b>(280, 300), cv::Vec3b(40, 40, 40));
  EXPECT_EQ(m.at<cv::Vec3b>(360, 720), cv::Vec3b(40, 40, 40));
  // Keypoint at (240, 240) is drawn (filled circle).
  EXPECT_GT(m.at<cv::Vec3b>(240, 240)[0], 200);
  // The label (9 px high) is drawn inside the box's top-left corner.
  const cv::Mat label = m(cv::Rect(202, 201, 60, 9));
  cv::Mat red;
  cv::inRange(label, cv::Scalar(150, 0, 0), cv::Scalar(255, 90, 90), red);
  EXPECT_GT(cv::countNonZero(red), 20);
  // The input packet's image was not drawn on.
  const ImageFrame& in = images[0].Get<ImageFrame>();
  EXPECT_EQ(in.Row(260)[200 * 3], 40);
}

TEST(AnnotationOverlayCalculatorTest, CanvasWithoutImage) {
  RenderData rd = ParseText<RenderData>(R"pb(
    render_annotations {
      filled_rectangle {
        rectangle { left: 10 top: 10 right: 29 bottom: 19 }
        fill_color { r: 0 g: 0 b: 255 }
      }
    }
    render_annotations {
      line { x_start: 0 y_start: 0.9 x_end: 1 y_end: 0.9 normalized: true }
      color { g: 255 }
      thickness: 1
    })pb");
  std::vector<Packet> in = {MakePacket<RenderData>(rd).At(Timestamp(0))};
  auto out = RunGraph(R"pb(
                        input_stream: "rd"
                        node {
                          calculator: "AnnotationOverlayCalculator"
                          input_stream: "rd"
                          output_stream: "IMAGE:canvas"
                          options {
                            [mediapipe.AnnotationOverlayCalculatorOptions.ext] {
                              canvas_width_px: 40
                              canvas_height_px: 30
                              canvas_color { r: 255 g: 255 b: 255 }
                            }
                          }
                        })pb",
                      {"canvas"}, {{"rd", in}});
  ASSERT_TRUE(out.ok()) << out.status();
  const ImageFrame& f = (*out)["canvas"][0].Get<ImageFrame>();
  ASSERT_EQ(f.Width(), 40);
  const cv::Mat m = formats::MatView(&f);
  EXPECT_EQ(m.at<cv::Vec3b>(15, 20), cv::Vec3b(0, 0, 255));
  EXPECT_EQ(m.at<cv::Vec3b>(2, 2), cv::Vec3b(255, 255, 255));
  EXPECT_GT(m.at<cv::Vec3b>(27, 20)[1], 200);
  EXPECT_LT(m.at<cv::Vec3b>(27, 20)[0], 100);
}

TEST(AnnotationOverlayCalculatorTest, NoRenderDataPassesImageThrough) {
  ImageFrame image(ImageFormat::GRAY8, 8, 8);
  image.SetToZero();
  std::vector<Packet> images = {
      MakePacket<ImageFrame>(std::move(image)).At(Timestamp(0))};
  auto out = RunGraph(R"pb(
                        input_stream: "image"
                        input_stream: "rd"
                        node {
                          calculator: "AnnotationOverlayCalculator"
                          input_stream: "IMAGE:image"
                          input_stream: "rd"
                          output_stream: "IMAGE:out"
                        })pb",
                      {"out"}, {{"image", images}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["out"].size(), 1u);
  EXPECT_EQ((*out)["out"][0].PayloadId(), images[0].PayloadId());
}

TEST(AnnotationOverlayCalculatorTest, UImageInAndOut) {
  ImageFrame frame(ImageFormat::SRGBA, 20, 20);
  formats::MatView(&frame).setTo(cv::Scalar(0, 0, 0, 255));
  std::vector<Packet> images = {
      MakePacket<Image>(std::move(frame)).At(Timestamp(0))};
  RenderData rd = ParseText<RenderData>(R"pb(
    render_annotations {
      point { x: 10 y: 10 }
      color { r: 255 g: 255 b: 0 }
      thickness: 3
    })pb");
  std::vector<Packet> data = {MakePacket<RenderData>(rd).At(Timestamp(0))};
  auto out = RunGraph(R"pb(
                        input_stream: "image"
                        input_stream: "rd"
                        node {
                          calculator: "AnnotationOverlayCalculator"
                          input_stream: "UIMAGE:image"
                          input_stream: "rd"
                          output_stream: "UIMAGE:out"
                        })pb",
                      {"out"}, {{"image", images}, {"rd", data}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Image& result = (*out)["out"][0].Get<Image>();
  const ImageFrame& f = *result.GetImageFrameSharedPtr();
  EXPECT_EQ(f.Format(), ImageFormat::SRGBA);
  EXPECT_EQ(f.Row(10)[10 * 4 + 0], 255);
  EXPECT_EQ(f.Row(10)[10 * 4 + 1], 255);
  EXPECT_EQ(f.Row(10)[10 * 4 + 3], 255);
  EXPECT_EQ(f.Row(0)[0], 0);
  // The input Image was not drawn on.
  EXPECT_EQ(images[0].Get<Image>().GetImageFrameSharedPtr()->Row(10)[40], 0);
}

TEST(AnnotationOverlayCalculatorTest, MixedTagsAreAContractError) {
  absl::Status s = CheckContract(R"pb(
    calculator: "AnnotationOverlayCalculator"
    input_stream: "IMAGE:image"
    output_stream: "UIMAGE:out")pb");
  EXPECT_THAT(s.message(), HasSubstr("UIMAGE"));
}

}  // namespace
}  // namespace rill
