// Every MediaPipe model loads, plans and runs on the reference kernels, and
// its outputs are finite. Also checks the model-level API: names, shapes,
// resize and a repeatable run.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

using testing::ModelPath;

class MediaPipeModelTest : public ::testing::TestWithParam<std::string> {};

void FillInput(Tensor* t) {
  float* x = t->data_as<float>();
  for (int64_t i = 0; i < t->num_elements(); ++i) x[i] = std::sin(0.001f * static_cast<float>(i % 9973)) ;
}

TEST_P(MediaPipeModelTest, LoadsAndRuns) {
  const std::string path = ModelPath(GetParam());
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  SessionConfig config;
  config.algorithm = AlgorithmPolicy::kReference;
  auto session = Session::Create(*model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Session& s = **session;
  ASSERT_GE(s.num_inputs(), 1);
  ASSERT_GE(s.num_outputs(), 1);
  for (int i = 0; i < s.num_inputs(); ++i) FillInput(s.input(i));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(s.Run().ok());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %d nodes, arena %zu bytes, reference run %.1f ms\n", GetParam().c_str(), (*model)->num_nodes(),
              s.arena_bytes(), ms);
  std::vector<std::vector<float>> first;
  for (int o = 0; o < s.num_outputs(); ++o) {
    const Tensor* out = s.output(o);
    ASSERT_NE(out, nullptr);
    EXPECT_GT(out->num_elements(), 0);
    const float* y = out->data_as<float>();
    for (int64_t i = 0; i < out->num_elements(); ++i) ASSERT_TRUE(std::isfinite(y[i])) << out->name() << "[" << i << "]";
    first.emplace_back(y, y + out->num_elements());
  }
  // A second run on the same input gives the same bits.
  ASSERT_TRUE(s.Run().ok());
  for (int o = 0; o < s.num_outputs(); ++o) {
    const float* y = s.output(o)->data_as<float>();
    for (size_t i = 0; i < first[o].size(); ++i) ASSERT_EQ(first[o][i], y[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(All, MediaPipeModelTest, ::testing::ValuesIn(testing::MediaPipeModels()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           return n;
                         });

TEST(ModelApiTest, NamesShapesAndResize) {
  const std::string path = ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->input_names(), std::vector<std::string>({"input"}));
  EXPECT_EQ((*model)->output_names(), std::vector<std::string>({"regressors", "classificators"}));
  EXPECT_EQ((*model)->input_shapes()[0], Shape({1, 128, 128, 3}));
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  Session& s = **session;
  EXPECT_EQ(s.input("input")->layout(), Layout::kNHWC);
  EXPECT_EQ(s.output("regressors")->shape(), Shape({1, 896, 16}));
  EXPECT_EQ(s.input("nope"), nullptr);
  // Batch 2: the arena grows, outputs follow (the model's RESHAPE has a
  // fixed batch of 1, so the batch folds into the anchor dimension).
  const size_t arena1 = s.arena_bytes();
  ASSERT_TRUE(s.Resize({{"input", {2, 128, 128, 3}}}).ok());
  EXPECT_EQ(s.output("classificators")->num_elements(), 2 * 896);
  EXPECT_GT(s.arena_bytes(), arena1);
  EXPECT_FALSE(s.Resize({{"nope", {1, 2, 3, 4}}}).ok());
  // A shape the graph cannot take errors, naming the node, and Run refuses.
  Status bad = s.Resize({{"input", {1, 128, 128, 4}}});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("node"), std::string::npos) << bad.message();
  EXPECT_FALSE(s.Run().ok());
  ASSERT_TRUE(s.Resize({{"input", {1, 128, 128, 3}}}).ok());
  EXPECT_TRUE(s.Run().ok());
}

TEST(ModelApiTest, FromBufferAndMissingFile) {
  auto missing = Model::FromFile("/nonexistent/model.tflite");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/model.tflite"), std::string::npos);
  const std::string path = ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  std::vector<uint8_t> bytes = testing::ReadBytes(path);
  auto model = Model::FromBuffer(bytes.data(), bytes.size(), "short_range_in_memory");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->source(), "short_range_in_memory");
  bytes.assign(bytes.size(), 0);  // the model keeps its own copy
  auto session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  EXPECT_TRUE((*session)->Run().ok());
}

}  // namespace
}  // namespace rill::inference
