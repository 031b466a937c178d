// End to end: MediaPipe's tracking solutions (graphs/hand_landmark,
// graphs/pose_landmark, graphs/face_landmark) on real video and on image
// sequences made from the test images. What tracking must do, as in
// MediaPipe:
//   - the detector runs only on frames where tracking has fewer than the
//     requested objects (counted from its output stream, which only has a
//     packet on frames where it ran);
//   - an object that leaves the frame is dropped, and picked up again by the
//     detector when it comes back;
//   - landmarks agree with an independent model (the face detector's
//     keypoints for the face mesh) or with hand-checked positions;
//   - smoothing makes landmarks steadier from frame to frame.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <set>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"
#include "gtest/gtest.h"
#include "tests/solutions/solution_test_util.h"

namespace rill {
namespace {

using solutions::Dist;
using solutions::FileExists;
using solutions::FramePackets;
using solutions::FramesOf;
using solutions::LeaveAndReturn;
using solutions::LoadRgb;
using solutions::MediaPath;
using solutions::ModelPath;
using solutions::VideoFrames;

// Runs a one-node graph around `subgraph`: input IMAGE:image, the given
// outputs (tag -> stream name) observed, side packets by tag.
// `internal` names streams inside the expanded subgraph to observe too
// (e.g. the image the detector gets: a packet there is a detector run).
absl::StatusOr<StreamPackets> RunTracker(
    const std::string& subgraph, const std::map<std::string, std::string>& outputs,
    std::vector<ImageFrame> frames, const std::map<std::string, Packet>& sides,
    const std::vector<std::string>& internal = {}) {
  std::string config = "input_stream: \"image\"\n";
  std::string node = "node { calculator: \"" + subgraph + "\" input_stream: \"IMAGE:image\"\n";
  std::vector<std::string> observed;
  for (const auto& [tag, name] : outputs) {
    config += "output_stream: \"" + name + "\"\n";
    node += "  output_stream: \"" + tag + ":" + name + "\"\n";
    observed.push_back(name);
  }
  for (const std::string& name : internal) observed.push_back(name);
  std::map<std::string, Packet> side_packets;
  for (const auto& [tag, packet] : sides) {
    std::string name = tag;
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    config += "input_side_packet: \"" + name + "\"\n";
    node += "  input_side_packet: \"" + tag + ":" + name + "\"\n";
    side_packets[name] = packet;
  }
  return RunGraph(config + node + "}\n", observed, {{"image", FramePackets(std::move(frames))}},
                  side_packets);
}


// The images the detectors get, inside the expanded tracking subgraphs: a
// packet there is a frame the detector ran on (whatever it found).
constexpr char kFaceDetectorImage[] = "face_landmark_front_cpu__gated_image";
constexpr char kPalmDetectorImage[] = "hand_landmark_tracking_cpu__palm_detection_image";
constexpr char kPoseDetectorImage[] = "pose_landmark_cpu__image_for_pose_detection";

// ---------------------------------------------------------------- face mesh

class FaceMeshTrackingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RILL_REQUIRE(FileExists(ModelPath("face_landmark.tflite")) &&
                     FileExists(ModelPath("face_landmark_with_attention.tflite")) &&
                     FileExists(ModelPath("face_detection_short_range.tflite")) &&
                     FileExists(MediaPath("Megamind.avi")),
                 "models or media missing: run scripts/fetch_models.sh");
    solutions::UseGraphs({"face_landmark", "face_detection"});
  }
};

// On Megamind.avi the face is tracked from frame to frame: the detector
// runs on the first frame and then only if the face is lost; the mesh's eyes,
// nose and mouth sit where the face detector (a different model) puts them.
TEST_F(FaceMeshTrackingTest, MegamindDetectsOnceThenTracks) {
  constexpr int kFrames = 40;
  std::vector<ImageFrame> frames = VideoFrames(MediaPath("Megamind.avi"), kFrames);
  ASSERT_EQ(static_cast<int>(frames.size()), kFrames);
  auto out = RunTracker("FaceLandmarkFrontCpu", {{"LANDMARKS", "faces"}}, std::move(frames),
                        {{"NUM_FACES", MakePacket<int>(1)},
                         {"WITH_ATTENTION", MakePacket<bool>(true)}},
                        {kFaceDetectorImage});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::set<int> detected = FramesOf((*out)[kFaceDetectorImage]);
  const std::set<int> tracked = FramesOf((*out)["faces"]);
  std::printf("face mesh: detector ran on %zu of %d frames, mesh on %zu\n",
              detected.size(), kFrames, tracked.size());
  // The first frame has no face the detector finds (the face is turned
  // away), so it runs again on the second, then never: tracking holds.
  EXPECT_TRUE(detected.count(0)) << "the detector must run on the first frame";
  EXPECT_LE(detected.size(), 3u);
  EXPECT_GE(tracked.size(), static_cast<size_t>(kFrames * 9 / 10));
  for (const Packet& p : (*out)["faces"]) {
    const auto& faces = p.Get<std::vector<NormalizedLandmarkList>>();
    ASSERT_EQ(faces.size(), 1u);
    ASSERT_EQ(faces[0].landmark_size(), 478);  // 468 + 10 iris points
  }
}

// The mesh against the face detector's keypoints on the same frame: right
// eye, left eye, nose tip, mouth centre (keypoints 0..3).
TEST_F(FaceMeshTrackingTest, MeshAgreesWithTheFaceDetectorsKeypoints) {
  constexpr int kFrame = 10;  // tracked since frame 1
  std::vector<ImageFrame> frames = VideoFrames(MediaPath("Megamind.avi"), kFrame + 1);
  ASSERT_EQ(frames.size(), static_cast<size_t>(kFrame + 1));
  ImageFrame copy = formats::FromMat(formats::MatView(&frames[kFrame]).clone(), ImageFormat::SRGB);
  auto mesh = RunTracker("FaceLandmarkFrontCpu", {{"LANDMARKS", "faces"}}, std::move(frames),
                         {{"NUM_FACES", MakePacket<int>(1)},
                          {"WITH_ATTENTION", MakePacket<bool>(true)}});
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  std::vector<ImageFrame> one;
  one.push_back(std::move(copy));
  auto det = RunTracker("FaceDetectionShortRangeCpu", {{"DETECTIONS", "detections"}},
                        std::move(one), {});
  ASSERT_TRUE(det.ok()) << det.status();
  ASSERT_FALSE((*mesh)["faces"].empty());
  ASSERT_EQ(FramesOf({(*mesh)["faces"].back()}), (std::set<int>{kFrame}));
  ASSERT_EQ((*det)["detections"].size(), 1u);
  const auto& lm = (*mesh)["faces"].back().Get<std::vector<NormalizedLandmarkList>>()[0];
  // The detector may find more than one face (the frame has a second, small
  // one): take the one whose box holds the mesh's nose tip.
  const auto& dets = (*det)["detections"][0].Get<std::vector<Detection>>();
  const Detection* face = nullptr;
  for (const Detection& d : dets) {
    const auto& b = d.location_data().relative_bounding_box();
    const auto& nose = lm.landmark(1);
    if (nose.x() > b.xmin() && nose.x() < b.xmin() + b.width() && nose.y() > b.ymin() &&
        nose.y() < b.ymin() + b.height()) {
      face = &d;
    }
  }
  ASSERT_NE(face, nullptr) << "no face detection holds the mesh's nose tip";
  const auto& kp = face->location_data().relative_keypoints();
  const float face_w = face->location_data().relative_bounding_box().width();
  // Iris centres (468: one eye, 473: the other) against the eye keypoints:
  // the detector's keypoint 0 is the eye on the image's left.
  const auto& iris_a = lm.landmark(468);
  const auto& iris_b = lm.landmark(473);
  const auto& left_iris = iris_a.x() < iris_b.x() ? iris_a : iris_b;
  const auto& right_iris = iris_a.x() < iris_b.x() ? iris_b : iris_a;
  const float tolerance = 0.12f * face_w;
  EXPECT_LT(Dist(left_iris, kp[0].x(), kp[0].y()), tolerance);
  EXPECT_LT(Dist(right_iris, kp[1].x(), kp[1].y()), tolerance);
  // The detector's nose and mouth keypoints are coarser (measured here on a
  // face turned three-quarters: 0.18 and 0.15 of the face's width off).
  const float coarse = 0.25f * face_w;
  EXPECT_LT(Dist(lm.landmark(1), kp[2].x(), kp[2].y()), coarse);  // nose tip
  // Mouth centre: between the inner lip points 13 and 14.
  NormalizedLandmark mouth;
  mouth.set_x((lm.landmark(13).x() + lm.landmark(14).x()) / 2);
  mouth.set_y((lm.landmark(13).y() + lm.landmark(14).y()) / 2);
  EXPECT_LT(Dist(mouth, kp[3].x(), kp[3].y()), coarse);
}

// The face leaves (gray frames) and comes back: no mesh while it is away,
// the detector runs on every frame without a face and finds it again.
TEST_F(FaceMeshTrackingTest, FaceLeavingAndReturningIsPickedUpAgain) {
  const ImageFrame astronaut = LoadRgb(MediaPath("astronaut.png"));
  ASSERT_GT(astronaut.Width(), 0);
  auto out = RunTracker("FaceLandmarkFrontCpu", {{"LANDMARKS", "faces"}},
                        LeaveAndReturn(astronaut, 4, 3, 4),
                        {{"NUM_FACES", MakePacket<int>(1)},
                         {"WITH_ATTENTION", MakePacket<bool>(false)}},
                        {kFaceDetectorImage});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(FramesOf((*out)["faces"]), (std::set<int>{0, 1, 2, 3, 7, 8, 9, 10}));
  // Frame 4 (gray) still runs the mesh on frame 3's region, which finds no
  // face; 5 and 6 detect and find none; 7 detects the face again.
  EXPECT_EQ(FramesOf((*out)[kFaceDetectorImage]), (std::set<int>{0, 5, 6, 7}));
  for (const Packet& p : (*out)["faces"]) {
    ASSERT_EQ(p.Get<std::vector<NormalizedLandmarkList>>()[0].landmark_size(), 468);
  }
}

// ---------------------------------------------------------------- hands

class HandTrackingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RILL_REQUIRE(FileExists(ModelPath("palm_detection_full.tflite")) &&
                     FileExists(ModelPath("palm_detection_lite.tflite")) &&
                     FileExists(ModelPath("hand_landmark_full.tflite")) &&
                     FileExists(MediaPath("messi5.jpg")),
                 "models or media missing: run scripts/fetch_models.sh");
    solutions::UseGraphs({"hand_landmark", "palm_detection"});
  }
};

// Messi's left hand (on the image's right, beside his body, about (350,
// 165) px of 548x342): found by the palm detector on the first frame, then
// tracked with the landmarks' region; it leaves and comes back. (His
// outstretched right hand is too small and blurred for the palm detector at
// this size, as in MediaPipe.)
void CheckHandTracking(int model_complexity) {
  const ImageFrame messi = LoadRgb(MediaPath("messi5.jpg"));
  ASSERT_GT(messi.Width(), 0);
  auto out = RunTracker("HandLandmarkTrackingCpu",
                        {{"LANDMARKS", "hands"},
                         {"PALM_DETECTIONS", "palms"},
                         {"HANDEDNESS", "handedness"}},
                        LeaveAndReturn(messi, 5, 2, 5),
                        {{"NUM_HANDS", MakePacket<int>(1)},
                         {"MODEL_COMPLEXITY", MakePacket<int>(model_complexity)}},
                        {kPalmDetectorImage});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(FramesOf((*out)["hands"]), (std::set<int>{0, 1, 2, 3, 4, 7, 8, 9, 10, 11}));
  // Frame 5 (gray) runs the landmarks on frame 4's region and loses the
  // hand; 6 detects nothing; 7 detects it again.
  EXPECT_EQ(FramesOf((*out)[kPalmDetectorImage]), (std::set<int>{0, 6, 7}));
  // The palm detector's output has packets only where it found a palm.
  EXPECT_EQ(FramesOf((*out)["palms"]), (std::set<int>{0, 7}));
  for (const Packet& p : (*out)["hands"]) {
    const auto& hands = p.Get<std::vector<NormalizedLandmarkList>>();
    ASSERT_EQ(hands.size(), 1u);
    ASSERT_EQ(hands[0].landmark_size(), 21);
    // Every landmark on the hand: x 320..415 px, y 125..205 px.
    for (int i = 0; i < 21; ++i) {
      EXPECT_GT(hands[0].landmark(i).x() * 548, 320) << i;
      EXPECT_LT(hands[0].landmark(i).x() * 548, 415) << i;
      EXPECT_GT(hands[0].landmark(i).y() * 342, 125) << i;
      EXPECT_LT(hands[0].landmark(i).y() * 342, 205) << i;
    }
    // The wrist where the pose model's left wrist was checked by eye
    // (0.641, 0.481; tests/solutions/landmarks_test.cc): two models agree.
    EXPECT_LT(Dist(hands[0].landmark(0), 0.641f, 0.481f), 0.04f);
  }
  // The detector's palm on frame 0 holds the landmarks' wrist.
  ASSERT_FALSE((*out)["palms"].empty());
  const auto& palms = (*out)["palms"][0].Get<std::vector<Detection>>();
  ASSERT_EQ(palms.size(), 1u);
  const auto& box = palms[0].location_data().relative_bounding_box();
  const auto& wrist = (*out)["hands"][0].Get<std::vector<NormalizedLandmarkList>>()[0].landmark(0);
  EXPECT_GT(wrist.x(), box.xmin() - 0.05f);
  EXPECT_LT(wrist.x(), box.xmin() + box.width() + 0.05f);
  EXPECT_GT(wrist.y(), box.ymin() - 0.05f);
  EXPECT_LT(wrist.y(), box.ymin() + box.height() + 0.05f);
}

TEST_F(HandTrackingTest, MessisHandFullModels) { CheckHandTracking(1); }
TEST_F(HandTrackingTest, MessisHandLiteModels) { CheckHandTracking(0); }

// ---------------------------------------------------------------- pose

class PoseTrackingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RILL_REQUIRE(FileExists(ModelPath("pose_detection.tflite")) &&
                     FileExists(ModelPath("pose_landmark_full.tflite")) &&
                     FileExists(MediaPath("messi5.jpg")) && FileExists(MediaPath("Megamind.avi")),
                 "models or media missing: run scripts/fetch_models.sh");
    solutions::UseGraphs({"pose_landmark", "pose_detection"});
  }
};

// Messi, still, for 6 frames: one detection, then tracking; the landmarks
// where they were checked by eye (tests/solutions/landmarks_test.cc), the
// mask covering him and not the grass in the corner.
TEST_F(PoseTrackingTest, MessiDetectsOnceAndFindsTheCheckedLandmarks) {
  const ImageFrame messi = LoadRgb(MediaPath("messi5.jpg"));
  ASSERT_GT(messi.Width(), 0);
  auto out = RunTracker("PoseLandmarkCpu",
                        {{"LANDMARKS", "pose"},
                         {"DETECTION", "detection"},
                         {"SEGMENTATION_MASK", "mask"}},
                        LeaveAndReturn(messi, 6, 0, 0),
                        {{"ENABLE_SEGMENTATION", MakePacket<bool>(true)}},
                        {kPoseDetectorImage});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(FramesOf((*out)[kPoseDetectorImage]), (std::set<int>{0}));
  EXPECT_EQ(FramesOf((*out)["detection"]), (std::set<int>{0}));
  ASSERT_EQ(FramesOf((*out)["pose"]), (std::set<int>{0, 1, 2, 3, 4, 5}));
  const auto& lms = (*out)["pose"].back().Get<NormalizedLandmarkList>();
  ASSERT_EQ(lms.landmark_size(), 33);
  struct Expect {
    int index;
    float x, y;
  };
  for (const Expect& e : std::vector<Expect>{{0, 0.460f, 0.344f},
                                             {11, 0.500f, 0.370f},
                                             {12, 0.371f, 0.385f},
                                             {15, 0.641f, 0.481f},
                                             {16, 0.206f, 0.311f},
                                             {23, 0.510f, 0.645f},
                                             {24, 0.434f, 0.685f},
                                             {27, 0.697f, 0.767f},
                                             {28, 0.532f, 0.894f}}) {
    // The ankles were marked by eye at the top of the boot, where the
    // model's ankle sits lower on the kicking leg: 0.07 for them.
    const float tolerance = e.index >= 27 ? 0.07f : 0.05f;
    EXPECT_NEAR(lms.landmark(e.index).x(), e.x, tolerance) << "landmark " << e.index;
    EXPECT_NEAR(lms.landmark(e.index).y(), e.y, tolerance) << "landmark " << e.index;
  }
  ASSERT_FALSE((*out)["mask"].empty());
  const ImageFrame& mask = (*out)["mask"].back().Get<ImageFrame>();
  ASSERT_EQ(mask.Width(), 548);
  ASSERT_EQ(mask.Height(), 342);
  auto at = [&](float x, float y) {
    return reinterpret_cast<const float*>(mask.Row(static_cast<int>(y * 342)))[static_cast<int>(x * 548)];
  };
  EXPECT_GT(at(0.47f, 0.50f), 0.5f);  // his chest
  EXPECT_LT(at(0.95f, 0.10f), 0.2f);  // grass, top right
}

// Median frame-to-frame second difference (jerk) of the visible landmarks
// over consecutive frames (the median, so a scene cut does not dominate).
double Jitter(const std::vector<Packet>& packets) {
  std::vector<double> jerks;
  for (size_t f = 2; f < packets.size(); ++f) {
    const auto& a = packets[f - 2].Get<NormalizedLandmarkList>();
    const auto& b = packets[f - 1].Get<NormalizedLandmarkList>();
    const auto& c = packets[f].Get<NormalizedLandmarkList>();
    if (packets[f].Timestamp().Value() - packets[f - 2].Timestamp().Value() != 2 * solutions::kFrameUs) {
      continue;  // a frame without landmarks in between
    }
    for (int i = 0; i < c.landmark_size(); ++i) {
      if (c.landmark(i).visibility() < 0.5f) continue;
      jerks.push_back(std::hypot(a.landmark(i).x() - 2 * b.landmark(i).x() + c.landmark(i).x(),
                                 a.landmark(i).y() - 2 * b.landmark(i).y() + c.landmark(i).y()));
    }
  }
  if (jerks.empty()) return 0;
  std::nth_element(jerks.begin(), jerks.begin() + jerks.size() / 2, jerks.end());
  return jerks[jerks.size() / 2];
}

// The woman of Megamind.avi (upper body) tracked over 30 frames: the
// detector runs once (or again if she is lost), and smoothing reduces the
// landmarks' frame-to-frame jerk. (vtest.avi's pedestrians are too small
// for the pose detector's 224x224 input, as in MediaPipe.)
TEST_F(PoseTrackingTest, MegamindTracksWithFewDetectionsAndSmoothingSteadies) {
  constexpr int kFrames = 30;
  std::map<bool, double> jitter;
  for (bool smooth : {false, true}) {
    std::vector<ImageFrame> frames = VideoFrames(MediaPath("Megamind.avi"), kFrames);
    ASSERT_EQ(static_cast<int>(frames.size()), kFrames);
    auto out = RunTracker("PoseLandmarkCpu", {{"LANDMARKS", "pose"}}, std::move(frames),
                          {{"SMOOTH_LANDMARKS", MakePacket<bool>(smooth)}},
                          {kPoseDetectorImage});
    ASSERT_TRUE(out.ok()) << out.status();
    const size_t detections = FramesOf((*out)[kPoseDetectorImage]).size();
    std::printf("pose on Megamind (smooth %d): %zu detector runs, %zu frames with landmarks\n",
                smooth, detections, (*out)["pose"].size());
    EXPECT_LE(detections, 3u);
    EXPECT_GE((*out)["pose"].size(), static_cast<size_t>(kFrames * 9 / 10));
    jitter[smooth] = Jitter((*out)["pose"]);
  }
  std::printf("pose jerk: raw %.5f, smoothed %.5f\n", jitter[false], jitter[true]);
  // Measured: about half.
  EXPECT_LT(jitter[true], 0.7 * jitter[false]);
}

}  // namespace
}  // namespace rill
