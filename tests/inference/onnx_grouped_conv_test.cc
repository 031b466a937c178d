// Grouped ONNX Conv and ConvTranspose (group > 1: ResNeXt, ShuffleNet,
// RegNet, grouped decoders) against ONNX Runtime 1.30: one-node models
// written here, odd channel counts per group, strides, padding, dilation,
// batch 2, reference and optimized kernels at 1 and 2 threads, within the
// comparison tolerance of the ONNX model tests (1e-4 of the output's range).
// Weights that do not fit the group count are errors naming node and file.
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/tools/ort_runner.h"
#include "rill/inference/inference.h"
#include "tests/inference/onnx_test_models.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

struct ConvCase {
  std::string op = "Conv";
  int n = 1, c = 4, h = 9, w = 8;
  int out_c = 6, group = 2, k = 3;
  std::vector<int64_t> strides = {1, 1}, pads = {1, 1, 1, 1}, dilations = {1, 1}, output_padding;
  bool bias = true;
  std::string Describe() const {
    std::string s = op + " n" + std::to_string(n) + " c" + std::to_string(c) + " " + std::to_string(h) + "x" +
                    std::to_string(w) + " -> " + std::to_string(out_c) + " group " + std::to_string(group) + " k" +
                    std::to_string(k) + " stride " + std::to_string(strides[0]) + " dilation " +
                    std::to_string(dilations[0]);
    return s;
  }
};

std::string WriteModel(const ConvCase& cc, const std::string& file, std::mt19937* rng) {
  onnx::ModelProto m = testing::NewOnnxModel(13, "rill onnx_grouped_conv_test");
  onnx::GraphProto* g = m.mutable_graph();
  testing::SetFloatValueInfo(g->add_input(), "x", {cc.n, cc.c, cc.h, cc.w});
  onnx::NodeProto* node = g->add_node();
  node->set_name("the_conv");
  node->set_op_type(cc.op);
  node->add_input("x");
  // Conv: (M, C/group, k, k); ConvTranspose: (C, M/group, k, k).
  const bool transposed = cc.op == "ConvTranspose";
  const std::vector<int64_t> wdims = transposed
                                         ? std::vector<int64_t>{cc.c, cc.out_c / cc.group, cc.k, cc.k}
                                         : std::vector<int64_t>{cc.out_c, cc.c / cc.group, cc.k, cc.k};
  testing::AddFloatInitializer(g, "w", testing::RandomFloats(wdims[0] * wdims[1] * cc.k * cc.k, rng), wdims);
  node->add_input("w");
  if (cc.bias) {
    testing::AddFloatInitializer(g, "b", testing::RandomFloats(cc.out_c, rng));
    node->add_input("b");
  }
  node->add_output("y");
  testing::AddIntAttribute(node, "group", cc.group);
  testing::AddIntsAttribute(node, "kernel_shape", {cc.k, cc.k});
  testing::AddIntsAttribute(node, "strides", cc.strides);
  testing::AddIntsAttribute(node, "pads", cc.pads);
  testing::AddIntsAttribute(node, "dilations", cc.dilations);
  if (!cc.output_padding.empty()) testing::AddIntsAttribute(node, "output_padding", cc.output_padding);
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return testing::SaveOnnxModel(m, file);
}

void ExpectSameAsOrt(const ConvCase& cc, int index) {
  std::mt19937 rng(index);
  const std::string path = WriteModel(cc, "conv_" + std::to_string(index) + ".onnx", &rng);
  const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(cc.n) * cc.c * cc.h * cc.w, &rng);
  auto ort = ort::OrtRunner::Create(path);
  ASSERT_TRUE(ort.ok()) << cc.Describe() << ": " << ort.status().ToString();
  std::vector<ort::OrtTensor> want;
  ASSERT_TRUE((*ort)->Run({{"x", {cc.n, cc.c, cc.h, cc.w}, x}}, &want).ok()) << cc.Describe();
  ASSERT_EQ(want.size(), 1u);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << cc.Describe() << ": " << model.status().ToString();
  for (const SessionConfig& config : testing::PolicyThreadConfigs({1, 2})) {
    auto s = Session::Create(*model, config);
    ASSERT_TRUE(s.ok()) << cc.Describe() << ": " << s.status().ToString();
    std::copy(x.begin(), x.end(), (*s)->input(0)->data_as<float>());
    ASSERT_TRUE((*s)->Run().ok());
    const Tensor* y = (*s)->output(0);
    const std::vector<int64_t> shape(y->shape().begin(), y->shape().end());
    ASSERT_EQ(shape, want[0].shape) << cc.Describe();
    ASSERT_EQ(static_cast<size_t>(y->num_elements()), want[0].data.size());
    // The conv's layer: its kernel (an x86 one when optimized: a GEMM or
    // sliding window per group, or the direct kernel) and
    // its multiply-accumulates (each output sums k * k * C / group taps).
    const std::vector<LayerInfo> layers = (*s)->Layers();
    const LayerInfo* conv = nullptr;
    for (const LayerInfo& l : layers) {
      if (l.op.find("CONV_2D") != std::string::npos) conv = &l;
    }
    ASSERT_NE(conv, nullptr) << cc.Describe();
    const int64_t per_output = static_cast<int64_t>(cc.k) * cc.k * cc.c / cc.group;
    if (cc.op == "Conv") {
      EXPECT_EQ(conv->macs, y->num_elements() * per_output) << cc.Describe();
    } else {
      EXPECT_EQ(conv->macs, static_cast<int64_t>(cc.n) * cc.h * cc.w * cc.k * cc.k * cc.c * cc.out_c / cc.group)
          << cc.Describe();
    }
#if defined(__x86_64__)
    // Depthwise 5x5 and 7x7 at stride 1 or 2 run the AVX-512 row-taps
    // kernel where the CPU has AVX-512F (one channel is a plain conv to the
    // importer).
    if (config.algorithm == AlgorithmPolicy::kAuto && cc.op == "Conv" && cc.c == cc.group && cc.c > 1 &&
        cc.out_c == cc.c && (cc.k == 5 || cc.k == 7) && __builtin_cpu_supports("avx512f")) {
      EXPECT_EQ(conv->kernel, "depthwise_conv2d_avx512_rowtaps") << cc.Describe();
    }
#endif
    if (config.algorithm == AlgorithmPolicy::kAuto && cc.op == "Conv" && cc.c != cc.group) {
      EXPECT_TRUE(conv->kernel.rfind("conv2d_", 0) == 0 && conv->kernel != "conv2d_ref")
          << cc.Describe() << ": " << conv->kernel;
    }
    const std::string what = cc.Describe() +
                             (config.algorithm == AlgorithmPolicy::kAuto ? " optimized" : " reference") +
                             " threads " + std::to_string(config.num_threads) + " kernel " + conv->kernel;
    EXPECT_TRUE(ort::DiffOutputs(y->data_as<float>(), want[0].data.data(), want[0].data.size())
                    .Within(ort::kCompareTolerance))
        << what;
  }
}

TEST(OnnxGroupedConvTest, ConvMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  std::vector<ConvCase> cases;
  ConvCase base;  // 2 groups of 2 -> 3 channels, 3x3 same
  cases.push_back(base);
  ConvCase odd = base;  // 3 groups of 7 -> 5, stride 2, asymmetric padding, batch 2
  odd.n = 2;
  odd.c = 21;
  odd.out_c = 15;
  odd.group = 3;
  odd.h = 11;
  odd.w = 13;
  odd.strides = {2, 2};
  odd.pads = {1, 0, 0, 1};
  cases.push_back(odd);
  ConvCase dilated = base;  // 8 groups of 4 -> 4, dilation 2, no bias
  dilated.c = 32;
  dilated.out_c = 32;
  dilated.group = 8;
  dilated.h = dilated.w = 12;
  dilated.dilations = {2, 2};
  dilated.pads = {2, 2, 2, 2};
  dilated.bias = false;
  cases.push_back(dilated);
  ConvCase pointwise = base;  // ShuffleNet's grouped 1x1: 4 groups of 6 -> 10
  pointwise.c = 24;
  pointwise.out_c = 40;
  pointwise.group = 4;
  pointwise.k = 1;
  pointwise.pads = {0, 0, 0, 0};
  cases.push_back(pointwise);
  ConvCase wide = pointwise;  // 2 groups of 3 -> 150 (wider than a 128-channel column group)
  wide.c = 6;
  wide.out_c = 300;
  wide.group = 2;
  wide.k = 3;
  wide.pads = {1, 1, 1, 1};
  cases.push_back(wide);
  ConvCase multiplier = base;  // group == C with 2 outputs per channel (depthwise)
  multiplier.c = 5;
  multiplier.out_c = 10;
  multiplier.group = 5;
  cases.push_back(multiplier);
  ConvCase resnext = base;  // ResNeXt's 32x4d 3x3 (on a small map)
  resnext.c = 128;
  resnext.out_c = 128;
  resnext.group = 32;
  resnext.h = resnext.w = 7;
  cases.push_back(resnext);
  int index = 0;
  for (const ConvCase& cc : cases) ExpectSameAsOrt(cc, index++);
}

// ConvNeXt's 7x7 and BlazePalm's 5x5 depthwise convs (group == C == M) on
// odd maps: the x86 AVX-512 row-taps kernel's pixel blocks, padded borders
// and channel tails, strides 1 and 2, asymmetric pads, batch 2, at 1 and 2
// threads.
TEST(OnnxGroupedConvTest, LargeWindowDepthwiseMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  std::vector<ConvCase> cases;
  ConvCase convnext;  // 17 channels, stride 1, pad 3, batch 2
  convnext.n = 2;
  convnext.c = convnext.out_c = convnext.group = 17;
  convnext.h = 15;
  convnext.w = 23;
  convnext.k = 7;
  convnext.pads = {3, 3, 3, 3};
  cases.push_back(convnext);
  ConvCase strided = convnext;  // 101 channels, stride 2, pads top 3 left 2 bottom 2 right 3
  strided.n = 1;
  strided.c = strided.out_c = strided.group = 101;
  strided.h = strided.w = 16;
  strided.strides = {2, 2};
  strided.pads = {3, 2, 2, 3};
  cases.push_back(strided);
  ConvCase last = convnext;  // ConvNeXt's last stage's 7x7 map (one interior column), no bias
  last.n = 1;
  last.c = last.out_c = last.group = 48;
  last.h = last.w = 7;
  last.bias = false;
  cases.push_back(last);
  ConvCase five = strided;  // 5x5, 33 channels, stride 2, pads top 2 left 1 bottom 1 right 2
  five.c = five.out_c = five.group = 33;
  five.k = 5;
  five.h = 19;
  five.w = 21;
  five.pads = {2, 1, 1, 2};
  cases.push_back(five);
  ConvCase one = convnext;  // one channel, no padding
  one.c = one.out_c = one.group = 1;
  one.pads = {0, 0, 0, 0};
  cases.push_back(one);
  int index = 50;
  for (const ConvCase& cc : cases) ExpectSameAsOrt(cc, index++);
}

TEST(OnnxGroupedConvTest, ConvTransposeMatchesOnnxRuntime) {
  RILL_SKIP_IF_NO_ORT();
  std::vector<ConvCase> cases;
  ConvCase up;  // 2 groups of 3 -> 2, stride 2, output_padding
  up.op = "ConvTranspose";
  up.c = 6;
  up.out_c = 4;
  up.group = 2;
  up.h = 5;
  up.w = 7;
  up.strides = {2, 2};
  up.pads = {1, 1, 1, 1};
  up.output_padding = {1, 1};
  cases.push_back(up);
  ConvCase three = up;  // 3 groups of 1 -> 3, kernel 4 stride 2, batch 2, no bias
  three.n = 2;
  three.c = 3;
  three.out_c = 9;
  three.group = 3;
  three.k = 4;
  three.output_padding.clear();
  three.bias = false;
  cases.push_back(three);
  ConvCase ungrouped = up;  // group 1 (unchanged path)
  ungrouped.group = 1;
  ungrouped.out_c = 5;
  cases.push_back(ungrouped);
  int index = 100;
  for (const ConvCase& cc : cases) ExpectSameAsOrt(cc, index++);
}

TEST(OnnxGroupedConvTest, WeightsThatDoNotFitTheGroupsAreErrorsNamingTheNode) {
  std::mt19937 rng(7);
  ConvCase uneven;  // 4 input channels do not split into 3 groups
  uneven.group = 3;
  uneven.out_c = 6;
  ConvCase outputs;  // 6 output channels do not split into 4 groups
  outputs.c = 8;
  outputs.group = 4;
  outputs.out_c = 6;
  ConvCase transposed = uneven;  // the same for ConvTranspose
  transposed.op = "ConvTranspose";
  transposed.pads = {0, 0, 0, 0};
  int i = 300;
  for (const ConvCase& cc : {uneven, outputs, transposed}) {
    const std::string path = WriteModel(cc, "bad_" + std::to_string(i++) + ".onnx", &rng);
    auto model = Model::FromFile(path);
    ASSERT_FALSE(model.ok()) << cc.Describe();
    EXPECT_NE(model.status().message().find("the_conv"), std::string::npos) << model.status().message();
    EXPECT_NE(model.status().message().find(path), std::string::npos) << model.status().message();
  }
}

}  // namespace
}  // namespace rill::inference
