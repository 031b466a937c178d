// MediaPipe models against the x86-64 build's outputs (golden files written
// by write_mediapipe_golden on x86, kAuto kernels; mediapipe_golden.h). On
// x86 this holds the outputs still; on aarch64 (under qemu in CI) it holds
// the NEON kernels to the x86 kernels, and the reference kernels too.
// Tolerance: 1e-5 of each output's largest magnitude (at least 1): the
// kernels sum in different orders (8x12 vs 6x16/6x32 tiles, Winograd or
// not), nothing more; the differences seen are printed.
#include <algorithm>
#include <cmath>
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
  for (int i = 0; i < (*session)->num_inputs(); ++i) testing::FillGoldenInput((*session)->input(i));
  ASSERT_TRUE((*session)->Run().ok());
  for (int o = 0; o < (*session)->num_outputs(); ++o) {
    const Tensor* t = (*session)->output(o);
    const std::vector<float> golden = ReadFloats(testing::GoldenFile(name, o));
    ASSERT_EQ(static_cast<int64_t>(golden.size()), t->num_elements()) << testing::GoldenFile(name, o);
    float max_diff = 0, magnitude = 1;
    for (size_t i = 0; i < golden.size(); ++i) {
      max_diff = std::max(max_diff, std::fabs(t->data_as<float>()[i] - golden[i]));
      magnitude = std::max(magnitude, std::fabs(golden[i]));
    }
    std::printf("%s output %d (%s kernels): max |diff| vs x86 %.3g of magnitude %.3g\n", name.c_str(), o,
                policy == AlgorithmPolicy::kReference ? "reference" : "auto", max_diff, magnitude);
    EXPECT_LE(max_diff, 1e-5f * magnitude) << name << " output " << o;
  }
}

TEST_P(GoldenTest, AutoKernelsMatchX86) { Check(GetParam(), AlgorithmPolicy::kAuto); }
TEST_P(GoldenTest, ReferenceKernelsMatchX86) { Check(GetParam(), AlgorithmPolicy::kReference); }

INSTANTIATE_TEST_SUITE_P(All, GoldenTest, ::testing::ValuesIn(testing::GoldenModels()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace rill::inference
