// The Vulkan backend against the CPU: every op it runs against the
// reference kernels on odd shapes (one-op graphs; each GEMM tile and the
// split over K), the MediaPipe models and ONNX CNNs whole (every layer on
// Vulkan), a resize (re-recorded command buffers), fp16 storage and fp16
// arithmetic, one submit per run, the pipeline cache and the tuning on
// disk, and heterogeneous runs. In CI this runs on Mesa lavapipe
// (scripts/setup.sh installs it): a machine without a Vulkan device fails
// these tests under CI=true and skips them loudly elsewhere. lavapipe runs
// shaders on the CPU, slowly: the models are the OpenCL test's smaller ones
// (the CNNs run in vulkan_models_test, a target of its own).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

std::string TmpDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp ? tmp : "/tmp";
}

SessionConfig VulkanConfig(Precision precision = Precision::kFp32) {
  SessionConfig config;
  config.backend = "vulkan";
  config.precision = precision;
  // The pipeline cache and the tile tuning per test run (the second
  // session loads them).
  config.backend_options["vulkan.cache_dir"] = TmpDir() + "/vk";
  return config;
}

// A one-op graph: inputs (activations, filled at random) and constants.
class OneOp {
 public:
  int Input(const Shape& shape) {
    const int id = Tensor(shape);
    g_->inputs.push_back(id);
    return id;
  }
  int Const(const Shape& shape, std::vector<float> values) {
    const int id = Tensor(shape);
    std::vector<uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    g_->SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
    return id;
  }
  int ConstInts(const std::vector<int>& values) {
    const int id = Tensor({static_cast<int>(values.size())});
    std::vector<uint8_t> bytes(values.size() * sizeof(int));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    g_->SetConstant(id, DataType::kInt32, {static_cast<int>(values.size())}, std::move(bytes));
    return id;
  }
  int RandomConst(const Shape& shape, std::mt19937* rng) {
    return Const(shape, testing::RandomFloats(NumElements(shape), rng));
  }
  std::shared_ptr<const Model> Build(ir::OpType type, std::vector<int> inputs, const ir::OpAttrs& attrs = {}) {
    ir::Node node;
    node.name = std::string(ir::OpTypeName(type)) + "_under_test";
    node.type = type;
    node.inputs = std::move(inputs);
    node.outputs = {Tensor({})};
    node.attrs = attrs;
    g_->nodes.push_back(node);
    g_->outputs = node.outputs;
    g_->source = node.name;
    return std::make_shared<Model>(g_);
  }

 private:
  int Tensor(const Shape& shape) {
    ir::TensorInfo t;
    t.name = "t" + std::to_string(g_->tensors.size());
    t.shape = shape;
    g_->tensors.push_back(t);
    return static_cast<int>(g_->tensors.size()) - 1;
  }
  std::shared_ptr<ir::Graph> g_ = std::make_shared<ir::Graph>();
};

std::vector<std::vector<float>> RunOnce(Session* s, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int i = 0; i < s->num_inputs(); ++i) {
    Tensor* t = s->input(i);
    const std::vector<float> v = testing::RandomFloats(t->num_elements(), &rng, -2.0f, 2.0f);
    std::copy(v.begin(), v.end(), t->data_as<float>());
  }
  const Status status = s->Run();
  EXPECT_TRUE(status.ok()) << status.ToString();
  std::vector<std::vector<float>> outs;
  for (int i = 0; i < s->num_outputs(); ++i) {
    const Tensor* t = s->output(i);
    outs.emplace_back(t->data_as<float>(), t->data_as<float>() + t->num_elements());
  }
  return outs;
}

// Within `tolerance` of each output's range (and 1e-5 absolute).
void ExpectClose(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want,
                 double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t o = 0; o < got.size(); ++o) {
    ASSERT_EQ(got[o].size(), want[o].size()) << what;
    float lo = 0, hi = 0;
    for (float v : want[o]) lo = std::min(lo, v), hi = std::max(hi, v);
    const double bound = tolerance * std::max(1.0f, hi - lo) + 1e-5;
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < got[o].size(); ++i) {
      const double e = std::fabs(static_cast<double>(got[o][i]) - want[o][i]);
      if (!(e <= worst)) worst = e, at = i;
    }
    EXPECT_LE(worst, bound) << what << ": output " << o << " element " << at << " is " << got[o][at] << ", want "
                            << want[o][at];
  }
}

class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OneOp probe;
    auto model = probe.Build(ir::OpType::kRelu, {probe.Input({1, 2, 2, 3})});
    auto session = Session::Create(model, VulkanConfig());
    RILL_REQUIRE(session.ok(), "no Vulkan device (lavapipe: scripts/setup.sh): " << session.status().ToString());
  }

  // The op on Vulkan against the CPU's reference kernels; every layer must
  // run on Vulkan. Under each GEMM tile (specialization constants), and as
  // on a GPU with 132 compute units, where small convs split K.
  void CheckOp(const std::shared_ptr<const Model>& model, const std::string& what, double tolerance = 1e-5) {
    SessionConfig ref;
    ref.algorithm = AlgorithmPolicy::kReference;
    auto cpu = Session::Create(model, ref);
    ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.status().ToString();
    const auto want = RunOnce(cpu->get(), 7);
    struct Variant {
      const char* units;
      const char* tile;
    };
    for (const Variant& v : {Variant{"", "64x64"}, Variant{"132", "32x32"}, Variant{"", "32x64"}, Variant{"132", "64x32"}}) {
      SessionConfig config = VulkanConfig();
      if (*v.units) config.backend_options["vulkan.compute_units"] = v.units;
      config.backend_options["vulkan.tile"] = v.tile;
      auto vk = Session::Create(model, config);
      ASSERT_TRUE(vk.ok()) << what << ": " << vk.status().ToString();
      for (const LayerInfo& l : (*vk)->Layers()) EXPECT_EQ(l.backend, "vulkan") << what << ": " << l.kernel;
      ExpectClose(RunOnce(vk->get(), 7), want, tolerance,
                  what + " (tile " + v.tile + (*v.units ? ", split K)" : ")"));
    }
  }

  std::mt19937 rng_{1234};
};

ir::OpAttrs Window(int stride, ir::Padding padding, ir::Activation act = ir::Activation::kNone, int dilation = 1) {
  ir::OpAttrs a;
  a.stride_h = a.stride_w = stride;
  a.dilation_h = a.dilation_w = dilation;
  a.padding = padding;
  a.activation = act;
  return a;
}

TEST_F(VulkanTest, Convolutions) {
  struct Case {
    Shape x;
    int out_c, k, stride, dilation, groups;
    ir::Padding padding;
    ir::Activation act;
    bool residual;
  };
  const Case cases[] = {
      {{1, 9, 11, 3}, 5, 3, 2, 1, 1, ir::Padding::kSame, ir::Activation::kRelu, false},
      {{2, 7, 6, 8}, 16, 1, 1, 1, 1, ir::Padding::kValid, ir::Activation::kNone, true},
      {{1, 10, 9, 6}, 9, 3, 1, 2, 3, ir::Padding::kSame, ir::Activation::kRelu6, false},  // groups straddle a 4-block
      {{1, 8, 8, 4}, 7, 5, 1, 1, 1, ir::Padding::kValid, ir::Activation::kTanh, true},
      {{1, 5, 6, 40}, 70, 3, 1, 1, 1, ir::Padding::kSame, ir::Activation::kRelu, true},  // K = 360: splits
  };
  for (const Case& c : cases) {
    OneOp op;
    const int x = op.Input(c.x);
    const int w = op.RandomConst({c.out_c, c.k, c.k, c.x[3] / c.groups}, &rng_);
    const int b = op.RandomConst({c.out_c}, &rng_);
    std::vector<int> inputs = {x, w, b};
    if (c.residual) {
      const int oh = c.padding == ir::Padding::kSame ? (c.x[1] + c.stride - 1) / c.stride
                                                     : (c.x[1] - (c.k - 1) * c.dilation - 1) / c.stride + 1;
      const int ow = c.padding == ir::Padding::kSame ? (c.x[2] + c.stride - 1) / c.stride
                                                     : (c.x[2] - (c.k - 1) * c.dilation - 1) / c.stride + 1;
      inputs.push_back(op.Input({c.x[0], oh, ow, c.out_c - 2}));
    }
    CheckOp(op.Build(ir::OpType::kConv2D, inputs, Window(c.stride, c.padding, c.act, c.dilation)),
            "conv k" + std::to_string(c.k) + " groups " + std::to_string(c.groups), 1e-5);
  }
}

TEST_F(VulkanTest, DepthwiseAndTransposedConvolutions) {
  for (int multiplier : {1, 2}) {
    OneOp op;
    const int x = op.Input({2, 9, 7, 5});
    const int w = op.RandomConst({1, 3, 3, 5 * multiplier}, &rng_);
    const int b = op.RandomConst({5 * multiplier}, &rng_);
    CheckOp(op.Build(ir::OpType::kDepthwiseConv2D, {x, w, b}, Window(2, ir::Padding::kSame, ir::Activation::kRelu6)),
            "depthwise x" + std::to_string(multiplier));
  }
  for (int groups : {1, 2}) {
    OneOp op;
    const int x = op.Input({1, 5, 6, 4});
    const int w = op.RandomConst({6, 3, 3, 4 / groups}, &rng_);
    const int b = op.RandomConst({6}, &rng_);
    ir::OpAttrs a = Window(2, ir::Padding::kExplicit, ir::Activation::kRelu);
    a.pad_top = a.pad_left = 1;
    a.pad_bottom = a.pad_right = 0;
    CheckOp(op.Build(ir::OpType::kTransposeConv2D, {x, w, b}, a), "transpose conv groups " + std::to_string(groups));
  }
}

TEST_F(VulkanTest, FullyConnectedAndDepthwiseBlock) {
  {
    OneOp op;
    const int x = op.Input({3, 37});
    const int w = op.RandomConst({11, 37}, &rng_);
    const int b = op.RandomConst({11}, &rng_);
    ir::OpAttrs a;
    a.activation = ir::Activation::kRelu;
    CheckOp(op.Build(ir::OpType::kFullyConnected, {x, w, b}, a), "fully connected");
  }
  for (bool expand : {false, true}) {
    OneOp op;
    const int x = op.Input({1, 9, 8, 6});
    const int mid = expand ? 10 : 6;
    const int we = expand ? op.RandomConst({mid, 1, 1, 6}, &rng_) : -1;
    const int be = expand ? op.RandomConst({mid}, &rng_) : -1;
    const int wd = op.RandomConst({1, 3, 3, mid}, &rng_);
    const int bd = op.RandomConst({mid}, &rng_);
    const int wp = op.RandomConst({7, 1, 1, mid}, &rng_);
    const int bp = op.RandomConst({7}, &rng_);
    const int res = op.Input({1, 5, 4, 7});
    ir::OpAttrs a = Window(2, ir::Padding::kSame, ir::Activation::kRelu);
    a.expand_activation = ir::Activation::kRelu6;
    a.depthwise_activation = ir::Activation::kRelu6;
    CheckOp(op.Build(ir::OpType::kDepthwiseBlock, {x, we, be, wd, bd, wp, bp, res}, a),
            std::string("depthwise block") + (expand ? " with expand" : ""));
  }
}

TEST_F(VulkanTest, ElementwiseWithBroadcast) {
  for (ir::OpType type : {ir::OpType::kAdd, ir::OpType::kSub, ir::OpType::kMul, ir::OpType::kDiv, ir::OpType::kPRelu}) {
    OneOp op;
    const int a = op.Input({2, 3, 1, 5});
    const int b = type == ir::OpType::kDiv ? op.Const({3, 4, 1}, std::vector<float>(12, 1.7f))
                                           : op.RandomConst({3, 4, 1}, &rng_);
    CheckOp(op.Build(type, {a, b}), ir::OpTypeName(type));
  }
  for (ir::OpType type : {ir::OpType::kRelu, ir::OpType::kRelu6, ir::OpType::kHardSwish, ir::OpType::kLogistic,
                          ir::OpType::kLeakyRelu, ir::OpType::kClamp, ir::OpType::kHardSigmoid, ir::OpType::kSilu}) {
    OneOp op;
    ir::OpAttrs a;
    a.alpha = 0.2f;
    a.beta = 0.5f;
    a.clamp_min = -0.5f;
    a.clamp_max = 1.25f;
    CheckOp(op.Build(type, {op.Input({2, 3, 7, 3})}, a), ir::OpTypeName(type), 1e-5);
  }
}

TEST_F(VulkanTest, PoolsMeanSoftmax) {
  for (ir::OpType type : {ir::OpType::kMaxPool2D, ir::OpType::kAveragePool2D}) {
    OneOp op;
    ir::OpAttrs a = Window(2, ir::Padding::kSame);
    a.kernel_h = 3;
    a.kernel_w = 2;
    CheckOp(op.Build(type, {op.Input({2, 9, 7, 5})}, a), ir::OpTypeName(type));
  }
  {
    OneOp op;
    const int x = op.Input({2, 5, 6, 7});
    ir::OpAttrs a;
    a.keep_dims = true;
    CheckOp(op.Build(ir::OpType::kMean, {x, op.ConstInts({1, 2})}, a), "mean over H, W");
  }
  {
    // Many elements per output (a global average pool): a work group each.
    OneOp op;
    const int x = op.Input({2, 13, 11, 9});
    ir::OpAttrs a;
    a.keep_dims = false;
    CheckOp(op.Build(ir::OpType::kMean, {x, op.ConstInts({1, 2})}, a), "mean over H, W (parallel)");
  }
  {
    OneOp op;
    ir::OpAttrs a;
    a.axis = 1;
    CheckOp(op.Build(ir::OpType::kSoftmax, {op.Input({2, 9, 3})}, a), "softmax axis 1");
  }
}

TEST_F(VulkanTest, DataMovement) {
  {
    OneOp op;
    ir::OpAttrs a;
    a.perm = {0, 3, 1, 2};
    CheckOp(op.Build(ir::OpType::kTranspose, {op.Input({2, 3, 4, 5})}, a), "transpose");
  }
  {
    OneOp op;
    ir::OpAttrs a;
    a.slice_start = {0, 1, 6, 0};
    a.slice_end = {2, 4, 0, 5};
    a.slice_step = {1, 2, -2, 1};
    CheckOp(op.Build(ir::OpType::kSlice, {op.Input({2, 5, 7, 5})}, a), "strided slice");
  }
  {
    OneOp op;
    const int x = op.Input({1, 4, 5, 3});
    CheckOp(op.Build(ir::OpType::kPad, {x, op.ConstInts({0, 0, 1, 2, 2, 0, 0, 1}), op.Const({}, {0.5f})}), "pad");
  }
  for (int axis : {1, 3}) {
    OneOp op;
    const int a = op.Input({2, 3, 4, 5});
    const int b = op.Input(axis == 1 ? Shape{2, 2, 4, 5} : Shape{2, 3, 4, 6});
    ir::OpAttrs attrs;
    attrs.axis = axis;
    CheckOp(op.Build(ir::OpType::kConcatenation, {a, b}, attrs), "concat axis " + std::to_string(axis));
  }
  {
    OneOp op;
    ir::OpAttrs a;
    a.block_size = 2;
    CheckOp(op.Build(ir::OpType::kDepthToSpace, {op.Input({1, 3, 4, 8})}, a), "depth to space");
  }
}

TEST_F(VulkanTest, Resize) {
  struct Case {
    ir::OpType type;
    bool align_corners, half_pixel;
  };
  for (const Case& c : {Case{ir::OpType::kResizeBilinear, false, false}, Case{ir::OpType::kResizeBilinear, true, false},
                        Case{ir::OpType::kResizeBilinear, false, true}, Case{ir::OpType::kResizeNearest, false, false},
                        Case{ir::OpType::kResizeNearest, false, true}}) {
    OneOp op;
    ir::OpAttrs a;
    a.align_corners = c.align_corners;
    a.half_pixel_centers = c.half_pixel;
    const int x = op.Input({2, 5, 7, 3});
    CheckOp(op.Build(c.type, {x, op.ConstInts({11, 9})}, a),
            std::string(ir::OpTypeName(c.type)) + (c.align_corners ? " align_corners" : "") +
                (c.half_pixel ? " half_pixel" : ""));
  }
}

// Whole models, every layer on Vulkan, against the CPU backend: the OpenCL
// test's models but resnet18 (70 s on lavapipe, and no op the others lack;
// the GPU benchmark runs it).
class VulkanModelTest : public VulkanTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(VulkanModelTest, MatchesCpu) {
  const std::string path = testing::ModelPath(GetParam());
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  SessionConfig config = VulkanConfig();
  config.backend_options["vulkan.compute_units"] = "132";  // as on an H100/H200: the small convs split K
  auto vk = Session::Create(*model, config);
  ASSERT_TRUE(vk.ok()) << vk.status().ToString();
  std::set<std::string> fell_back;
  for (const LayerInfo& l : (*vk)->Layers()) {
    if (l.backend != "vulkan") fell_back.insert(l.op);
  }
  EXPECT_TRUE(fell_back.empty()) << "ops that fell back to the CPU: " << *fell_back.begin();
  if (GetParam() == "squeezenet1_1.onnx") {
    // Its fire modules' concatenations cost nothing: the convs write their
    // channel slices (StridedOutput), fp32 and fp16.
    int in_place = 0;
    for (const LayerInfo& l : (*vk)->Layers()) in_place += l.kernel == "concatenation_in_place";
    EXPECT_EQ(in_place, 8);
  }
  // Pose models amplify any change of summation order in their heatmaps
  // (mediapipe_models_test measures it): 1e-3 there, 1e-4 elsewhere.
  const double tolerance = GetParam().find("pose") != std::string::npos ? 1e-3 : 1e-4;
  const auto want = RunOnce(cpu->get(), 3);
  ExpectClose(RunOnce(vk->get(), 3), want, tolerance, GetParam());
  ExpectClose(RunOnce(vk->get(), 3), want, tolerance, GetParam() + " (second run)");
}

INSTANTIATE_TEST_SUITE_P(Models, VulkanModelTest,
                         ::testing::Values("face_detection_short_range.tflite", "face_detection_full_range.tflite",
                                           "selfie_segmentation.tflite", "hand_landmark_lite.tflite",
                                           "pose_landmark_lite.tflite", "mobilenet_v2.onnx", "squeezenet1_1.onnx",
                                           // Fused PRELUs (optimize::FusePRelu) in convs and depthwise blocks.
                                           "palm_detection_lite.tflite", "face_landmark.tflite"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

// A resize re-plans the device arena; batch 2 matches the CPU.
TEST_F(VulkanTest, ResizeReplans) {
  const std::string path = testing::ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  auto cpu = Session::Create(*model);
  auto vk = Session::Create(*model, VulkanConfig());
  ASSERT_TRUE(cpu.ok() && vk.ok());
  for (auto* s : {cpu->get(), vk->get()}) ASSERT_TRUE(s->Resize({{s->input(0)->name(), {2, 128, 128, 3}}}).ok());
  ExpectClose(RunOnce(vk->get(), 5), RunOnce(cpu->get(), 5), 1e-4, "batch 2");
}

// The worst error of `got` over each output's range (at least 1).
double WorstRelativeError(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want) {
  double worst = 0;
  for (size_t o = 0; o < got.size() && o < want.size(); ++o) {
    float lo = 0, hi = 0;
    for (float v : want[o]) lo = std::min(lo, v), hi = std::max(hi, v);
    for (size_t i = 0; i < got[o].size() && i < want[o].size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(got[o][i]) - want[o][i]) / std::max(1.0f, hi - lo));
    }
  }
  return worst;
}

// Precision::kFp16: activations and weights stored as halves (rounded to
// nearest even; VK_KHR_16bit_storage), arithmetic in fp32, and with
// shaderFloat16 also the GEMM's tiles and products in fp16 (sums in fp32):
// within 1e-2 of the outputs' range of fp32 (each stored value moves by up
// to 2^-11 relative, compounded over the layers; fp16 products add one
// more rounding per product), and not bit for bit (the mode is on). The
// measured errors are printed (docs/benchmarks.md quotes them).
TEST_F(VulkanTest, Fp16StorageAndArithmetic) {
  for (const std::string name : {"face_detection_short_range.tflite", "hand_landmark_lite.tflite", "mobilenet_v2.onnx"}) {
    const std::string path = testing::ModelPath(name);
    RILL_SKIP_IF_MISSING(path);
    auto model = Model::FromFile(path);
    ASSERT_TRUE(model.ok());
    auto cpu = Session::Create(*model);
    ASSERT_TRUE(cpu.ok());
    const auto want = RunOnce(cpu->get(), 9);
    for (const bool arithmetic : {false, true}) {
      SessionConfig config = VulkanConfig(Precision::kFp16);
      config.backend_options["vulkan.fp16_arithmetic"] = arithmetic ? "true" : "false";
      auto vk = Session::Create(*model, config);
      ASSERT_TRUE(vk.ok()) << vk.status().ToString();
      bool all_arith = true;
      for (const std::string& k : (*vk)->KernelNames()) {
        EXPECT_NE(k.find("_vk_f16"), std::string::npos) << k;
        all_arith = all_arith && k.find("_vk_f16a") != std::string::npos;
        if (!arithmetic) {
          EXPECT_EQ(k.find("_vk_f16a"), std::string::npos) << k;
        }
      }
      if (arithmetic && !all_arith) {
        std::printf("%s: this device has no shaderFloat16: fp16 storage only\n", name.c_str());
      }
      const auto got = RunOnce(vk->get(), 9);
      const std::string what = name + (arithmetic ? " fp16 storage+arithmetic" : " fp16 storage");
      std::printf("%s: worst error %.2e of the outputs' range\n", what.c_str(), WorstRelativeError(got, want));
      ExpectClose(got, want, 1e-2, what);
      EXPECT_NE(got, want) << what << ": fp16 gave the fp32 bits";
    }
  }
}

// The numbers in the file "vulkan.gpu_profile" names, written when the
// session ends: runs, submits and segments, then one line per step.
struct Profile {
  long runs = -1, submits = -1, segments = -1;
  std::vector<std::pair<std::string, double>> steps;  // name, mean microseconds
};

Profile ReadProfile(const std::string& path) {
  Profile p;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# runs ", 0) == 0) {
      std::sscanf(line.c_str(), "# runs %ld submits %ld segments %ld", &p.runs, &p.submits, &p.segments);
    } else if (!line.empty() && line[0] != '#') {
      std::istringstream fields(line);
      std::string step, mean, share, name;
      std::getline(fields, step, '\t');
      std::getline(fields, mean, '\t');
      std::getline(fields, share, '\t');
      std::getline(fields, name);
      p.steps.emplace_back(name, std::atof(mean.c_str()));
    }
  }
  return p;
}

// A model wholly on Vulkan is one recorded command buffer: one submit per
// run, also after a resize (which records again); the profile's per-step
// GPU times (VkQueryPool timestamps) cover every step.
TEST_F(VulkanTest, OneSubmitPerRunAndGpuTimestamps) {
  const std::string path = testing::ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const std::string profile = TmpDir() + "/one_submit.tsv";
  size_t steps = 0;
  {
    SessionConfig config = VulkanConfig();
    config.backend_options["vulkan.gpu_profile"] = profile;
    auto vk = Session::Create(*model, config);
    ASSERT_TRUE(vk.ok()) << vk.status().ToString();
    for (int run = 0; run < 3; ++run) ExpectClose(RunOnce(vk->get(), run), RunOnce(cpu->get(), run), 1e-4, "run");
    for (auto* s : {cpu->get(), vk->get()}) ASSERT_TRUE(s->Resize({{s->input(0)->name(), {2, 128, 128, 3}}}).ok());
    ExpectClose(RunOnce(vk->get(), 5), RunOnce(cpu->get(), 5), 1e-4, "after a resize");
    for (const LayerInfo& l : (*vk)->Layers()) steps += l.kernel.find("in_place") == std::string::npos;
  }
  const Profile p = ReadProfile(profile);
  EXPECT_EQ(p.runs, 4);
  EXPECT_EQ(p.submits, 4) << "one vkQueueSubmit per run";
  EXPECT_EQ(p.segments, 1);
  // Every layer that is not a view, the input's and the two outputs'
  // transfers, each timed.
  EXPECT_EQ(p.steps.size(), steps + 3);
  double total = 0;
  for (const auto& [name, us] : p.steps) total += us;
  EXPECT_GT(total, 0.0) << "no GPU time measured";
}

// The pipeline cache and the tile tuning are files keyed by device and
// driver: a second session reads the tuning (here a planted 32x64 tile for
// layers of few output tiles shows in the kernel names); "tile" overrides
// it.
TEST_F(VulkanTest, PipelineCacheAndTuningOnDisk) {
  OneOp op;
  const int x = op.Input({1, 6, 6, 8});
  const int w = op.RandomConst({16, 3, 3, 8}, &rng_);
  auto model = op.Build(ir::OpType::kConv2D, {x, w}, Window(1, ir::Padding::kSame));
  const std::string dir = TmpDir() + "/vk_cache_test";
  SessionConfig config = VulkanConfig();
  config.backend_options["vulkan.cache_dir"] = dir;
  std::string tune_file;
  {
    auto vk = Session::Create(model, config);
    ASSERT_TRUE(vk.ok()) << vk.status().ToString();
    ASSERT_TRUE((*vk)->Run().ok());
  }
  bool pipeline_cache = false;
  for (const std::string suffix : {".tune", ".vkpc"}) {
    std::string found;
    FILE* ls = popen(("ls " + dir + "/*" + suffix + " 2>/dev/null").c_str(), "r");
    char buf[512];
    if (ls && std::fgets(buf, sizeof(buf), ls)) found = buf;
    if (ls) pclose(ls);
    while (!found.empty() && found.back() == '\n') found.pop_back();
    if (suffix == ".tune") {
      tune_file = found;
    } else {
      pipeline_cache = !found.empty();
    }
  }
  EXPECT_TRUE(pipeline_cache) << "no pipeline cache in " << dir;
  ASSERT_FALSE(tune_file.empty()) << "no tuning in " << dir;
  {
    // This conv has few output tiles: the "small" class was measured.
    std::ifstream in(tune_file);
    std::string key, value;
    in >> key >> value;
    EXPECT_EQ(key, "gemm_tile_0_small");
    EXPECT_TRUE(value == "32x32" || value == "32x64" || value == "64x32" || value == "64x64") << value;
  }
  std::ofstream(tune_file, std::ios::trunc) << "gemm_tile_0_large 64x64\ngemm_tile_0_small 32x64\n";
  {
    auto vk = Session::Create(model, config);
    ASSERT_TRUE(vk.ok());
    EXPECT_EQ((*vk)->Layers()[0].kernel, "conv2d_gemm32x64_vk");
  }
  config.backend_options["vulkan.tile"] = "64x32";
  auto vk = Session::Create(model, config);
  ASSERT_TRUE(vk.ok());
  EXPECT_EQ((*vk)->Layers()[0].kernel, "conv2d_gemm64x32_vk");
  config.backend_options["vulkan.tile"] = "48x48";
  auto bad = Session::Create(model, config);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tile=48x48"), std::string::npos) << bad.status().ToString();
}

// Nodes Vulkan refuses run on the CPU, with transfers where tensors cross: a
// bicubic resize (no shader: refused at placement) and an antialiased
// bilinear one (refused in Prepare, once shapes are known) between Vulkan
// nodes placed by a callback. The outputs match the CPU's; each return from
// the CPU starts a new recorded segment: one submit per segment per run.
TEST_F(VulkanTest, RefusedNodesFallBackToTheCpu) {
  auto g = std::make_shared<ir::Graph>();
  g->source = "fallback_model";
  auto tensor = [&](const Shape& shape) {
    ir::TensorInfo t;
    t.name = "t" + std::to_string(g->tensors.size());
    t.shape = shape;
    g->tensors.push_back(t);
    return static_cast<int>(g->tensors.size()) - 1;
  };
  auto size = [&](int h, int w) {
    const int id = tensor({2});
    std::vector<uint8_t> bytes(2 * sizeof(int));
    const int hw[2] = {h, w};
    std::memcpy(bytes.data(), hw, bytes.size());
    g->SetConstant(id, DataType::kInt32, {2}, std::move(bytes));
    return id;
  };
  auto node = [&](const char* name, ir::OpType type, std::vector<int> inputs, ir::OpAttrs attrs = {}) {
    ir::Node n;
    n.name = name;
    n.type = type;
    n.inputs = std::move(inputs);
    n.outputs = {tensor({})};
    n.attrs = attrs;
    g->nodes.push_back(n);
    return n.outputs[0];
  };
  const int x = tensor({1, 6, 7, 3});
  g->inputs = {x};
  ir::OpAttrs antialias;  // ONNX Resize's, as the importer sets them
  antialias.antialias = true;
  antialias.resize_coordinate = ir::ResizeCoordinate::kHalfPixel;
  ir::OpAttrs cubic;
  cubic.resize_coordinate = ir::ResizeCoordinate::kHalfPixel;
  const int a = node("relu", ir::OpType::kRelu, {x});
  const int b = node("bicubic", ir::OpType::kResizeBicubic, {a, size(9, 11)}, cubic);
  const int c = node("logistic", ir::OpType::kLogistic, {b});
  const int d = node("antialiased", ir::OpType::kResizeBilinear, {c, size(4, 5)}, antialias);
  g->outputs = {node("relu6", ir::OpType::kRelu6, {d})};
  auto model = std::make_shared<Model>(g);
  auto cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  const std::string profile = TmpDir() + "/fallback.tsv";
  {
    SessionConfig config = VulkanConfig();
    config.backend = kCpuBackend;
    config.placement = [](const NodeRef&) { return std::string("vulkan"); };
    config.backend_options["vulkan.gpu_profile"] = profile;
    auto vk = Session::Create(model, config);
    ASSERT_TRUE(vk.ok()) << vk.status().ToString();
    std::map<std::string, std::string> where;
    for (const LayerInfo& l : (*vk)->Layers()) where[l.name] = l.backend;
    EXPECT_EQ(where["relu"], "vulkan");
    EXPECT_EQ(where["bicubic"], "cpu");
    EXPECT_EQ(where["logistic"], "vulkan");
    EXPECT_EQ(where["antialiased"], "cpu");
    EXPECT_EQ(where["relu6"], "vulkan");
    for (int run = 0; run < 2; ++run) ExpectClose(RunOnce(vk->get(), run), RunOnce(cpu->get(), run), 1e-5, "fallback");
  }
  const Profile p = ReadProfile(profile);
  EXPECT_EQ(p.segments, 3);
  EXPECT_EQ(p.runs, 2);
  EXPECT_EQ(p.submits, 6) << "one submit per segment per run";
}

// Nodes that flow out of one trunk into two heads: the scores head on
// Vulkan while the boxes head runs on the CPU, concurrently or not; a node
// refused by Vulkan (here: none) would fall back.
TEST_F(VulkanTest, TwoHeadsOnOpenClAndCpu) {
  const std::string path = testing::ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  const ir::Graph& g = (*model)->graph();
  // Nodes only the classificators output needs.
  std::vector<bool> needed(g.tensors.size(), false), boxes(g.tensors.size(), false);
  needed[g.outputs[1]] = true;
  boxes[g.outputs[0]] = true;
  std::set<std::string> head;
  for (int n = static_cast<int>(g.nodes.size()) - 1; n >= 0; --n) {
    const bool for_scores = needed[g.nodes[n].outputs[0]], for_boxes = boxes[g.nodes[n].outputs[0]];
    for (int id : g.nodes[n].inputs) {
      if (id < 0) continue;
      if (for_scores) needed[id] = true;
      if (for_boxes) boxes[id] = true;
    }
    if (for_scores && !for_boxes) head.insert(g.nodes[n].name);
  }
  ASSERT_FALSE(head.empty());
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 11);
  for (bool concurrent : {true, false}) {
    SessionConfig config = VulkanConfig();
    config.backend = kCpuBackend;
    for (const std::string& n : head) config.node_backends[n] = "vulkan";
    config.concurrent_backends = concurrent;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    int on_vk = 0;
    for (const LayerInfo& l : (*session)->Layers()) on_vk += l.backend == "vulkan";
    EXPECT_EQ(on_vk, static_cast<int>(head.size()));
    for (int run = 0; run < 3; ++run) {
      ExpectClose(RunOnce(session->get(), 11), want, 1e-4, std::string("two heads, run ") + std::to_string(run) + (concurrent ? " concurrent" : " sequential"));
    }
  }
}

// A multi-task model exported by PyTorch (tests/inference/
// export_torchvision_onnx.py: MobileNetV2 backbone, a classification head,
// a dense head): the dense head on Vulkan, the rest on the CPU, on two
// streams that run at once. Outputs match the CPU-only run; the trace puts
// each head's tasks on its backend's stream; so does a sequential run.
TEST_F(VulkanTest, MultiTaskHeadsOnTwoBackends) {
  const std::string path = testing::ModelPath("rill_multitask.onnx");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ir::Graph& g = (*model)->graph();
  ASSERT_EQ(g.outputs.size(), 2u);
  ASSERT_EQ(g.tensors[g.outputs[1]].name, "mask");
  const std::vector<bool> mask_head = g.HeadOf(1), classes_head = g.HeadOf(0);
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 13);
  for (bool concurrent : {true, false}) {
    SessionConfig config = VulkanConfig();
    config.backend = kCpuBackend;
    config.concurrent_backends = concurrent;
    std::set<std::string> on_vk, on_cpu;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (mask_head[n]) config.node_backends[g.nodes[n].name] = "vulkan", on_vk.insert(g.nodes[n].name);
      if (classes_head[n]) on_cpu.insert(g.nodes[n].name);
    }
    ASSERT_GT(on_vk.size(), 3u);
    ASSERT_GT(on_cpu.size(), 3u);
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    (*session)->set_tracing(true);
    ExpectClose(RunOnce(session->get(), 13), want, 1e-4, concurrent ? "concurrent" : "sequential");
    int vk_tasks = 0, cpu_tasks = 0;
    for (const TaskSpan& s : (*session)->LastRunTrace()) {
      EXPECT_LE(s.start_us, s.end_us) << s.name;
      if (on_vk.count(s.name)) {
        EXPECT_EQ(s.backend, "vulkan") << s.name;
        EXPECT_EQ(s.stream, concurrent ? 1 : 0) << s.name;
        ++vk_tasks;
      }
      if (on_cpu.count(s.name)) {
        EXPECT_EQ(s.backend, "cpu") << s.name;
        EXPECT_EQ(s.stream, 0) << s.name;
        ++cpu_tasks;
      }
    }
    EXPECT_EQ(vk_tasks, static_cast<int>(on_vk.size()));
    EXPECT_GT(cpu_tasks, 0);
    EXPECT_NE((*session)->LastRunTraceJson().find("\"tid\":"), std::string::npos);
  }
}

// Three backends in one session: the multi-task model's backbone on
// Vulkan, its classification head on OpenCL, its dense (mask) head on the
// CPU, concurrently (a stream per backend). Outputs match the CPU-only run;
// the trace puts each task on its backend's stream and shows the two heads
// running at once (the OpenCL stream's span, transfers included, overlaps
// the CPU head's).
TEST_F(VulkanTest, ThreeBackendsInOneSession) {
  const std::string path = testing::ModelPath("rill_multitask.onnx");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  {
    OneOp probe;
    auto relu = probe.Build(ir::OpType::kRelu, {probe.Input({1, 2, 2, 3})});
    SessionConfig cl;
    cl.backend = "opencl";
    auto session = Session::Create(relu, cl);
    RILL_REQUIRE(session.ok(), "no OpenCL device (PoCL: scripts/setup.sh): " << session.status().ToString());
  }
  const ir::Graph& g = (*model)->graph();
  ASSERT_EQ(g.tensors[g.outputs[1]].name, "mask");
  const std::vector<bool> mask_head = g.HeadOf(1), classes_head = g.HeadOf(0);
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 17);
  SessionConfig config = VulkanConfig();  // the backbone (every node not placed below)
  config.concurrent_backends = true;
  config.num_threads = 2;
  std::set<std::string> on_cl, on_cpu, on_vk;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const std::string& name = g.nodes[n].name;
    if (classes_head[n]) config.node_backends[name] = "opencl", on_cl.insert(name);
    else if (mask_head[n]) config.node_backends[name] = kCpuBackend, on_cpu.insert(name);
    else on_vk.insert(name);
  }
  ASSERT_GT(on_cl.size(), 1u);
  ASSERT_GT(on_cpu.size(), 3u);
  ASSERT_GT(on_vk.size(), 10u);
  auto session = Session::Create(*model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::map<std::string, int> per_backend;
  for (const LayerInfo& l : (*session)->Layers()) ++per_backend[l.backend];
  EXPECT_GT(per_backend["vulkan"], 10);
  EXPECT_GT(per_backend["opencl"], 1);
  EXPECT_GT(per_backend["cpu"], 3);
  (*session)->set_tracing(true);
  bool overlapped = false;
  for (int run = 0; run < 4; ++run) {
    ExpectClose(RunOnce(session->get(), 17), want, 1e-4, "three backends, run " + std::to_string(run));
    std::map<std::string, std::set<int>> streams;
    double cl_start = 1e30, cl_end = 0, cpu_start = 1e30, cpu_end = 0;
    for (const TaskSpan& t : (*session)->LastRunTrace()) {
      streams[t.backend].insert(t.stream);
      if (on_cl.count(t.name)) {
        EXPECT_EQ(t.backend, "opencl") << t.name;
      }
      if (t.backend == "opencl") {
        cl_start = std::min(cl_start, t.start_us), cl_end = std::max({cl_end, t.end_us, t.finish_us});
      }
      if (on_cpu.count(t.name)) {
        EXPECT_EQ(t.backend, "cpu") << t.name;
        cpu_start = std::min(cpu_start, t.start_us), cpu_end = std::max({cpu_end, t.end_us, t.finish_us});
      }
      if (on_vk.count(t.name)) {
        EXPECT_EQ(t.backend, "vulkan") << t.name;
      }
    }
    // A stream of each backend's own.
    ASSERT_EQ(streams["vulkan"].size(), 1u);
    ASSERT_EQ(streams["opencl"].size(), 1u);
    EXPECT_NE(*streams["vulkan"].begin(), *streams["opencl"].begin());
    EXPECT_EQ(streams["cpu"].count(*streams["vulkan"].begin()), 0u);
    overlapped = overlapped || (cl_start < cpu_end && cpu_start < cl_end);
  }
  EXPECT_TRUE(overlapped) << "the OpenCL and CPU heads never ran at once";
  EXPECT_NE((*session)->LastRunTraceJson().find("\"vulkan\""), std::string::npos);
}

}  // namespace
}  // namespace rill::inference
