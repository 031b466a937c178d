// Every ONNX model in third_party/models runs on the engine and on ONNX
// Runtime 1.30 (dlopen()ed through //inference/tools:ort_runner) on the same
// input; every output must match within 1e-4 of its range, at 1 and 2
// threads, with the optimized (kAuto) and the reference kernels.
#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "gtest/gtest.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

// Under --config=asan: ONNX Runtime (not built with ASan, stripped) keeps a few
// small process-lifetime allocations that LeakSanitizer reports at exit (622
// bytes in 5 objects, allocated inside libonnxruntime.so.1); what our own code
// allocates and loses is still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:libonnxruntime.so.1\n"; }

namespace rill::inference {
namespace {

constexpr double kTolerance = ort::kCompareTolerance;

std::vector<float> ReadFloats(const std::string& path) {
  const std::vector<uint8_t> bytes = testing::ReadBytes(path);
  std::vector<float> v(bytes.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

ort::OutputDiff Compare(const float* got, const std::vector<float>& want) {
  return ort::DiffOutputs(got, want.data(), want.size());
}

std::string LibraryPath() { return ort::DefaultLibraryPath(); }

#define SKIP_IF_NO_ORT()                                                                      \
  if (!testing::FileExists(LibraryPath()))                                                    \
  GTEST_SKIP() << LibraryPath() << " is missing: run scripts/fetch_models.sh (ONNX Runtime)"

struct Case {
  std::string model;
  int threads;
};

class OnnxVsOrtTest : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxVsOrtTest, OutputsMatchOnnxRuntime) {
  const std::string base = testing::ModelPath(GetParam().model);
  const int threads = GetParam().threads;
  RILL_SKIP_IF_MISSING(base + ".onnx");
  RILL_SKIP_IF_MISSING(base + ".input.f32");
  SKIP_IF_NO_ORT();

  ort::OrtOptions options;
  options.intra_op_threads = threads;
  auto runner = ort::OrtRunner::Create(base + ".onnx", options);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  ort::OrtRunner& ort = **runner;
  EXPECT_EQ(ort.version().rfind("1.30.", 0), 0u) << ort.version();

  auto model = Model::FromFile(base + ".onnx");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<float> input = ReadFloats(base + ".input.f32");

  // ONNX Runtime once per thread count; the engine with each algorithm.
  std::vector<ort::OrtTensor> expected;
  for (AlgorithmPolicy policy : {AlgorithmPolicy::kAuto, AlgorithmPolicy::kReference}) {
    const char* policy_name = policy == AlgorithmPolicy::kAuto ? "auto" : "reference";
    SCOPED_TRACE(std::string(policy_name) + ", " + std::to_string(threads) + " thread(s)");
    SessionConfig config;
    config.num_threads = threads;
    config.algorithm = policy;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    Session& s = **session;
    ASSERT_EQ(s.num_inputs(), 1);
    ASSERT_EQ(ort.inputs().size(), 1u);
    Tensor* in = s.input(0);
    EXPECT_EQ(in->name(), ort.inputs()[0].name);
    ASSERT_EQ(static_cast<size_t>(in->num_elements()), input.size());
    // ONNX models keep ONNX's NCHW at the session's inputs and outputs.
    if (in->rank() == 4) {
      EXPECT_EQ(in->layout(), Layout::kNCHW);
    }
    std::memcpy(in->data(), input.data(), input.size() * 4);
    ASSERT_TRUE(s.Run().ok());

    if (expected.empty()) {
      ort::OrtTensor ort_in;
      ort_in.name = ort.inputs()[0].name;
      ort_in.shape.assign(in->shape().begin(), in->shape().end());
      ort_in.data = input;
      const Status run = ort.Run({ort_in}, &expected);
      ASSERT_TRUE(run.ok()) << run.ToString();
      ASSERT_EQ(static_cast<int>(expected.size()), s.num_outputs());
    }
    for (const ort::OrtTensor& want : expected) {
      const Tensor* got = s.output(want.name);
      ASSERT_NE(got, nullptr) << "the engine has no output " << want.name;
      ASSERT_EQ(std::vector<int64_t>(got->shape().begin(), got->shape().end()), want.shape) << want.name;
      const ort::OutputDiff d = Compare(got->data_as<float>(), want.data);
      std::printf("%s %s %d thread(s) %s %s: max abs error %.3g, range %.3g, max rel error %.3g\n",
                  GetParam().model.c_str(), policy_name, threads, want.name.c_str(), ShapeToString(got->shape()).c_str(),
                  d.max_abs, d.scale, d.max_abs / d.scale);
      EXPECT_TRUE(d.Within(kTolerance)) << want.name << ": max abs error " << d.max_abs << " > " << kTolerance << " x " << d.scale;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Models, OnnxVsOrtTest,
    ::testing::Values(Case{"mobilenet_v2", 1}, Case{"mobilenet_v2", 2}, Case{"resnet18", 1}, Case{"resnet18", 2},
                      Case{"resnet50", 1}, Case{"resnet50", 2}, Case{"squeezenet1_1", 1}, Case{"squeezenet1_1", 2},
                      Case{"rill_op_zoo", 1}, Case{"rill_op_zoo", 2}, Case{"rill_pad", 1}, Case{"rill_pad", 2},
                      Case{"mobilenet_v3_small", 1}, Case{"mobilenet_v3_small", 2},
                      Case{"shufflenet_v2_x1_0", 1}, Case{"shufflenet_v2_x1_0", 2},
                      Case{"efficientnet_b0", 1}, Case{"efficientnet_b0", 2},
                      Case{"regnet_y_400mf", 1}, Case{"regnet_y_400mf", 2},
                      Case{"rill_multitask", 1}, Case{"rill_multitask", 2}),
    [](const ::testing::TestParamInfo<Case>& info) {
      return info.param.model + "_" + std::to_string(info.param.threads) + "threads";
    });

// The list above covers every ONNX model in the directory (a new model must
// be added to it); the *.opencv.onnx copies are OpenCV DNN's variants.
TEST(OnnxVsOrtTest, ListCoversEveryOnnxModel) {
  const std::set<std::string> listed = {"mobilenet_v2",       "resnet18",           "resnet50",
                                        "squeezenet1_1",      "rill_op_zoo",        "rill_pad",
                                        "mobilenet_v3_small", "shufflenet_v2_x1_0", "efficientnet_b0",
                                        "regnet_y_400mf",     "rill_multitask"};
  DIR* dir = ::opendir(testing::ModelPath("").c_str());
  if (dir == nullptr) GTEST_SKIP() << "no " << testing::ModelPath("") << ": run scripts/fetch_models.sh";
  int seen = 0;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    const std::string suffix = ".onnx";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    if (name.find(".opencv.onnx") != std::string::npos) continue;
    ++seen;
    EXPECT_TRUE(listed.count(name.substr(0, name.size() - suffix.size()))) << name << " is not compared with ONNX Runtime";
  }
  ::closedir(dir);
  std::printf("%d ONNX models in %s\n", seen, testing::ModelPath("").c_str());
}

// The check is not vacuous: an output off by more than 1e-4 of the range fails.
TEST(OnnxVsOrtTest, ComparisonRejectsADifferentOutput) {
  std::vector<float> want = {0.0f, 1.0f, 2.0f, 4.0f};
  std::vector<float> got = want;
  EXPECT_TRUE(Compare(got.data(), want).Within(kTolerance));
  got[2] += 3e-4f;  // 7.5e-5 of the range 4: within
  EXPECT_TRUE(Compare(got.data(), want).Within(kTolerance));
  got[2] += 3e-4f;  // 1.5e-4 of the range: beyond
  EXPECT_FALSE(Compare(got.data(), want).Within(kTolerance));
  got = want;
  got[0] = NAN;
  EXPECT_FALSE(Compare(got.data(), want).Within(kTolerance));
  const std::vector<float> constant = {5.0f, 5.0f};
  const std::vector<float> near = {5.0f, 5.0004f};
  EXPECT_TRUE(Compare(near.data(), constant).Within(kTolerance));  // 8e-5 of the magnitude 5
}

TEST(OrtRunnerTest, MissingLibraryIsAnErrorNamingIt) {
  const std::string model = testing::ModelPath("rill_pad.onnx");
  RILL_SKIP_IF_MISSING(model);
  ort::OrtOptions options;
  options.library = "/nonexistent/libonnxruntime.so.1";
  auto runner = ort::OrtRunner::Create(model, options);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("/nonexistent/libonnxruntime.so.1"), std::string::npos)
      << runner.status().message();
}

TEST(OrtRunnerTest, MissingModelIsAnErrorNamingIt) {
  SKIP_IF_NO_ORT();
  auto runner = ort::OrtRunner::Create("/nonexistent/model.onnx");
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find("/nonexistent/model.onnx"), std::string::npos) << runner.status().message();
}

TEST(OrtRunnerTest, GarbageModelIsAnOrtErrorNamingTheFile) {
  SKIP_IF_NO_ORT();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/junk_for_ort.onnx";
  std::ofstream(path, std::ios::binary) << "\x08\xff\xff\x12\x34 not a model";
  auto runner = ort::OrtRunner::Create(path);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.status().message().find(path), std::string::npos) << runner.status().message();
  EXPECT_NE(runner.status().message().find("onnxruntime"), std::string::npos) << runner.status().message();
}

TEST(OrtRunnerTest, WrongInputIsAnErrorNamingTheModel) {
  const std::string model = testing::ModelPath("rill_pad.onnx");
  RILL_SKIP_IF_MISSING(model);
  SKIP_IF_NO_ORT();
  auto runner = ort::OrtRunner::Create(model);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  std::vector<ort::OrtTensor> outputs;
  ort::OrtTensor in;
  in.name = (*runner)->inputs()[0].name;
  in.shape = {1, 2, 3};
  in.data = {1.0f, 2.0f};  // 2 values for 6 elements
  Status s = (*runner)->Run({in}, &outputs);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(model), std::string::npos) << s.message();
  in.data.assign(6, 0.0f);  // consistent, but not the model's shape: ONNX Runtime says so
  s = (*runner)->Run({in}, &outputs);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(model), std::string::npos) << s.message();
  EXPECT_TRUE((*runner)->Run({}, &outputs).code() == StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rill::inference
