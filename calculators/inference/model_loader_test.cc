// MediaPipe's model loading path end to end: a *ModelLoader-style subgraph
// (testdata/hand_landmark_model_loader.pbtxt: SwitchContainer over
// ConstantSidePacketCalculator paths, ResourceProviderCalculator,
// TfLiteModelCalculator) picks the hand landmark model by MODEL_COMPLEXITY
// and InferenceCalculator runs it with TfLiteCustomOpResolverCalculator's
// OP_RESOLVER. Which model ran is told by its outputs, compared with
// InferenceCalculator loading each file by model_path.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "calculators/core/test_util.h"
#include "calculators/inference/op_resolver.h"
#include "framework/formats/tensor.h"
#include "framework/graph.h"
#include "framework/tool/subgraph_expansion.h"
#include "gtest/gtest.h"
#include "tests/require.h"

namespace rill {
namespace {

constexpr char kLite[] = "third_party/models/hand_landmark_lite.tflite";
constexpr char kFull[] = "third_party/models/hand_landmark_full.tflite";
constexpr char kLoader[] =
    "calculators/inference/testdata/hand_landmark_model_loader.pbtxt";

bool Exists(const std::string& p) { return std::ifstream(p).good(); }

// A 224x224 RGB image in [0, 1] with some structure.
Packet Image() {
  Tensor t(Tensor::ElementType::kFloat32, Tensor::Shape({1, 224, 224, 3}));
  float* d = t.mutable_data<float>();
  for (int i = 0; i < t.num_elements(); ++i) d[i] = float((i * 37) % 251) / 250.0f;
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  return MakePacket<std::vector<Tensor>>(std::move(v)).At(Timestamp(0));
}

struct Result {
  std::vector<std::vector<float>> outputs;
  std::string report;  // the InferenceCalculator's
};

absl::StatusOr<Result> RunModelGraph(const std::string& config_text,
                           const std::map<std::string, Packet>& side_packets) {
  auto config = ParseGraphConfig(config_text);
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  absl::Status s = graph.Initialize(*config);
  if (!s.ok()) return s;
  Result result;
  s = graph.ObserveOutputStream("out", [&](const Packet& p) {
    for (const Tensor& t : p.Get<std::vector<Tensor>>()) {
      result.outputs.emplace_back(t.data<float>(),
                                  t.data<float>() + t.num_elements());
    }
    return absl::OkStatus();
  });
  if (s.ok()) s = graph.StartRun(side_packets);
  if (s.ok()) s = graph.AddPacketToInputStream("in", Image());
  if (s.ok()) s = graph.CloseAllInputStreams();
  if (s.ok()) s = graph.WaitUntilDone();
  if (!s.ok()) return s;
  for (const auto& [node, text] : graph.NodeReports()) {
    if (node == "landmarks") result.report = text;
  }
  return result;
}

// InferenceCalculator loading `path` itself.
absl::StatusOr<Result> RunByPath(const std::string& path) {
  return RunModelGraph(R"pb(
    input_stream: "in" output_stream: "out"
    node { name: "landmarks" calculator: "InferenceCalculator"
           input_stream: "TENSORS:in" output_stream: "TENSORS:out"
           options { [mediapipe.InferenceCalculatorOptions.ext] {
             model_path: ")pb" + path + R"pb(" } } }
  )pb", {});
}

// The model loader as a MediaPipe graph uses it.
constexpr char kLoaderGraph[] = R"pb(
  input_stream: "in"
  output_stream: "out"
  input_side_packet: "model_complexity"
  node {
    calculator: "TestHandLandmarkModelLoader"
    input_side_packet: "MODEL_COMPLEXITY:model_complexity"
    output_side_packet: "MODEL:model"
  }
  node {
    calculator: "TfLiteCustomOpResolverCalculator"
    output_side_packet: "OP_RESOLVER:op_resolver"
  }
  node {
    name: "landmarks"
    calculator: "InferenceCalculator"
    input_stream: "TENSORS:in"
    output_stream: "TENSORS:out"
    input_side_packet: "MODEL:model"
    input_side_packet: "OP_RESOLVER:op_resolver"
    options { [mediapipe.InferenceCalculatorOptions.ext] { delegate { xnnpack {} } } }
  }
)pb";

class ModelLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RILL_REQUIRE(Exists(kLite) && Exists(kFull),
                 "the hand landmark models are missing: run scripts/fetch_models.sh");
    ASSERT_TRUE(RegisterSubgraphFile(kLoader).ok());
  }
};

TEST_F(ModelLoaderTest, ModelComplexityPicksTheModelThatRuns) {
  auto lite = RunByPath(kLite);
  auto full = RunByPath(kFull);
  ASSERT_TRUE(lite.ok()) << lite.status();
  ASSERT_TRUE(full.ok()) << full.status();
  ASSERT_EQ(lite->outputs.size(), 4u);
  // The two models give different landmarks for the same image.
  ASSERT_NE(lite->outputs[0], full->outputs[0]);

  auto zero = RunModelGraph(kLoaderGraph, {{"model_complexity", MakePacket<int>(0)}});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(zero->outputs, lite->outputs);
  auto one = RunModelGraph(kLoaderGraph, {{"model_complexity", MakePacket<int>(1)}});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->outputs, full->outputs);
  // No MODEL_COMPLEXITY: the container's select: 1.
  auto unset = RunModelGraph(kLoaderGraph, {});
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_EQ(unset->outputs, full->outputs);

  // The report names the model by where it came from; its layer count is
  // the one of the file loaded by path ("... on cpu (N layers)").
  EXPECT_TRUE(absl::StrContains(zero->report, "MODEL_RESOURCE of node "))
      << zero->report;
  auto layers = [](const std::string& report) {
    return report.substr(report.rfind(" on "));
  };
  EXPECT_EQ(layers(zero->report), layers(lite->report));
  EXPECT_EQ(layers(one->report), layers(full->report));
}

TEST_F(ModelLoaderTest, OutOfRangeModelComplexityNamesTheContainer) {
  auto r = RunModelGraph(kLoaderGraph, {{"model_complexity", MakePacket<int>(2)}});
  ASSERT_FALSE(r.ok());
  const std::string m(r.status().message());
  EXPECT_TRUE(absl::StrContains(m, "test_hand_landmark_model_loader__switch_container"))
      << m;
  EXPECT_TRUE(absl::StrContains(m, "SELECT side packet selects channel 2")) << m;
}

TEST_F(ModelLoaderTest, ModelBlobFromLocalFileContents) {
  auto lite = RunByPath(kLite);
  ASSERT_TRUE(lite.ok()) << lite.status();
  auto blob = RunModelGraph(R"pb(
    input_stream: "in" output_stream: "out" input_side_packet: "path"
    node { calculator: "LocalFileContentsCalculator"
           input_side_packet: "FILE_PATH:path" output_side_packet: "CONTENTS:blob" }
    node { calculator: "TfLiteModelCalculator"
           input_side_packet: "MODEL_BLOB:blob" output_side_packet: "SHARED_MODEL:model" }
    node { name: "landmarks" calculator: "InferenceCalculator"
           input_stream: "TENSORS:in" output_stream: "TENSORS:out"
           input_side_packet: "MODEL:model" }
  )pb", {{"path", MakePacket<std::string>(kLite)}});
  ASSERT_TRUE(blob.ok()) << blob.status();
  EXPECT_EQ(blob->outputs, lite->outputs);
}

TEST(TfLiteModelCalculatorTest, BytesThatAreNoModelAreAnErrorNamingTheNode) {
  auto out = RunGraph(R"pb(
    input_side_packet: "blob"
    node { name: "parser" calculator: "TfLiteModelCalculator"
           input_side_packet: "MODEL_BLOB:blob" output_side_packet: "MODEL:model" }
  )pb", {}, {}, {{"blob", MakePacket<std::string>("not a model")}});
  ASSERT_FALSE(out.ok());
  const std::string m(out.status().message());
  EXPECT_TRUE(absl::StrContains(m, "\"parser\"")) << m;
  EXPECT_TRUE(absl::StrContains(m, "cannot load the model in MODEL_BLOB")) << m;
}

TEST(TfLiteModelCalculatorTest, ContractWantsOneSourceAndOneOutput) {
  EXPECT_FALSE(CheckContract(R"pb(calculator: "TfLiteModelCalculator"
                                  output_side_packet: "MODEL:m")pb").ok());
  EXPECT_FALSE(CheckContract(R"pb(calculator: "TfLiteModelCalculator"
                                  input_side_packet: "MODEL_BLOB:b"
                                  output_side_packet: "MODEL:m"
                                  output_side_packet: "SHARED_MODEL:s")pb").ok());
  EXPECT_EQ(CheckContract(R"pb(calculator: "TfLiteModelCalculator"
                               input_side_packet: "MODEL_FD:fd"
                               output_side_packet: "MODEL:m")pb").code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(CheckContract(R"pb(calculator: "TfLiteModelCalculator"
                                 input_side_packet: "MODEL_RESOURCE:r"
                                 output_side_packet: "MODEL:m")pb").ok());
}

TEST(TfLiteCustomOpResolverCalculatorTest, TaggedOrUntaggedResolver) {
  auto config = ParseGraphConfig(R"pb(
    node { calculator: "TfLiteCustomOpResolverCalculator"
           output_side_packet: "OP_RESOLVER:tagged" }
    node { calculator: "TfLiteCustomOpResolverCalculator"
           output_side_packet: "untagged"
           options { [mediapipe.TfLiteCustomOpResolverCalculatorOptions.ext] { use_gpu: true } } }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  ASSERT_TRUE(graph.Run().ok());
  auto tagged = graph.GetOutputSidePacket("tagged");
  auto untagged = graph.GetOutputSidePacket("untagged");
  ASSERT_TRUE(tagged.ok() && untagged.ok());
  EXPECT_FALSE(tagged->Get<TfLiteOpResolver>().use_gpu);
  EXPECT_TRUE(untagged->Get<TfLiteOpResolver>().use_gpu);
}

}  // namespace
}  // namespace rill
