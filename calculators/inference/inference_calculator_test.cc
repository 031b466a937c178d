// InferenceCalculator on real models: the face detector (.tflite), a
// torchvision network (.onnx) against PyTorch's output, and the errors a
// graph author meets (missing file, wrong shape, wrong tensor count).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/formats/tensor.h"
#include "framework/graph.h"
#include "framework/tool/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "rill/inference/inference.h"
#include "tests/require.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

bool Exists(const std::string& p) { return std::ifstream(p).good(); }

std::vector<float> ReadFloats(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

Packet Input(std::vector<int> shape, float value = 0.0f) {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape(shape));
  std::fill(t.mutable_data<float>(), t.mutable_data<float>() + t.num_elements(),
            value);
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  return MakePacket<std::vector<Tensor>>(std::move(v)).At(Timestamp(0));
}

std::string Graph(const std::string& options, const std::string& side = "") {
  return std::string(R"pb(
           input_stream: "in" output_stream: "out")pb") +
         (side.empty() ? "" : "input_side_packet: \"model\"") + R"pb(
           node { name: "detector" calculator: "InferenceCalculator"
                  input_stream: "TENSORS:in"
                  output_stream: "TENSORS:out")pb" +
         (side.empty() ? "" : "input_side_packet: \"MODEL:model\"") + R"pb(
           options {
             [mediapipe.InferenceCalculatorOptions.ext] {)pb" +
         options + "}}}";
}

const char kShortRange[] =
    "third_party/models/face_detection_short_range.tflite";

TEST(InferenceCalculatorTest, RunsTheFaceDetector) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto out = RunGraph(Graph(std::string("model_path: '") + kShortRange +
                            "' delegate { xnnpack { num_threads: 2 } }"),
                      {"out"}, {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const auto& t = (*out)["out"].at(0).Get<std::vector<Tensor>>();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].shape(), (Tensor::Shape{1, 896, 16}));
  EXPECT_EQ(t[1].shape(), (Tensor::Shape{1, 896, 1}));
  // A blank image: no confident face anywhere.
  for (int i = 0; i < 896; ++i)
    EXPECT_LT(t[1].data<float>()[i], 0.0f) << "anchor " << i;
}

TEST(InferenceCalculatorTest, SameResultAsTheEngineDirectly) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto out = RunGraph(Graph(std::string("model_path: '") + kShortRange + "'"),
                      {"out"}, {{"in", {Input({1, 128, 128, 3}, 0.3f)}}});
  ASSERT_TRUE(out.ok()) << out.status();
  auto model = inference::Model::FromFile(kShortRange);
  ASSERT_TRUE(model.ok());
  auto session = inference::Session::Create(*model);
  ASSERT_TRUE(session.ok());
  inference::Tensor* in = (*session)->input(0);
  std::fill(in->data_as<float>(), in->data_as<float>() + in->num_elements(),
            0.3f);
  ASSERT_TRUE((*session)->Run().ok());
  const auto& t = (*out)["out"].at(0).Get<std::vector<Tensor>>();
  for (int o = 0; o < 2; ++o) {
    const inference::Tensor* ref = (*session)->output(o);
    ASSERT_EQ(t[o].num_elements(), ref->num_elements());
    EXPECT_EQ(0, std::memcmp(t[o].raw_data(), ref->data(), ref->byte_size()))
        << "output " << o;
  }
}

TEST(InferenceCalculatorTest, LoadsOnnxAndMatchesPyTorch) {
  const std::string base = "third_party/models/mobilenet_v2";
  RILL_REQUIRE(Exists(base + ".onnx"), base + ".onnx" << " is missing: run scripts/fetch_models.sh");
  const std::vector<float> input = ReadFloats(base + ".input.f32");
  const std::vector<float> expected = ReadFloats(base + ".output.f32");
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape{1, 3, 224, 224});
  ASSERT_EQ(static_cast<size_t>(t.num_elements()), input.size());
  std::memcpy(t.mutable_raw_data(), input.data(), input.size() * 4);
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  auto out = RunGraph(
      Graph("model_path: '" + base + ".onnx'"), {"out"},
      {{"in",
        {MakePacket<std::vector<Tensor>>(std::move(v)).At(Timestamp(0))}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& logits = (*out)["out"].at(0).Get<std::vector<Tensor>>().at(0);
  ASSERT_EQ(static_cast<size_t>(logits.num_elements()), expected.size());
  float max_err = 0, range = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    max_err =
        std::max(max_err, std::fabs(logits.data<float>()[i] - expected[i]));
    range = std::max(range, std::fabs(expected[i]));
  }
  EXPECT_LE(max_err, 1e-4f * std::max(1.0f, range));
}

// input_shape gives an ONNX model's input shapes at load: squeezenet at
// batch 2 (its file says 1) takes a [2, 3, 224, 224] tensor.
TEST(InferenceCalculatorTest, InputShapeSetsTheModelsInputs) {
  const std::string model = "third_party/models/squeezenet1_1.onnx";
  RILL_REQUIRE(Exists(model), model << " is missing: run scripts/fetch_models.sh");
  auto out = RunGraph(
      Graph("model_path: '" + model +
            "' input_shape { name: 'input' dims: [ 2, 3, 224, 224 ] }"),
      {"out"}, {{"in", {Input({2, 3, 224, 224}, 0.5f)}}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& y = (*out)["out"].at(0).Get<std::vector<Tensor>>().at(0);
  EXPECT_EQ(y.shape().dims, std::vector<int>({2, 1000}));
  // Both images are the same: so are their rows.
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(y.data<float>()[i], y.data<float>()[1000 + i]) << i;
  }
  auto bad = RunGraph(Graph("model_path: '" + model +
                            "' input_shape { name: 'nope' dims: [ 1 ] }"),
                      {"out"}, {{"in", {Input({1, 3, 224, 224})}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("'nope', which is not an input"));
}

// fp16_weights: MediaPipe's fp16 models give the fp32 results bit for bit
// (their weights are halves already). On a CPU with ARMv8.2 fp16
// arithmetic (CpuKernels::has_fp16_arith) the GEMMs also multiply in halves:
// the raw outputs move, within 3e-2 of their magnitude (docs/arm.md).
TEST(InferenceCalculatorTest, Fp16WeightsGiveTheSameDetections) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  std::vector<std::vector<float>> results;
  for (const char* extra : {"", " fp16_weights: true"}) {
    auto out = RunGraph(
        Graph(std::string("model_path: '") + kShortRange + "'" + extra),
        {"out"}, {{"in", {Input({1, 128, 128, 3}, 0.25f)}}});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& t = (*out)["out"].at(0).Get<std::vector<Tensor>>().at(0);
    results.emplace_back(t.data<float>(), t.data<float>() + t.num_elements());
  }
  if (!inference::cpu::CpuKernelsFor(inference::AlgorithmPolicy::kAuto).has_fp16_arith) {
    EXPECT_EQ(results[0], results[1]);
    return;
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  float max_diff = 0, magnitude = 1;
  for (size_t i = 0; i < results[0].size(); ++i) {
    max_diff = std::max(max_diff, std::fabs(results[0][i] - results[1][i]));
    magnitude = std::max(magnitude, std::fabs(results[0][i]));
  }
  std::printf("fp16 arithmetic: max |diff| %.3g of magnitude %.3g\n", max_diff, magnitude);
  EXPECT_GT(max_diff, 0.0f) << "fp16_weights did not reach the fp16 GEMM";
  EXPECT_LE(max_diff, 3e-2f * magnitude);
}

// squeezenet's logits through the calculator with `extra` options, next to
// the plain run's: the largest difference and the plain logits' range.
struct LogitsDiff {
  float max_diff = 0, range = 0;
};
absl::StatusOr<LogitsDiff> SqueezenetDiff(const std::string& model,
                                          const std::string& extra) {
  std::vector<std::vector<float>> results;
  for (const std::string& options : {std::string(), extra}) {
    auto out = RunGraph(Graph("model_path: '" + model + "'" + options), {"out"},
                        {{"in", {Input({1, 3, 224, 224}, 0.5f)}}});
    if (!out.ok()) return out.status();
    const Tensor& t = (*out)["out"].at(0).Get<std::vector<Tensor>>().at(0);
    results.emplace_back(t.data<float>(), t.data<float>() + t.num_elements());
  }
  if (results[0].size() != 1000u) return absl::InternalError("not 1000 logits");
  float lo = results[0][0], hi = lo;
  LogitsDiff d;
  for (size_t i = 0; i < results[0].size(); ++i) {
    lo = std::min(lo, results[0][i]);
    hi = std::max(hi, results[0][i]);
    d.max_diff = std::max(d.max_diff, std::fabs(results[0][i] - results[1][i]));
  }
  d.range = hi - lo;
  return d;
}

// fp16_weights on an ONNX model (fp32 weights, so the halves round): with
// AVX-512 the logits move a little (proof that the option reached the
// session; the face detector above cannot show it) and stay within 1e-2 of
// their range.
TEST(InferenceCalculatorTest, Fp16WeightsRoundAnOnnxModelsWeights) {
  const std::string model = "third_party/models/squeezenet1_1.onnx";
  RILL_REQUIRE(Exists(model), model << " is missing: run scripts/fetch_models.sh");
  auto d = SqueezenetDiff(model, " fp16_weights: true");
  ASSERT_TRUE(d.ok()) << d.status();
  const float max_diff = d->max_diff;
  EXPECT_LE(max_diff, 1e-2f * d->range);
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) {
    EXPECT_GT(max_diff, 0.0f) << "fp16_weights did not reach the session";
  }
#endif
}

// bf16 on squeezenet: the GEMM layers in bfloat16 where that pays on this CPU
// (CpuKernels::bf16_gemm_pays: the logits move, within 3e-2 of their range), fp32
// (the same bits) elsewhere; with fp16_weights too it is an error naming the
// node.
TEST(InferenceCalculatorTest, Bf16RunsTheGemmsInBfloat16) {
  const std::string model = "third_party/models/squeezenet1_1.onnx";
  RILL_REQUIRE(Exists(model), model << " is missing: run scripts/fetch_models.sh");
  auto d = SqueezenetDiff(model, " bf16: true");
  ASSERT_TRUE(d.ok()) << d.status();
  const float max_diff = d->max_diff;
  EXPECT_LE(max_diff, 3e-2f * d->range);
  if (inference::cpu::CpuKernelsFor(inference::AlgorithmPolicy::kAuto).bf16_pays()) {
    EXPECT_GT(max_diff, 0.0f) << "bf16 did not reach the session";
  } else {
    EXPECT_EQ(max_diff, 0.0f);
  }
  auto both = RunGraph(
      Graph("model_path: '" + model + "' bf16: true fp16_weights: true"),
      {"out"}, {{"in", {Input({1, 3, 224, 224})}}});
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(std::string(both.status().message()),
              ::testing::AllOf(HasSubstr("\"detector\""),
                               HasSubstr("two precisions")));
}

// The face detector's output tensors under `options` (one frame), against
// the CPU's `want`: as many, each within 1e-4 of the largest magnitude of
// `want` (at least 1) and, `on_gpu`, not bit for bit (so the model did not
// quietly run on the CPU).
void ExpectSameTensors(const std::string& options, const std::vector<Tensor>& want, bool on_gpu) {
  auto out = RunGraph(Graph(std::string("model_path: '") + kShortRange + "'" + options), {"out"},
                      {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_TRUE(out.ok()) << options << ": " << out.status();
  float max_diff = 0, range = 0;
  const auto& got = (*out)["out"].at(0).Get<std::vector<Tensor>>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t t = 0; t < got.size(); ++t) {
    const float* pa = got[t].data<float>();
    const float* pb = want[t].data<float>();
    for (int64_t i = 0; i < want[t].num_elements(); ++i) {
      max_diff = std::max(max_diff, std::fabs(pa[i] - pb[i]));
      range = std::max(range, std::fabs(pb[i]));
    }
  }
  EXPECT_LE(max_diff, 1e-4f * std::max(1.0f, range)) << options;
  if (on_gpu) {
    EXPECT_GT(max_diff, 0.0f) << options << ": ran on the CPU";
  }
}

// MediaPipe's gpu delegate runs the OpenCL backend: the detections agree
// with the CPU's within 1e-4 of their range but not bit for bit (so the
// model did not quietly run on the CPU). Rill's `backend` names a backend
// that must exist; node_backend places one head on OpenCL.
TEST(InferenceCalculatorTest, GpuDelegateRunsOnOpenCl) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto probe = inference::Model::FromFile(kShortRange);
  ASSERT_TRUE(probe.ok());
  inference::SessionConfig gpu;
  gpu.backend = "opencl";
  RILL_REQUIRE(inference::Session::Create(*probe, gpu).ok(), "no OpenCL device (PoCL: scripts/setup.sh)");
  auto cpu = RunGraph(Graph(std::string("model_path: '") + kShortRange + "'"), {"out"},
                      {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  for (const std::string options : {" delegate { gpu { api: OPENCL } }", " use_gpu: true", " backend: 'opencl'",
                                    " node_backend { node: 'classificators' backend: 'opencl' }"}) {
    ExpectSameTensors(options, (*cpu)["out"].at(0).Get<std::vector<Tensor>>(),
                      /*on_gpu=*/options.find("node_backend") == std::string::npos);
  }
  auto missing = RunGraph(Graph(std::string("model_path: '") + kShortRange + "' backend: 'metal'"), {"out"},
                          {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              ::testing::AllOf(HasSubstr("\"detector\""), HasSubstr("metal"), HasSubstr("opencl"), HasSubstr("vulkan")));
}

// `backend: 'vulkan'` runs the Vulkan backend (lavapipe in CI), and
// node_backend mixes three backends in one model: the trunk on Vulkan, the
// scores on OpenCL, the boxes on the CPU. The detections agree with the
// CPU's within 1e-4 of their range, and not bit for bit where the GPU
// backends computed the trunk (one concatenation on Vulkan is a copy).
TEST(InferenceCalculatorTest, VulkanBackendAndThreeBackends) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto probe = inference::Model::FromFile(kShortRange);
  ASSERT_TRUE(probe.ok());
  inference::SessionConfig vk;
  vk.backend = "vulkan";
  RILL_REQUIRE(inference::Session::Create(*probe, vk).ok(), "no Vulkan device (lavapipe: scripts/setup.sh)");
  inference::SessionConfig cl;
  cl.backend = "opencl";
  const bool have_opencl = inference::Session::Create(*probe, cl).ok();
  auto cpu = RunGraph(Graph(std::string("model_path: '") + kShortRange + "'"), {"out"},
                      {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  std::vector<std::string> configs = {" backend: 'vulkan'", " node_backend { node: 'classificators' backend: 'vulkan' }"};
  if (have_opencl) {
    configs.push_back(" backend: 'vulkan' node_backend { node: 'classificators' backend: 'opencl' }"
                      " node_backend { node: 'regressors' backend: 'cpu' }");
  } else {
    RILL_REQUIRE(false, "no OpenCL device for the three-backend case (PoCL: scripts/setup.sh)");
  }
  for (const std::string& options : configs) {
    ExpectSameTensors(options, (*cpu)["out"].at(0).Get<std::vector<Tensor>>(),
                      /*on_gpu=*/options.find("backend: 'vulkan'") == 1);
  }
}

// The node tells how it runs (rill run prints it): the model and the
// backend of its layers, after any fallback.
std::vector<std::pair<std::string, std::string>> Reports(const std::string& options) {
  auto config = ParseGraphConfigText(Graph(std::string("model_path: '") + kShortRange + "'" + options));
  EXPECT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  EXPECT_TRUE(graph.Initialize(*config).ok());
  EXPECT_TRUE(graph.StartRun().ok());
  EXPECT_TRUE(graph.AddPacketToInputStream("in", Input({1, 128, 128, 3})).ok());
  EXPECT_TRUE(graph.CloseAllInputStreams().ok());
  EXPECT_TRUE(graph.WaitUntilDone().ok());
  return graph.NodeReports();
}

TEST(InferenceCalculatorTest, ReportsTheBackendOfItsLayers) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  using Reports_ = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(Reports(""), (Reports_{{"detector", "face_detection_short_range.tflite on cpu (46 layers)"}}));
  auto probe = inference::Model::FromFile(kShortRange);
  ASSERT_TRUE(probe.ok());
  inference::SessionConfig gpu;
  gpu.backend = "opencl";
  RILL_REQUIRE(inference::Session::Create(*probe, gpu).ok(), "no OpenCL device (PoCL: scripts/setup.sh)");
  const auto on_gpu = Reports(" delegate { gpu { api: OPENCL } }");
  ASSERT_EQ(on_gpu.size(), 1u);
  EXPECT_THAT(on_gpu[0].second, HasSubstr("face_detection_short_range.tflite on opencl ("));
  // One output's head on OpenCL: the rest stays on the CPU.
  const auto split = Reports(" node_backend { node: 'classificators' backend: 'opencl' }");
  ASSERT_EQ(split.size(), 1u);
  EXPECT_THAT(split[0].second, ::testing::MatchesRegex(
                                   "face_detection_short_range.tflite on cpu \\([0-9]+ layers\\), opencl \\(1 layer\\)"));
}

// max_memory_mb bounds the activation memory the model may plan: the face
// detector's 1.75 MB arena does not fit in 1 MB, an error naming the node,
// the model and the option; 2 MB fits.
TEST(InferenceCalculatorTest, MaxMemoryBoundsThePlan) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto over = RunGraph(Graph(std::string("model_path: '") + kShortRange + "' max_memory_mb: 1"), {"out"},
                       {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(over.status().message()),
              ::testing::AllOf(HasSubstr("\"detector\""), HasSubstr("face_detection_short_range.tflite"),
                               HasSubstr("max_memory_mb")));
  auto fits = RunGraph(Graph(std::string("model_path: '") + kShortRange + "' max_memory_mb: 2"), {"out"},
                       {{"in", {Input({1, 128, 128, 3})}}});
  EXPECT_TRUE(fits.ok()) << fits.status();
}

TEST(InferenceCalculatorTest, ModelFromSidePacket) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto model = inference::Model::FromFile(kShortRange);
  ASSERT_TRUE(model.ok());
  auto out = RunGraph(
      Graph("", "model"), {"out"}, {{"in", {Input({1, 128, 128, 3})}}},
      {{"model", MakePacket<std::shared_ptr<const inference::Model>>(*model)}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)["out"].size(), 1u);
  // A path works as well.
  out =
      RunGraph(Graph("", "model"), {"out"}, {{"in", {Input({1, 128, 128, 3})}}},
               {{"model", MakePacket<std::string>(kShortRange)}});
  ASSERT_TRUE(out.ok()) << out.status();
}

TEST(InferenceCalculatorTest, MissingModelNamesNodeAndFile) {
  auto out = RunGraph(Graph("model_path: 'third_party/models/nope.tflite'"),
                      {"out"}, {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::AllOf(HasSubstr("\"detector\""),
                               HasSubstr("model file \"third_party/models/nope.tflite\" not found"),
                               HasSubstr("looked in: ")));
}

TEST(InferenceCalculatorTest, NotAModelNamesTheFile) {
  const std::string not_a_model = "third_party/media/astronaut.png";
  RILL_REQUIRE(Exists(not_a_model), not_a_model << " is missing: run scripts/fetch_models.sh");
  auto out = RunGraph(Graph("model_path: '" + not_a_model + "'"), {"out"},
                      {{"in", {Input({1, 128, 128, 3})}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(
      std::string(out.status().message()),
      ::testing::AllOf(HasSubstr("\"detector\""), HasSubstr(not_a_model)));
}

TEST(InferenceCalculatorTest, ShapeMismatchNamesNodeFileAndShapes) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  auto out = RunGraph(Graph(std::string("model_path: '") + kShortRange + "'"),
                      {"out"}, {{"in", {Input({1, 256, 256, 3})}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(
      std::string(out.status().message()),
      ::testing::AllOf(HasSubstr("\"detector\""), HasSubstr(kShortRange),
                       HasSubstr("[1,256,256,3]"), HasSubstr("[1,128,128,3]")));
}

TEST(InferenceCalculatorTest, TensorCountMismatch) {
  RILL_REQUIRE(Exists(kShortRange), kShortRange << " is missing: run scripts/fetch_models.sh");
  std::vector<Tensor> two;
  two.emplace_back(Tensor::ElementType::kFloat32,
                   Tensor::Shape{1, 128, 128, 3});
  two.emplace_back(Tensor::ElementType::kFloat32, Tensor::Shape{1});
  auto out = RunGraph(
      Graph(std::string("model_path: '") + kShortRange + "'"), {"out"},
      {{"in",
        {MakePacket<std::vector<Tensor>>(std::move(two)).At(Timestamp(0))}}});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("got 2 input tensors"));
}

TEST(InferenceCalculatorTest, NoModelIsAContractError) {
  absl::Status s = CheckContract(R"pb(
    calculator: "InferenceCalculator"
    input_stream: "TENSORS:in"
    output_stream: "TENSORS:out"
  )pb");
  EXPECT_THAT(std::string(s.message()), HasSubstr("model_path"));
}

TEST(InferenceCalculatorTest, MediaPipeNamesAreRegistered) {
  for (const char* name :
       {"InferenceCalculatorCpu", "TfLiteInferenceCalculator"}) {
    EXPECT_TRUE(CheckContract(
                    std::string("calculator: '") + name +
                    "' input_stream: 'TENSORS:in' output_stream: 'TENSORS:out' "
                    "options { [mediapipe.InferenceCalculatorOptions.ext] { "
                    "model_path: 'x' } }")
                    .ok())
        << name;
  }
}

}  // namespace
}  // namespace rill
