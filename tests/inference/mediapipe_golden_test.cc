// MediaPipe models against the x86-64 build's outputs (golden files written
// by write_mediapipe_golden on x86, kAuto kernels; mediapipe_golden.h). On
// x86 this holds the outputs still; on aarch64 (under qemu in CI) it holds
// the NEON kernels to the x86 kernels, and the reference kernels too.
// Tolerance: GoldenTolerance (mediapipe_golden.h) of each output's largest
// magnitude (at least 1); the differences seen are printed.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "gtest/gtest.h"
#include "rill/inference/inference.h"
#include "tests/inference/mediapipe_golden.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

class GoldenTest : public ::testing::TestWithParam<std::string> {};

std::vector<float> ReadFloats(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(bytes.size() / sizeof(float));
  std::copy(bytes.begin(), bytes.begin() + v.size() * sizeof(float), reinterpret_cast<char*>(v.data()));
  return v;
}

// The outputs of `session` against the golden files, within `tolerance` of
// each output's magnitude.
void CheckOutputs(const std::string& name, Session* session, const char* kernels, float tolerance) {
  for (int i = 0; i < session->num_inputs(); ++i) testing::FillGoldenInput(session->input(i));
  ASSERT_TRUE(session->Run().ok());
  for (int o = 0; o < session->num_outputs(); ++o) {
    const Tensor* t = session->output(o);
    const std::vector<float> golden = ReadFloats(testing::GoldenFile(name, o));
    ASSERT_EQ(static_cast<int64_t>(golden.size()), t->num_elements()) << testing::GoldenFile(name, o);
    float max_diff = 0, magnitude = 1;
    for (size_t i = 0; i < golden.size(); ++i) {
      max_diff = std::max(max_diff, std::fabs(t->data_as<float>()[i] - golden[i]));
      magnitude = std::max(magnitude, std::fabs(golden[i]));
    }
    std::printf("%s output %d (%s kernels): max |diff| vs x86 %.3g of magnitude %.3g\n", name.c_str(), o, kernels,
                max_diff, magnitude);
    EXPECT_LE(max_diff, tolerance * magnitude) << name << " output " << o;
  }
}

void Check(const std::string& name, AlgorithmPolicy policy) {
  const std::string path = testing::ModelPath(name + ".tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  SessionConfig config;
  config.algorithm = policy;
  config.num_threads = 2;
  auto session = Session::Create(*model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  CheckOutputs(name, session->get(), policy == AlgorithmPolicy::kReference ? "reference" : "auto",
               testing::GoldenTolerance(name));
}

// Every 3x3 stride-1 conv of the pose landmark model (the only golden model
// with one: its segmentation head's 256x256x8 -> 1) on Winograd F(4,3) (on
// aarch64 the NEON transforms and the 8x12 GEMM), forced through a tuning
// cache: a kTune session measures and writes the cache, its 3x3 stride-1
// ungrouped layers' choices are rewritten to winograd_f43, and a second
// kTune session reads them (kernel names checked). The model's tolerance
// (GoldenTolerance); measured under qemu: 1.8e-4 to 3.0e-4 of output 2's
// magnitude, about 1e-5 of output 0's, run to run (the other layers'
// choices are measured, so they vary), against 2.5e-4 and 1.1e-5 with the
// NEON kernels' kAuto choices.
TEST(GoldenWinogradTest, PoseLandmarkOnF43MatchesX86) {
  const std::string name = "pose_landmark_lite";
  const std::string path = testing::ModelPath(name + ".tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string cache = std::string(tmp ? tmp : "/tmp") + "/golden_winograd_" + name + ".txt";
  std::remove(cache.c_str());
  SessionConfig config;
  config.algorithm = AlgorithmPolicy::kTune;
  config.tuning_cache = cache;
  config.num_threads = 2;
  ASSERT_TRUE(Session::Create(*model, config).ok());
  std::ifstream in(cache);
  std::string key, choice, rewritten;
  int forced = 0;
  while (in >> key >> choice) {
    if (key.rfind("conv:", 0) == 0 && key.find(":k3x3:s1x1:d1x1:") != std::string::npos &&
        key.find(":g") == std::string::npos) {
      choice = "winograd_f43";
      ++forced;
    }
    rewritten += key + " " + choice + "\n";
  }
  in.close();
  ASSERT_EQ(forced, 1) << rewritten;
  std::ofstream(cache, std::ios::trunc) << rewritten;
  auto session = Session::Create(*model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  int winograd = 0;
  for (const std::string& k : (*session)->KernelNames()) winograd += k.find("winograd_f43") != std::string::npos;
  EXPECT_EQ(winograd, 1) << name;
  CheckOutputs(name, session->get(), "winograd_f43", testing::GoldenTolerance(name));
}

TEST_P(GoldenTest, AutoKernelsMatchX86) { Check(GetParam(), AlgorithmPolicy::kAuto); }
TEST_P(GoldenTest, ReferenceKernelsMatchX86) { Check(GetParam(), AlgorithmPolicy::kReference); }

INSTANTIATE_TEST_SUITE_P(All, GoldenTest, ::testing::ValuesIn(testing::GoldenModels()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace rill::inference
