// The tracking solutions' models (hands, pose, face mesh with attention,
// holistic) on real crops of the test media: each imports with its names and
// shapes, its raw outputs on the optimized CPU kernels match the reference
// kernels, and what it says is right where the picture tells: the face mesh
// lies on Eileen Collins' face (astronaut.png) and the face flag is high;
// the palm detector finds Messi's open right hand (messi5.jpg) and nothing
// on the face; the pose detector finds the astronaut; hand_recrop's two
// points lie on the hand.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

struct Crop {
  const char* image;
  int x, y, w, h;  // in the image's pixels
};

// Eileen Collins' face with MediaPipe's margin (the face detector's box
// scaled 1.5), the whole portrait, Messi's open right hand.
constexpr Crop kFace{"astronaut.png", 125, 10, 200, 200};
constexpr Crop kPortrait{"astronaut.png", 0, 0, 512, 512};
constexpr Crop kHand{"messi5.jpg", 300, 105, 110, 110};

// The crop resized to size x size, RGB, scaled to [lo, hi] as MediaPipe's
// ImageToTensorCalculator does for the model.
bool FillFromCrop(const Crop& crop, int size, float lo, float hi, Tensor* t) {
  cv::Mat bgr = cv::imread(testing::MediaPath(crop.image), cv::IMREAD_COLOR);
  if (bgr.empty()) return false;
  cv::Mat rgb, small;
  cv::cvtColor(bgr(cv::Rect(crop.x, crop.y, crop.w, crop.h)), rgb, cv::COLOR_BGR2RGB);
  cv::resize(rgb, small, cv::Size(size, size), 0, 0, cv::INTER_AREA);
  if (t->num_elements() != static_cast<int64_t>(size) * size * 3 || !small.isContinuous()) return false;
  float* x = t->data_as<float>();
  for (int i = 0; i < size * size * 3; ++i) x[i] = lo + (hi - lo) * small.data[i] / 255.0f;
  return true;
}

struct OutputSpec {
  std::string name;
  Shape shape;
};

struct TrackingModel {
  std::string file;
  std::string input;
  int size;
  float lo, hi;
  Crop crop;
  std::vector<OutputSpec> outputs;
};

std::vector<TrackingModel> TrackingModels() {
  const std::vector<OutputSpec> palm = {{"Identity", {1, 2016, 18}}, {"Identity_1", {1, 2016, 1}}};
  return {
      {"palm_detection_full.tflite", "input_1", 192, 0, 1, kHand, palm},
      {"palm_detection_lite.tflite", "input_1", 192, 0, 1, kHand, palm},
      {"pose_detection.tflite", "input_1", 224, -1, 1, kPortrait,
       {{"Identity", {1, 2254, 12}}, {"Identity_1", {1, 2254, 1}}}},
      {"face_landmark.tflite", "input_1", 192, 0, 1, kFace,
       {{"conv2d_21", {1, 1, 1, 1404}}, {"conv2d_31", {1, 1, 1, 1}}}},
      {"face_landmark_with_attention.tflite", "input_1", 192, 0, 1, kFace,
       {{"output_mesh_identity", {1, 1, 1, 1404}},
        {"output_lips", {1, 1, 1, 160}},
        {"output_left_eye", {1, 1, 1, 142}},
        {"output_right_eye", {1, 1, 1, 142}},
        {"output_left_iris", {1, 1, 1, 10}},
        {"output_right_iris", {1, 1, 1, 10}},
        {"conv_faceflag", {1, 1, 1, 1}}}},
      {"hand_recrop.tflite", "input_1", 256, 0, 1, kHand, {{"output_crop", {1, 1, 1, 4}}}},
  };
}

// A session on `model` with `policy`, its input filled from the model's crop.
std::unique_ptr<Session> RunOnCrop(const TrackingModel& m, std::shared_ptr<const Model> model,
                                   AlgorithmPolicy policy) {
  SessionConfig config;
  config.algorithm = policy;
  auto s = Session::Create(model, config);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return nullptr;
  EXPECT_TRUE(FillFromCrop(m.crop, m.size, m.lo, m.hi, (*s)->input(0))) << m.crop.image;
  EXPECT_TRUE((*s)->Run().ok());
  return std::move(*s);
}

std::unique_ptr<Session> LoadAndRun(const std::string& file, AlgorithmPolicy policy = AlgorithmPolicy::kAuto) {
  for (const TrackingModel& m : TrackingModels()) {
    if (m.file != file) continue;
    auto model = Model::FromFile(testing::ModelPath(file));
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    if (!model.ok()) return nullptr;
    return RunOnCrop(m, *model, policy);
  }
  ADD_FAILURE() << file << " is not a tracking model";
  return nullptr;
}

class TrackingModelTest : public ::testing::TestWithParam<TrackingModel> {};

TEST_P(TrackingModelTest, NamesAndShapes) {
  const TrackingModel& m = GetParam();
  const std::string path = testing::ModelPath(m.file);
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->input_names(), std::vector<std::string>({m.input}));
  EXPECT_EQ((*model)->input_shapes()[0], Shape({1, m.size, m.size, 3}));
  std::vector<std::string> names;
  for (const OutputSpec& o : m.outputs) names.push_back(o.name);
  EXPECT_EQ((*model)->output_names(), names);
  auto s = Session::Create(*model);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  for (const OutputSpec& o : m.outputs) {
    ASSERT_NE((*s)->output(o.name), nullptr) << o.name;
    EXPECT_EQ((*s)->output(o.name)->shape(), o.shape) << o.name;
  }
}

// The optimized kernels against the reference kernels on the real crop:
// every output within 1e-3 of its largest magnitude (at least 1), as
// mediapipe_models_test holds the other MediaPipe models.
TEST_P(TrackingModelTest, AutoKernelsMatchReferenceOnRealInput) {
  const TrackingModel& m = GetParam();
  const std::string path = testing::ModelPath(m.file);
  RILL_SKIP_IF_MISSING(path);
  RILL_SKIP_IF_MISSING(testing::MediaPath(m.crop.image));
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::unique_ptr<Session> ref = RunOnCrop(m, *model, AlgorithmPolicy::kReference);
  std::unique_ptr<Session> opt = RunOnCrop(m, *model, AlgorithmPolicy::kAuto);
  ASSERT_TRUE(ref && opt);
  for (int o = 0; o < ref->num_outputs(); ++o) {
    const Tensor* a = ref->output(o);
    const Tensor* b = opt->output(o);
    ASSERT_EQ(a->shape(), b->shape());
    float max_abs = 0.0f, max_diff = 0.0f;
    for (int64_t i = 0; i < a->num_elements(); ++i) {
      ASSERT_TRUE(std::isfinite(b->data_as<float>()[i])) << a->name() << "[" << i << "]";
      max_abs = std::max(max_abs, std::fabs(a->data_as<float>()[i]));
      max_diff = std::max(max_diff, std::fabs(a->data_as<float>()[i] - b->data_as<float>()[i]));
    }
    std::printf("%s %s: |auto - reference| <= %.3g of %.3g\n", m.file.c_str(), a->name().c_str(), max_diff, max_abs);
    EXPECT_LE(max_diff, 1e-3f * std::max(1.0f, max_abs)) << a->name();
  }
}

INSTANTIATE_TEST_SUITE_P(All, TrackingModelTest, ::testing::ValuesIn(TrackingModels()),
                         [](const ::testing::TestParamInfo<TrackingModel>& info) {
                           return info.param.file.substr(0, info.param.file.find('.'));
                         });

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// ---- face mesh -------------------------------------------------------------------

struct Box {
  float xmin = 1e9f, ymin = 1e9f, xmax = -1e9f, ymax = -1e9f;
  void Add(float x, float y) {
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    ymin = std::min(ymin, y);
    ymax = std::max(ymax, y);
  }
};

// The x, y of `count` landmarks of `stride` floats each.
Box BoxOf(const Tensor* t, int stride) {
  Box b;
  const float* p = t->data_as<float>();
  for (int64_t i = 0; i + 1 < t->num_elements(); i += stride) b.Add(p[i], p[i + 1]);
  return b;
}

void ExpectFaceMesh(Session& s, const std::string& mesh, const std::string& flag) {
  const float presence = Sigmoid(s.output(flag)->data_as<float>()[0]);
  const Box face = BoxOf(s.output(mesh), 3);
  std::printf("%s: face presence %.4f, mesh x [%.1f, %.1f] y [%.1f, %.1f]\n", mesh.c_str(), presence, face.xmin,
              face.xmax, face.ymin, face.ymax);
  EXPECT_GT(presence, 0.9f);
  // Inside the 192 x 192 crop, and a face's size: the crop has a margin of
  // a quarter of the face on each side.
  EXPECT_GE(face.xmin, 0.0f);
  EXPECT_GE(face.ymin, 0.0f);
  EXPECT_LE(face.xmax, 192.0f);
  EXPECT_LE(face.ymax, 192.0f);
  EXPECT_GT(face.xmax - face.xmin, 60.0f);
  EXPECT_GT(face.ymax - face.ymin, 80.0f);
}

TEST(TrackingModelSemanticsTest, FaceMeshWithAttentionOnTheAstronautsFace) {
  RILL_SKIP_IF_MISSING(testing::ModelPath("face_landmark_with_attention.tflite"));
  RILL_SKIP_IF_MISSING(testing::MediaPath(kFace.image));
  std::unique_ptr<Session> s = LoadAndRun("face_landmark_with_attention.tflite");
  ASSERT_TRUE(s);
  ExpectFaceMesh(*s, "output_mesh_identity", "conv_faceflag");
  const Box face = BoxOf(s->output("output_mesh_identity"), 3);
  // The refined regions (2-D landmarks, warped back by the custom ops)
  // inside the face; each iris inside its eye's contour, the eyes above the
  // lips and apart ("left" is the image's left).
  const Box lips = BoxOf(s->output("output_lips"), 2);
  const Box left_eye = BoxOf(s->output("output_left_eye"), 2);
  const Box right_eye = BoxOf(s->output("output_right_eye"), 2);
  for (const Box* b : {&lips, &left_eye, &right_eye}) {
    EXPECT_GT(b->xmin, face.xmin - 2);
    EXPECT_LT(b->xmax, face.xmax + 2);
    EXPECT_GT(b->ymin, face.ymin - 2);
    EXPECT_LT(b->ymax, face.ymax + 2);
  }
  EXPECT_LT(left_eye.ymax, lips.ymin);
  EXPECT_LT(right_eye.ymax, lips.ymin);
  EXPECT_LT(left_eye.xmax, right_eye.xmin);
  // Each refined landmark lies on the mesh: within a few pixels of the
  // nearest of the 468 mesh points (mean over the region).
  const float* mesh = s->output("output_mesh_identity")->data_as<float>();
  for (const char* region : {"output_lips", "output_left_eye", "output_right_eye"}) {
    const Tensor* t = s->output(region);
    double sum = 0;
    for (int64_t i = 0; i < t->num_elements(); i += 2) {
      float nearest = 1e9f;
      for (int k = 0; k < 468; ++k) {
        nearest = std::min(nearest, std::hypot(t->data_as<float>()[i] - mesh[3 * k],
                                               t->data_as<float>()[i + 1] - mesh[3 * k + 1]));
      }
      sum += nearest;
    }
    const double mean = sum / (t->num_elements() / 2);
    std::printf("%s: mean distance to the mesh %.2f px\n", region, mean);
    EXPECT_LT(mean, 3.0) << region;
  }
  for (const auto& [iris_name, eye] : {std::make_pair("output_left_iris", left_eye),
                                       std::make_pair("output_right_iris", right_eye)}) {
    const float* iris = s->output(iris_name)->data_as<float>();  // centre first, then 4 contour points
    std::printf("%s centre (%.1f, %.1f), eye x [%.1f, %.1f] y [%.1f, %.1f]\n", iris_name, iris[0], iris[1], eye.xmin,
                eye.xmax, eye.ymin, eye.ymax);
    EXPECT_GT(iris[0], eye.xmin);
    EXPECT_LT(iris[0], eye.xmax);
    EXPECT_GT(iris[1], eye.ymin);
    EXPECT_LT(iris[1], eye.ymax);
  }
}

TEST(TrackingModelSemanticsTest, FaceMeshWithoutAttentionAgrees) {
  RILL_SKIP_IF_MISSING(testing::ModelPath("face_landmark.tflite"));
  RILL_SKIP_IF_MISSING(testing::ModelPath("face_landmark_with_attention.tflite"));
  RILL_SKIP_IF_MISSING(testing::MediaPath(kFace.image));
  std::unique_ptr<Session> plain = LoadAndRun("face_landmark.tflite");
  std::unique_ptr<Session> attention = LoadAndRun("face_landmark_with_attention.tflite");
  ASSERT_TRUE(plain && attention);
  ExpectFaceMesh(*plain, "conv2d_21", "conv2d_31");
  // The two meshes (the same 468-point topology) agree to a few pixels.
  const float* a = plain->output("conv2d_21")->data_as<float>();
  const float* b = attention->output("output_mesh_identity")->data_as<float>();
  double sum = 0;
  for (int i = 0; i < 468; ++i) sum += std::hypot(a[3 * i] - b[3 * i], a[3 * i + 1] - b[3 * i + 1]);
  std::printf("mean distance between the meshes: %.2f px\n", sum / 468);
  EXPECT_LT(sum / 468, 6.0);
}

// ---- detectors -----------------------------------------------------------------------

// SSD anchors with fixed size (as MediaPipe's SsdAnchorsCalculator builds
// them for the palm and pose detectors): layers of equal stride share a
// feature map, each layer adding 2 anchors per cell.
std::vector<std::pair<float, float>> Anchors(int input_size, const std::vector<int>& strides) {
  std::vector<std::pair<float, float>> anchors;
  size_t layer = 0;
  while (layer < strides.size()) {
    size_t last = layer;
    while (last < strides.size() && strides[last] == strides[layer]) ++last;
    const int per_cell = 2 * static_cast<int>(last - layer);
    const int fm = (input_size + strides[layer] - 1) / strides[layer];
    for (int y = 0; y < fm; ++y) {
      for (int x = 0; x < fm; ++x) {
        for (int k = 0; k < per_cell; ++k) anchors.push_back({(x + 0.5f) / fm, (y + 0.5f) / fm});
      }
    }
    layer = last;
  }
  return anchors;
}

struct Best {
  float score = 0;
  float cx = 0, cy = 0, w = 0, h = 0;  // normalized
};

// The highest-scoring anchor's detection.
Best BestDetection(Session& s, int input_size, const std::vector<int>& strides) {
  const auto anchors = Anchors(input_size, strides);
  const Tensor* boxes = s.output("Identity");
  const Tensor* scores = s.output("Identity_1");
  EXPECT_EQ(static_cast<int64_t>(anchors.size()), scores->num_elements());
  const int coords = static_cast<int>(boxes->num_elements() / scores->num_elements());
  Best best;
  best.score = -1;
  for (size_t i = 0; i < anchors.size(); ++i) {
    const float score = Sigmoid(std::clamp(scores->data_as<float>()[i], -100.0f, 100.0f));
    if (score <= best.score) continue;
    const float* r = boxes->data_as<float>() + i * coords;
    best = {score, r[0] / input_size + anchors[i].first, r[1] / input_size + anchors[i].second, r[2] / input_size,
            r[3] / input_size};
  }
  return best;
}

TEST(TrackingModelSemanticsTest, PalmDetectorsFindMessisHandAndNotTheFace) {
  for (const char* file : {"palm_detection_full.tflite", "palm_detection_lite.tflite"}) {
    RILL_SKIP_IF_MISSING(testing::ModelPath(file));
    RILL_SKIP_IF_MISSING(testing::MediaPath(kHand.image));
    RILL_SKIP_IF_MISSING(testing::MediaPath(kFace.image));
    std::unique_ptr<Session> s = LoadAndRun(file);
    ASSERT_TRUE(s);
    const Best hand = BestDetection(*s, 192, {8, 16, 16, 16});
    std::printf("%s on the hand: score %.3f centre (%.2f, %.2f) size %.2f x %.2f\n", file, hand.score, hand.cx,
                hand.cy, hand.w, hand.h);
    EXPECT_GT(hand.score, 0.5f) << file;
    EXPECT_GT(hand.cx, 0.2f);
    EXPECT_LT(hand.cx, 0.8f);
    EXPECT_GT(hand.cy, 0.2f);
    EXPECT_LT(hand.cy, 0.8f);
    EXPECT_GT(hand.w, 0.1f);
    // The astronaut's face crop: no palm.
    auto model = Model::FromFile(testing::ModelPath(file));
    ASSERT_TRUE(model.ok());
    auto face = Session::Create(*model);
    ASSERT_TRUE(face.ok());
    ASSERT_TRUE(FillFromCrop(kFace, 192, 0, 1, (*face)->input(0)));
    ASSERT_TRUE((*face)->Run().ok());
    const Best none = BestDetection(**face, 192, {8, 16, 16, 16});
    std::printf("%s on the face: best score %.3f\n", file, none.score);
    EXPECT_LT(none.score, 0.5f) << file;
  }
}

TEST(TrackingModelSemanticsTest, PoseDetectorFindsTheAstronaut) {
  RILL_SKIP_IF_MISSING(testing::ModelPath("pose_detection.tflite"));
  RILL_SKIP_IF_MISSING(testing::MediaPath(kPortrait.image));
  std::unique_ptr<Session> s = LoadAndRun("pose_detection.tflite");
  ASSERT_TRUE(s);
  const Best person = BestDetection(*s, 224, {8, 16, 32, 32, 32});
  std::printf("pose_detection: score %.3f centre (%.2f, %.2f) size %.2f x %.2f\n", person.score, person.cx, person.cy,
              person.w, person.h);
  EXPECT_GT(person.score, 0.5f);
  // The box is the face's (the detector's box; its keypoints lead to the
  // body): upper middle of the portrait.
  EXPECT_GT(person.cx, 0.3f);
  EXPECT_LT(person.cx, 0.6f);
  EXPECT_GT(person.cy, 0.05f);
  EXPECT_LT(person.cy, 0.45f);
}

TEST(TrackingModelSemanticsTest, HandRecropPointsLieOnTheHand) {
  RILL_SKIP_IF_MISSING(testing::ModelPath("hand_recrop.tflite"));
  RILL_SKIP_IF_MISSING(testing::MediaPath(kHand.image));
  std::unique_ptr<Session> s = LoadAndRun("hand_recrop.tflite");
  ASSERT_TRUE(s);
  const float* p = s->output("output_crop")->data_as<float>();
  std::printf("hand_recrop: (%.1f, %.1f) (%.1f, %.1f)\n", p[0], p[1], p[2], p[3]);
  for (int i = 0; i < 4; ++i) {
    EXPECT_GT(p[i], 0.0f);
    EXPECT_LT(p[i], 256.0f);
  }
  // The first is the hand's centre: in the middle of the crop, where the
  // palm detectors put it too (about (0.5, 0.56) of their crop).
  EXPECT_NEAR(p[0], 128.0f, 40.0f);
  EXPECT_NEAR(p[1], 0.56f * 256, 40.0f);
}

}  // namespace
}  // namespace rill::inference
