// End to end on real data: MediaPipe's face detectors on the astronaut
// portrait (skimage's astronaut.png). The raw outputs are decoded with
// MediaPipe's SSD anchors and options; there must be exactly one confident
// face, where the face is.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

struct Anchor {
  float x, y;  // centre, normalised; fixed anchor size: w = h = 1
};

// SSD anchors as MediaPipe's SsdAnchorsCalculator builds them with
// fixed_anchor_size: layers of equal stride share one feature map, each layer
// adding 2 anchors per cell (aspect ratio 1 and the interpolated scale)
// unless the interpolated ratio is 0.
std::vector<Anchor> MakeAnchors(int input_size, const std::vector<int>& strides, bool interpolated) {
  std::vector<Anchor> anchors;
  size_t layer = 0;
  while (layer < strides.size()) {
    size_t last = layer;
    int per_cell = 0;
    while (last < strides.size() && strides[last] == strides[layer]) {
      per_cell += interpolated ? 2 : 1;
      ++last;
    }
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

struct Detection {
  float score;
  float xmin, ymin, xmax, ymax;
};

float IoU(const Detection& a, const Detection& b) {
  const float iw = std::max(0.0f, std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin));
  const float ih = std::max(0.0f, std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin));
  const float inter = iw * ih;
  const float uni = (a.xmax - a.xmin) * (a.ymax - a.ymin) + (b.xmax - b.xmin) * (b.ymax - b.ymin) - inter;
  return uni > 0 ? inter / uni : 0.0f;
}

std::vector<Detection> Decode(const Tensor& boxes, const Tensor& scores, const std::vector<Anchor>& anchors,
                              float scale, float min_score) {
  std::vector<Detection> found;
  const int n = static_cast<int>(anchors.size());
  const int coords = static_cast<int>(boxes.num_elements() / n);
  const float* b = boxes.data_as<float>();
  const float* s = scores.data_as<float>();
  for (int i = 0; i < n; ++i) {
    const float raw = std::min(std::max(s[i], -100.0f), 100.0f);
    const float score = 1.0f / (1.0f + std::exp(-raw));
    if (score < min_score) continue;
    const float* r = b + static_cast<long>(i) * coords;
    const float cx = r[0] / scale + anchors[i].x;
    const float cy = r[1] / scale + anchors[i].y;
    const float w = r[2] / scale, h = r[3] / scale;
    found.push_back({score, cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
  }
  // Non-maximum suppression (MediaPipe's face graphs use 0.3 overlap).
  std::sort(found.begin(), found.end(), [](const Detection& a, const Detection& b) { return a.score > b.score; });
  std::vector<Detection> kept;
  for (const Detection& d : found) {
    bool suppressed = false;
    for (const Detection& k : kept) suppressed = suppressed || IoU(d, k) > 0.3f;
    if (!suppressed) kept.push_back(d);
  }
  return kept;
}

struct DetectorSpec {
  std::string model;
  int input_size;
  std::vector<int> strides;
  bool interpolated;
};

class FaceDetectionTest : public ::testing::TestWithParam<DetectorSpec> {};

TEST_P(FaceDetectionTest, OneConfidentFaceOnAstronaut) {
  const DetectorSpec& spec = GetParam();
  const std::string model_path = testing::ModelPath(spec.model);
  const std::string image_path = testing::MediaPath("astronaut.png");
  RILL_SKIP_IF_MISSING(model_path);
  RILL_SKIP_IF_MISSING(image_path);
  cv::Mat bgr = cv::imread(image_path, cv::IMREAD_COLOR);
  ASSERT_FALSE(bgr.empty());
  cv::Mat rgb, small;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  cv::resize(rgb, small, cv::Size(spec.input_size, spec.input_size), 0, 0, cv::INTER_AREA);

  auto model = Model::FromFile(model_path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  SessionConfig config;
  config.algorithm = AlgorithmPolicy::kReference;
  auto session = Session::Create(*model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Session& s = **session;
  Tensor* in = s.input(0);
  ASSERT_EQ(in->shape(), Shape({1, spec.input_size, spec.input_size, 3}));
  float* x = in->data_as<float>();
  for (int i = 0; i < spec.input_size * spec.input_size * 3; ++i) x[i] = small.data[i] / 127.5f - 1.0f;
  ASSERT_TRUE(s.Run().ok());

  // The box output has 16 values per anchor, the score output 1.
  const Tensor* boxes = s.output(0);
  const Tensor* scores = s.output(1);
  if (boxes->num_elements() < scores->num_elements()) std::swap(boxes, scores);
  const std::vector<Anchor> anchors = MakeAnchors(spec.input_size, spec.strides, spec.interpolated);
  ASSERT_EQ(static_cast<int64_t>(anchors.size()), scores->num_elements());
  const std::vector<Detection> faces = Decode(*boxes, *scores, anchors, static_cast<float>(spec.input_size), 0.5f);
  for (const Detection& d : faces) {
    std::printf("%s: face score %.3f box x[%.3f, %.3f] y[%.3f, %.3f]\n", spec.model.c_str(), d.score, d.xmin, d.xmax,
                d.ymin, d.ymax);
  }
  ASSERT_EQ(faces.size(), 1u);
  // Eileen Collins' face is in the upper middle of the portrait.
  const Detection& f = faces[0];
  const float cx = (f.xmin + f.xmax) / 2, cy = (f.ymin + f.ymax) / 2;
  EXPECT_GT(cx, 0.3f);
  EXPECT_LT(cx, 0.65f);
  EXPECT_GT(cy, 0.1f);
  EXPECT_LT(cy, 0.5f);
  EXPECT_GT(f.xmax - f.xmin, 0.1f);
  EXPECT_LT(f.xmax - f.xmin, 0.6f);
}

INSTANTIATE_TEST_SUITE_P(
    MediaPipe, FaceDetectionTest,
    ::testing::Values(DetectorSpec{"face_detection_short_range.tflite", 128, {8, 16, 16, 16}, true},
                      DetectorSpec{"face_detection_full_range.tflite", 192, {4}, false},
                      DetectorSpec{"face_detection_full_range_sparse.tflite", 192, {4}, false}),
    [](const ::testing::TestParamInfo<DetectorSpec>& info) {
      return info.param.model.substr(0, info.param.model.find('.'));
    });

}  // namespace
}  // namespace rill::inference
