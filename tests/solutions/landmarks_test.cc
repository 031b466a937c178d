// End to end: the hand- and pose-landmark graphs (graphs/hand_landmark,
// graphs/pose_landmark) on a given region of messi5.jpg.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "gtest/gtest.h"
#include "tests/solutions/solution_test_util.h"

namespace rill {
namespace {

using solutions::FileExists;
using solutions::LoadRgb;
using solutions::MediaPath;
using solutions::ModelPath;

NormalizedRect Rect(float xc, float yc, float w, float h, float rotation = 0) {
  NormalizedRect r;
  r.set_x_center(xc);
  r.set_y_center(yc);
  r.set_width(w);
  r.set_height(h);
  r.set_rotation(rotation);
  return r;
}

void SaveLandmarks(const std::string& image_path,
                   const NormalizedLandmarkList& lms, const NormalizedRect& roi,
                   const std::string& name) {
  cv::Mat bgr = cv::imread(image_path, cv::IMREAD_COLOR);
  cv::RotatedRect rr(
      cv::Point2f(roi.x_center() * bgr.cols, roi.y_center() * bgr.rows),
      cv::Size2f(roi.width() * bgr.cols, roi.height() * bgr.rows),
      roi.rotation() * 180.0f / static_cast<float>(M_PI));
  cv::Point2f corners[4];
  rr.points(corners);
  for (int i = 0; i < 4; ++i)
    cv::line(bgr, corners[i], corners[(i + 1) % 4], cv::Scalar(255, 0, 0), 1);
  for (int i = 0; i < lms.landmark_size(); ++i) {
    const cv::Point2f p(lms.landmark(i).x() * bgr.cols,
                        lms.landmark(i).y() * bgr.rows);
    cv::circle(bgr, p, 2, cv::Scalar(0, 255, 0), cv::FILLED);
    cv::putText(bgr, std::to_string(i), p + cv::Point2f(3, -3),
                cv::FONT_HERSHEY_SIMPLEX, 0.3, cv::Scalar(0, 255, 255), 1);
  }
  cv::imwrite(solutions::OutputDir() + "/" + name, bgr);
}

absl::StatusOr<StreamPackets> RunOnRegion(
    const std::string& subgraph, const std::vector<std::string>& outputs,
    const std::string& image_path, const NormalizedRect& roi) {
  std::string config = R"pb(
                         input_stream: "image"
                         input_stream: "roi"
                         node { calculator: ")pb" +
                       subgraph + R"pb("
                                       input_stream: "IMAGE:image"
                                       input_stream: "ROI:roi")pb";
  std::vector<std::string> names;
  for (const std::string& o : outputs) {
    std::string name = o;
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    names.push_back(name);
    config += "\n      output_stream: \"" + o + ":" + name + "\"";
  }
  config += "\n    }";
  for (const std::string& n : names)
    config = "output_stream: \"" + n + "\"\n" + config;
  return RunGraph(
      config, names,
      {{"image", {Adopt(new ImageFrame(LoadRgb(image_path))).At(Timestamp(0))}},
       {"roi", {MakePacket<NormalizedRect>(roi).At(Timestamp(0))}}});
}

TEST(PoseLandmarkTest, LandmarksOfMessiInARegion) {
  const std::string image_path = MediaPath("messi5.jpg");
  RILL_REQUIRE(FileExists(image_path) && FileExists(ModelPath("pose_landmark_full.tflite")),
               "models or media missing: run scripts/fetch_models.sh");
  solutions::UseGraphs({"pose_landmark"});
  // A square (in pixels) region around the player, 400x400 px of 548x342.
  const NormalizedRect roi = Rect(0.48f, 0.58f, 400.0f / 548, 400.0f / 342);
  auto out = RunOnRegion(
      "PoseLandmarkByRoiCpu",
      {"LANDMARKS", "AUXILIARY_LANDMARKS", "PRESENCE_SCORE", "WORLD_LANDMARKS"},
      image_path, roi);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["presence_score"].size(), 1u);
  const float presence = (*out)["presence_score"][0].Get<float>();
  std::printf("pose presence %.3f\n", presence);
  ASSERT_EQ((*out)["landmarks"].size(), 1u);
  const auto& lms = (*out)["landmarks"][0].Get<NormalizedLandmarkList>();
  ASSERT_EQ(lms.landmark_size(), 33);
  // The 2 auxiliary landmarks (hips' centre and the body's extent) give the
  // next frame's region: the first between the hips.
  ASSERT_EQ((*out)["auxiliary_landmarks"].size(), 1u);
  const auto& aux = (*out)["auxiliary_landmarks"][0].Get<NormalizedLandmarkList>();
  ASSERT_EQ(aux.landmark_size(), 2);
  EXPECT_NEAR(aux.landmark(0).x(), (lms.landmark(23).x() + lms.landmark(24).x()) / 2, 0.04f);
  EXPECT_NEAR(aux.landmark(0).y(), (lms.landmark(23).y() + lms.landmark(24).y()) / 2, 0.04f);
  for (int i = 0; i < 33; ++i) {
    std::printf("pose %2d %.3f %.3f vis %.2f\n", i, lms.landmark(i).x(),
                lms.landmark(i).y(), lms.landmark(i).visibility());
  }
  SaveLandmarks(image_path, lms, roi, "pose_landmark_messi.png");
  EXPECT_GT(presence, 0.9f);
  // Read off pose_landmark_messi.png and checked by eye: the nose on the
  // face, shoulders, wrists at the outstretched hands, ankles at the feet
  // (his right foot near the bottom, the left one by the ball). Tolerance
  // 0.04 of the image.
  struct Expect {
    int index;
    float x, y;
  };
  for (const Expect& e :
       std::vector<Expect>{{0, 0.460f, 0.344f},      // nose
                           {11, 0.500f, 0.370f},     // left shoulder
                           {12, 0.371f, 0.385f},     // right shoulder
                           {15, 0.641f, 0.481f},     // left wrist
                           {16, 0.206f, 0.311f},     // right wrist
                           {23, 0.510f, 0.645f},     // left hip
                           {24, 0.434f, 0.685f},     // right hip
                           {27, 0.697f, 0.767f},     // left ankle
                           {28, 0.532f, 0.894f}}) {  // right ankle
    EXPECT_NEAR(lms.landmark(e.index).x(), e.x, 0.04f)
        << "landmark " << e.index;
    EXPECT_NEAR(lms.landmark(e.index).y(), e.y, 0.04f)
        << "landmark " << e.index;
    EXPECT_GT(lms.landmark(e.index).visibility(), 0.8f)
        << "landmark " << e.index;
  }
  // World landmarks in metres: shoulders 0.25-0.5 m apart, the hips' middle
  // near the origin.
  ASSERT_EQ((*out)["world_landmarks"].size(), 1u);
  const auto& world = (*out)["world_landmarks"][0].Get<LandmarkList>();
  ASSERT_EQ(world.landmark_size(), 33);
  const float shoulders =
      std::hypot(world.landmark(11).x() - world.landmark(12).x(),
                 world.landmark(11).y() - world.landmark(12).y(),
                 world.landmark(11).z() - world.landmark(12).z());
  std::printf("pose world shoulder width %.3f m\n", shoulders);
  EXPECT_GT(shoulders, 0.2f);
  EXPECT_LT(shoulders, 0.6f);
  EXPECT_NEAR((world.landmark(23).x() + world.landmark(24).x()) / 2, 0.0f,
              0.1f);
  EXPECT_NEAR((world.landmark(23).y() + world.landmark(24).y()) / 2, 0.0f,
              0.1f);
  // Anatomy: head above shoulders above hips above knees.
  EXPECT_LT(lms.landmark(0).y(), lms.landmark(11).y());
  EXPECT_LT(lms.landmark(11).y(), lms.landmark(23).y());
  EXPECT_LT(lms.landmark(24).y(), lms.landmark(26).y());
}

// Messi's outstretched right arm ends in a hand at about (88, 95) px,
// fingers pointing left. The landmark model expects the hand upright, so the
// region is turned by -90 degrees (the same convention as MediaPipe's hand
// ROIs); turned the other way (hand upside down) or on a patch of grass, the
// model must report no hand.
TEST(HandLandmarkTest, LandmarksOfMessisHandInARegion) {
  const std::string image_path = MediaPath("messi5.jpg");
  RILL_REQUIRE(FileExists(image_path) && FileExists(ModelPath("hand_landmark_full.tflite")),
               "models or media missing: run scripts/fetch_models.sh");
  solutions::UseGraphs({"hand_landmark"});
  const float kHalfPi = 1.5707963f;
  const NormalizedRect hand =
      Rect(88.0f / 548, 95.0f / 342, 80.0f / 548, 80.0f / 342, -kHalfPi);
  auto out = RunOnRegion(
      "HandLandmarkCpu",
      {"LANDMARKS", "PRESENCE_SCORE", "HANDEDNESS", "WORLD_LANDMARKS"},
      image_path, hand);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)["presence_score"].size(), 1u);
  const float presence = (*out)["presence_score"][0].Get<float>();
  std::printf("hand presence %.3f\n", presence);
  EXPECT_GT(presence, 0.8f);
  ASSERT_EQ((*out)["landmarks"].size(), 1u);
  ASSERT_EQ((*out)["handedness"].size(), 1u);
  EXPECT_EQ(
      (*out)["handedness"][0].Get<ClassificationList>().classification_size(),
      1);
  const auto& lms = (*out)["landmarks"][0].Get<NormalizedLandmarkList>();
  ASSERT_EQ(lms.landmark_size(), 21);
  SaveLandmarks(image_path, lms, hand, "hand_landmark_messi.png");
  // Checked on hand_landmark_messi.png: the 21 points cover the hand, the
  // wrist (0) on the arm side (right), the fingertips (8, 12, 16, 20) to the
  // left of it.
  for (int i = 0; i < 21; ++i) {
    EXPECT_NEAR(lms.landmark(i).x() * 548, 88, 45) << "landmark " << i;
    EXPECT_NEAR(lms.landmark(i).y() * 342, 95, 30) << "landmark " << i;
  }
  for (int tip : {8, 12, 16, 20})
    EXPECT_LT(lms.landmark(tip).x(), lms.landmark(0).x() - 0.02f);
  // World landmarks: metres around the hand's centre; a hand spans about
  // 0.1-0.25 m, and in the image's axes the fingers point left (-x) too.
  ASSERT_EQ((*out)["world_landmarks"].size(), 1u);
  const auto& world = (*out)["world_landmarks"][0].Get<LandmarkList>();
  ASSERT_EQ(world.landmark_size(), 21);
  const float span = std::hypot(world.landmark(12).x() - world.landmark(0).x(),
                                world.landmark(12).y() - world.landmark(0).y());
  std::printf("hand world span wrist-middle tip %.3f m\n", span);
  EXPECT_GT(span, 0.08f);
  EXPECT_LT(span, 0.3f);
  EXPECT_LT(world.landmark(12).x(), world.landmark(0).x());

  // Upside down: no hand (no landmarks, presence low).
  auto flipped = RunOnRegion(
      "HandLandmarkCpu", {"LANDMARKS", "PRESENCE_SCORE"}, image_path,
      Rect(88.0f / 548, 95.0f / 342, 80.0f / 548, 80.0f / 342, kHalfPi));
  ASSERT_TRUE(flipped.ok()) << flipped.status();
  std::printf("upside-down hand presence %.3f\n",
              (*flipped)["presence_score"][0].Get<float>());
  EXPECT_LT((*flipped)["presence_score"][0].Get<float>(), 0.5f);
  EXPECT_TRUE((*flipped)["landmarks"].empty());
  // Grass.
  auto grass =
      RunOnRegion("HandLandmarkCpu", {"LANDMARKS", "PRESENCE_SCORE"},
                  image_path, Rect(0.15f, 0.9f, 60.0f / 548, 60.0f / 342));
  ASSERT_TRUE(grass.ok()) << grass.status();
  std::printf("grass hand presence %.3f\n",
              (*grass)["presence_score"][0].Get<float>());
  EXPECT_LT((*grass)["presence_score"][0].Get<float>(), 0.5f);
  EXPECT_TRUE((*grass)["landmarks"].empty());
}

}  // namespace
}  // namespace rill
