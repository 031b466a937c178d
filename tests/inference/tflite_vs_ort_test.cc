// The MediaPipe .tflite models on ONNX Runtime: each model is written as ONNX
// by the engine's exporter (inference/export/onnx_exporter.h), run by ONNX
// Runtime 1.30, and its outputs compared with the engine's own run of the
// .tflite file on the same input (astronaut.png, resized to the model's
// input and scaled to [0, 1]), with the optimized (kAuto) and the reference
// kernels: within 1e-4 of each output's range, or four times what the
// engine's own two kernel sets differ by where a model amplifies rounding
// more. ONNX Runtime's kernels are independent of the engine's, so this
// checks the engine's kernels and optimizer passes on the landmark and
// detection models (the exporter carries the importer's reading of the file
// over unchanged: the golden and reference tests cover that reading). The
// models with MediaPipe's custom ops (face_landmark_with_attention) have no
// ONNX form: the exporter says which nodes.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "gtest/gtest.h"
#include "inference/export/onnx_exporter.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

extern "C" const char* __lsan_default_suppressions() { return "leak:libonnxruntime.so.1\n"; }

namespace rill::inference {
namespace {

#define SKIP_IF_NO_ORT()                                      \
  RILL_REQUIRE(testing::FileExists(ort::DefaultLibraryPath()), \
               ort::DefaultLibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)")

class TfLiteVsOrtTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfLiteVsOrtTest, ExportedModelOnOnnxRuntimeMatchesTheEngine) {
  const std::string path = testing::ModelPath(GetParam()) + ".tflite";
  RILL_SKIP_IF_MISSING(path);
  SKIP_IF_NO_ORT();
  LoadOptions raw;
  raw.optimize = false;
  auto imported = Model::FromFile(path, raw);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  auto bytes = onnx_export::ExportOnnx((*imported)->graph());
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  const std::string onnx_path = ::testing::TempDir() + "/" + GetParam() + ".exported.onnx";
  {
    std::ofstream out(onnx_path, std::ios::binary | std::ios::trunc);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    ASSERT_TRUE(static_cast<bool>(out)) << onnx_path;
  }
  ort::OrtOptions options;
  options.intra_op_threads = 2;
  auto runner = ort::OrtRunner::Create(onnx_path, options);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  ort::OrtRunner& ort = **runner;

  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // The engine with its optimized and its reference kernels.
  std::vector<std::map<std::string, std::vector<float>>> engine;
  ort::OrtTensor image;
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    SessionConfig config;
    config.num_threads = 2;
    config.algorithm = policy;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& s = **session;
    ASSERT_EQ(s.num_inputs(), 1);
    Tensor* in = s.input(0);
    EXPECT_EQ(in->name(), ort.inputs()[0].name);
    ASSERT_EQ(in->rank(), 4);
    ASSERT_EQ(in->shape()[3], 3);
    // A natural image, so activations have the magnitudes the model was
    // trained for (uniform noise drives the segmentation decoders to
    // logits in the thousands).
    cv::Mat bgr = cv::imread(testing::MediaPath("astronaut.png"), cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty());
    cv::Mat rgb, sized, pixels;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    cv::resize(rgb, sized, cv::Size(in->shape()[2], in->shape()[1]), 0, 0, cv::INTER_AREA);
    sized.convertTo(pixels, CV_32FC3, 1.0 / 255.0);
    image.name = in->name();
    image.shape.assign(in->shape().begin(), in->shape().end());
    image.data.assign(pixels.ptr<float>(), pixels.ptr<float>() + in->num_elements());
    std::memcpy(in->data(), image.data.data(), image.data.size() * 4);
    ASSERT_TRUE(s.Run().ok());
    std::map<std::string, std::vector<float>> outputs;
    for (int o = 0; o < s.num_outputs(); ++o) {
      const Tensor* t = s.output(o);
      outputs[t->name()].assign(t->data_as<float>(), t->data_as<float>() + t->num_elements());
    }
    engine.push_back(std::move(outputs));
  }
  std::vector<ort::OrtTensor> expected;
  const Status run = ort.Run({image}, &expected);
  ASSERT_TRUE(run.ok()) << run.ToString();
  ASSERT_EQ(expected.size(), engine[0].size());
  for (const ort::OrtTensor& want : expected) {
    ASSERT_EQ(engine[0].count(want.name), 1u) << "the engine has no output " << want.name;
    const std::vector<float>& fast = engine[0][want.name];
    const std::vector<float>& ref = engine[1][want.name];
    ASSERT_EQ(fast.size(), want.data.size()) << want.name;
    // The bound: 1e-4 of the output's range (what `rill model compare`
    // holds ONNX models to), or four times what the engine's own two kernel
    // sets differ by where the model amplifies fp32 rounding more than that
    // (pose_landmark's segmentation logits, range 1300-2000: the engine's
    // kernels differ by 0.6-1.4e-4 of it, ONNX Runtime from either by up to
    // 3x that), or 1e-6 absolute for a single probability.
    const ort::OutputDiff self = ort::DiffOutputs(fast.data(), ref.data(), fast.size());
    for (const auto* got : {&fast, &ref}) {
      const ort::OutputDiff d = ort::DiffOutputs(got->data(), want.data.data(), want.data.size());
      double bound = std::max(ort::kCompareTolerance * d.scale, 4 * self.max_abs);
      if (want.data.size() == 1) bound = std::max(bound, 1e-6);
      std::printf("%s %s %s: max abs error %.3g, range %.3g, max rel error %.3g (auto vs reference %.3g, bound %.3g)\n",
                  GetParam().c_str(), got == &fast ? "auto" : "reference", want.name.c_str(), d.max_abs, d.scale,
                  d.max_rel(), self.max_abs, bound);
      EXPECT_TRUE(std::isfinite(d.max_abs) && d.max_abs <= bound)
          << want.name << ": max abs error " << d.max_abs << " > " << bound;
    }
  }
  std::remove(onnx_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(MediaPipeModels, TfLiteVsOrtTest,
                         ::testing::Values("hand_landmark_full", "hand_landmark_lite", "pose_landmark_lite",
                                           "pose_landmark_full", "pose_landmark_heavy", "face_landmark",
                                           "palm_detection_full", "palm_detection_lite", "pose_detection",
                                           "hand_recrop", "selfie_segmentation", "selfie_segmentation_landscape",
                                           "face_detection_short_range", "face_detection_full_range",
                                           "face_detection_full_range_sparse"));

TEST(OnnxExportTest, CustomOpsAreNamedNodeByNode) {
  const std::string path = testing::ModelPath("face_landmark_with_attention") + ".tflite";
  RILL_SKIP_IF_MISSING(path);
  LoadOptions raw;
  raw.optimize = false;
  auto imported = Model::FromFile(path, raw);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  auto bytes = onnx_export::ExportOnnx((*imported)->graph());
  ASSERT_FALSE(bytes.ok());
  const std::string m = bytes.status().message();
  EXPECT_EQ(bytes.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(m.find("face_landmark_with_attention.tflite: cannot write as ONNX"), std::string::npos) << m;
  EXPECT_NE(m.find("LANDMARKS_TO_TRANSFORM_MATRIX"), std::string::npos) << m;
  EXPECT_NE(m.find("TRANSFORM_TENSOR_BILINEAR"), std::string::npos) << m;
}

}  // namespace
}  // namespace rill::inference
