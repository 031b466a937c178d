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
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/gpu_test_util.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

using testing::ExpectClose;
using testing::OneOp;
using testing::RunOnce;
using testing::TmpDir;
using testing::Window;

SessionConfig VulkanConfig(Precision precision = Precision::kFp32) {
  SessionConfig config;
  config.backend = "vulkan";
  config.precision = precision;
  // The pipeline cache and the tile tuning per test run (the second
  // session loads them).
  config.backend_options["vulkan.cache_dir"] = TmpDir() + "/vk";
  return config;
}

testing::GpuBackendUnderTest Vulkan() {
  return {"vulkan", VulkanConfig, "no Vulkan device (lavapipe: scripts/setup.sh)",
          // Under each GEMM tile (specialization constants), and as on a GPU
          // with 132 compute units, where small convs split K.
          {{{{"vulkan.tile", "64x64"}}, " (tile 64x64)"},
           {{{"vulkan.compute_units", "132"}, {"vulkan.tile", "32x32"}}, " (tile 32x32, split K)"},
           {{{"vulkan.tile", "32x64"}}, " (tile 32x64)"},
           {{{"vulkan.compute_units", "132"}, {"vulkan.tile", "64x32"}}, " (tile 64x32, split K)"},
           // DEPTHWISE_BLOCK's depthwise fused into its project GEMM (off by
           // default: slower on the H200).
           {{{"vulkan.fuse_depthwise", "true"}, {"vulkan.compute_units", "132"}}, " (depthwise fused, split K)"}}};
}

// Every layer on Vulkan unless a test places it.
class VulkanTest : public testing::GpuBackendTest {
 protected:
  VulkanTest() : GpuBackendTest(Vulkan()) {}
};

// The ops against the CPU's reference kernels (gpu_test_util.h).
TEST_F(VulkanTest, Convolutions) { CheckConvolutions(); }

TEST_F(VulkanTest, DepthwiseAndTransposedConvolutions) { CheckDepthwiseAndTransposedConvolutions(); }

TEST_F(VulkanTest, FullyConnectedAndDepthwiseBlock) { CheckFullyConnectedAndDepthwiseBlock(); }

// DEPTHWISE_BLOCK, its depthwise as a dispatch of its own (the default) and
// fused into the project GEMM (conv_gemm DW = 1, vulkan.fuse_depthwise):
// a block of 264 channels (K splits over two work groups), batch 2, with a
// residual, under every op variant (one fused) against the reference
// kernels, and fused in fp16 storage and arithmetic within 1e-2 of the
// range; one layer, "depthwise_block_fused".
TEST_F(VulkanTest, FusedDepthwiseBlock) {
  OneOp op;
  const int x = op.Input({2, 7, 6, 24});
  const int mid = 264;
  const std::vector<int> inputs = {x,
                                   op.RandomConst({mid, 1, 1, 24}, &rng_),
                                   op.RandomConst({mid}, &rng_),
                                   op.RandomConst({1, 3, 3, mid}, &rng_),
                                   op.RandomConst({mid}, &rng_),
                                   op.RandomConst({12, 1, 1, mid}, &rng_),
                                   op.RandomConst({12}, &rng_),
                                   op.Input({2, 7, 6, 12})};
  ir::OpAttrs a = Window(1, ir::Padding::kSame, ir::Activation::kRelu);
  a.expand_activation = ir::Activation::kRelu;
  a.depthwise_activation = ir::Activation::kRelu6;
  const auto model = op.Build(ir::OpType::kDepthwiseBlock, inputs, a);
  CheckOp(model, "fused depthwise block");
  SessionConfig ref;
  ref.algorithm = AlgorithmPolicy::kReference;
  auto cpu = Session::Create(model, ref);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 4);
  for (const bool arithmetic : {false, true}) {
    SessionConfig config = VulkanConfig(Precision::kFp16);
    config.backend_options["vulkan.fp16_arithmetic"] = arithmetic ? "true" : "false";
    config.backend_options["vulkan.fuse_depthwise"] = "true";
    auto vk = Session::Create(model, config);
    ASSERT_TRUE(vk.ok()) << vk.status().ToString();
    ASSERT_EQ((*vk)->Layers().size(), 1u);
    EXPECT_EQ((*vk)->Layers()[0].kernel.rfind("depthwise_block_fused_vk_f16", 0), 0u) << (*vk)->Layers()[0].kernel;
    ExpectClose(RunOnce(vk->get(), 4), want, 1e-2, arithmetic ? "fp16 arithmetic" : "fp16 storage");
  }
}

TEST_F(VulkanTest, ElementwiseWithBroadcast) { CheckElementwiseWithBroadcast(); }

TEST_F(VulkanTest, PoolsMeanSoftmax) {
  CheckPoolsMeanSoftmax();
  {
    // Many elements per output (a global average pool): a work group each.
    OneOp op;
    const int x = op.Input({2, 13, 11, 9});
    ir::OpAttrs a;
    a.keep_dims = false;
    CheckOp(op.Build(ir::OpType::kMean, {x, op.ConstInts({1, 2})}, a), "mean over H, W (parallel)");
  }
}

TEST_F(VulkanTest, DataMovement) { CheckDataMovement(); }

TEST_F(VulkanTest, Resize) { CheckResize(); }

// Whole models, every layer on Vulkan, against the CPU backend: the OpenCL
// test's models but resnet18 (70 s on lavapipe, and no op the others lack;
// the GPU benchmark runs it).
class VulkanModelTest : public VulkanTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(VulkanModelTest, MatchesCpu) { CheckModelMatchesCpu(GetParam()); }

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
TEST_F(VulkanTest, ResizeReplans) { CheckResizeReplans(); }

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
      std::printf("%s: worst error %.2e of the outputs' range\n", what.c_str(), testing::WorstRelativeError(got, want));
      ExpectClose(got, want, 1e-2, what);
      EXPECT_NE(got, want) << what << ": fp16 gave the fp32 bits";
    }
  }
}

// The numbers in the file "vulkan.gpu_profile" names, written when the
// session ends: runs, submits and segments, then one line per step.
struct Profile {
  long runs = -1, submits = -1, segments = -1;
  long dispatches = -1, barriers = -1;  // recorded for one run
  long every_access_barriers = -1;      // were there one before every step and dispatch
  std::vector<std::pair<std::string, double>> steps;  // name, mean microseconds
};

Profile ReadProfile(const std::string& path) {
  Profile p;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# runs ", 0) == 0) {
      std::sscanf(line.c_str(), "# runs %ld submits %ld segments %ld", &p.runs, &p.submits, &p.segments);
    } else if (line.rfind("# recorded ", 0) == 0) {
      std::sscanf(line.c_str(), "# recorded dispatches %ld barriers %ld (with one before every step and dispatch: %ld)",
                  &p.dispatches, &p.barriers, &p.every_access_barriers);
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

// Two branches from one input joined by a channel concatenation: x ->
// RELU -> a, x -> LOGISTIC -> b, CONCATENATION(a, b) (elementwise
// producers: the concatenation runs, one dispatch per input), or x ->
// 1x1 conv -> a, x -> 3x3 conv -> b (SqueezeNet's fire module: the convs
// write their channel slices of the concatenation in place).
std::shared_ptr<const Model> TwoBranches(bool convs, std::mt19937* rng) {
  auto g = std::make_shared<ir::Graph>();
  auto tensor = [&](const Shape& shape) {
    ir::TensorInfo t;
    t.name = "t" + std::to_string(g->tensors.size());
    t.shape = shape;
    g->tensors.push_back(t);
    return static_cast<int>(g->tensors.size()) - 1;
  };
  auto constant = [&](const Shape& shape) {
    const int id = tensor(shape);
    const std::vector<float> v = testing::RandomFloats(NumElements(shape), rng);
    std::vector<uint8_t> bytes(v.size() * sizeof(float));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    g->SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
    return id;
  };
  auto node = [&](const std::string& name, ir::OpType type, std::vector<int> inputs, const ir::OpAttrs& attrs) {
    ir::Node n;
    n.name = name;
    n.type = type;
    n.inputs = std::move(inputs);
    n.outputs = {tensor({})};
    n.attrs = attrs;
    g->nodes.push_back(n);
    return n.outputs[0];
  };
  const int x = tensor({1, 6, 7, 4});
  g->inputs = {x};
  int a, b;
  if (convs) {
    a = node("a", ir::OpType::kConv2D, {x, constant({3, 1, 1, 4}), constant({3})},
             Window(1, ir::Padding::kSame, ir::Activation::kRelu));
    b = node("b", ir::OpType::kConv2D, {x, constant({5, 3, 3, 4}), constant({5})},
             Window(1, ir::Padding::kSame, ir::Activation::kRelu));
  } else {
    a = node("a", ir::OpType::kRelu, {x}, {});
    b = node("b", ir::OpType::kLogistic, {x}, {});
  }
  ir::OpAttrs axis;
  axis.axis = 3;
  g->outputs = {node("y", ir::OpType::kConcatenation, {a, b}, axis)};
  g->source = "two_branches";
  return std::make_shared<Model>(g);
}

// Barriers only where a dispatch reads or writes what one since the last
// barrier wrote (or writes what one read): independent branches and the
// slices of a concatenation run without barriers between them. The
// profile counts what one run records, each command buffer starting with
// a full barrier and ending with one for the host's reads.
TEST_F(VulkanTest, BarriersOnlyBetweenDependentDispatches) {
  for (bool convs : {false, true}) {
    const auto model = TwoBranches(convs, &rng_);
    auto cpu = Session::Create(model);
    ASSERT_TRUE(cpu.ok());
    const std::string profile = TmpDir() + "/barriers.tsv";
    {
      SessionConfig config = VulkanConfig();
      config.backend_options["vulkan.gpu_profile"] = profile;
      auto vk = Session::Create(model, config);
      ASSERT_TRUE(vk.ok()) << vk.status().ToString();
      ExpectClose(RunOnce(vk->get(), 3), RunOnce(cpu->get(), 3), 1e-5, convs ? "convs" : "elementwise");
    }
    const Profile p = ReadProfile(profile);
    if (!convs) {
      // Start | copy x | RELU (reads x) | LOGISTIC, no barrier | slice a
      // (reads a) | slice b into other columns, no barrier | copy y | host.
      EXPECT_EQ(p.dispatches, 4);
      EXPECT_EQ(p.barriers, 5);
      EXPECT_EQ(p.every_access_barriers, 7) << "one before each of 5 steps, between the slices, for the host";
    } else {
      // Start | copy x | conv a (reads x) | conv b beside it, no barrier |
      // copy y | host.
      EXPECT_EQ(p.dispatches, 2) << "the concatenation runs in place";
      EXPECT_EQ(p.barriers, 4);
      EXPECT_EQ(p.every_access_barriers, 5) << "one before each of 4 steps, for the host";
    }
  }
}

// A DEPTHWISE_CONV_2D whose output only a 1x1 CONV_2D reads (too small
// for the optimizer's DEPTHWISE_BLOCK: MobileNetV2's 7x7 blocks) is one
// dispatch, the conv computing the depthwise as it loads its input: against
// the reference kernels in fp32 (K split over two work groups or not) and
// fp16, and counted. Not where the depthwise output is read elsewhere too
// (here a graph output), nor with fuse_depthwise=false.
TEST_F(VulkanTest, DepthwiseFusedIntoThePointwiseConvAfterIt) {
  for (const bool also_output : {false, true}) {
    auto g = std::make_shared<ir::Graph>();
    auto tensor = [&](const Shape& shape) {
      ir::TensorInfo t;
      t.name = "t" + std::to_string(g->tensors.size());
      t.shape = shape;
      g->tensors.push_back(t);
      return static_cast<int>(g->tensors.size()) - 1;
    };
    auto constant = [&](const Shape& shape) {
      const int id = tensor(shape);
      const std::vector<float> v = testing::RandomFloats(NumElements(shape), &rng_);
      std::vector<uint8_t> bytes(v.size() * sizeof(float));
      std::memcpy(bytes.data(), v.data(), bytes.size());
      g->SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
      return id;
    };
    const int mid = 260;
    const int x = tensor({2, 7, 5, mid});
    g->inputs = {x};
    ir::Node dw;
    dw.name = "dw";
    dw.type = ir::OpType::kDepthwiseConv2D;
    dw.inputs = {x, constant({1, 3, 3, mid}), constant({mid})};
    dw.outputs = {tensor({})};
    dw.attrs = Window(1, ir::Padding::kSame, ir::Activation::kRelu6);
    ir::Node pw;
    pw.name = "pw";
    pw.type = ir::OpType::kConv2D;
    pw.inputs = {dw.outputs[0], constant({9, 1, 1, mid}), constant({9})};
    pw.outputs = {tensor({})};
    pw.attrs = Window(1, ir::Padding::kValid, ir::Activation::kRelu);
    // A RELU of the input after them keeps the input alive past the conv
    // (else the planner may put the conv's output over it, and the conv
    // cannot read it: no fusion then).
    ir::Node relu;
    relu.name = "relu";
    relu.type = ir::OpType::kRelu;
    relu.inputs = {x};
    relu.outputs = {tensor({})};
    g->nodes = {dw, pw, relu};
    g->outputs = {pw.outputs[0], relu.outputs[0]};
    if (also_output) g->outputs.push_back(dw.outputs[0]);
    g->source = "dw_pw";
    const auto model = std::make_shared<Model>(g);
    CheckOp(model, also_output ? "depthwise also an output" : "depthwise fused into the pointwise conv", 1e-5);
    SessionConfig ref;
    ref.algorithm = AlgorithmPolicy::kReference;
    auto cpu = Session::Create(model, ref);
    ASSERT_TRUE(cpu.ok());
    ASSERT_EQ((*cpu)->Layers().size(), 3u) << "the optimizer made a block";
    const auto want = RunOnce(cpu->get(), 5);
    for (const bool fuse : {true, false}) {
      for (const Precision precision : {Precision::kFp32, Precision::kFp16}) {
        const std::string profile = TmpDir() + "/dw_pw.tsv";
        {
          SessionConfig config = VulkanConfig(precision);
          config.backend_options["vulkan.gpu_profile"] = profile;
          config.backend_options["vulkan.fuse_depthwise"] = fuse ? "true" : "false";
          auto vk = Session::Create(model, config);
          ASSERT_TRUE(vk.ok()) << vk.status().ToString();
          ExpectClose(RunOnce(vk->get(), 5), want, precision == Precision::kFp32 ? 1e-5 : 1e-2,
                      std::string(fuse ? "fused" : "unfused") + (precision == Precision::kFp32 ? " fp32" : " fp16"));
        }
        const Profile p = ReadProfile(profile);
        // Splits K in two (260 channels, one tile): the GEMM and its sum;
        // the RELU.
        const long dispatches = (fuse && !also_output ? 0 : 1) + 3;
        EXPECT_EQ(p.dispatches, dispatches) << fuse << also_output;
        // Start | copy x | (depthwise | ) GEMM | sum, RELU beside it |
        // copies to the host | host. (With the depthwise output kept, the
        // planner puts the RELU's output over the split sums: one more.)
        EXPECT_EQ(p.barriers, dispatches + (also_output ? 3 : 2)) << fuse << also_output;
      }
    }
  }
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
TEST_F(VulkanTest, TwoHeadsOnOpenClAndCpu) { CheckTwoHeadsOnGpuAndCpu(); }

// A multi-task model exported by PyTorch (tests/inference/
// export_torchvision_onnx.py: MobileNetV2 backbone, a classification head,
// a dense head): the dense head on Vulkan, the rest on the CPU, on two
// streams that run at once. Outputs match the CPU-only run; the trace puts
// each head's tasks on its backend's stream; so does a sequential run.
TEST_F(VulkanTest, MultiTaskHeadsOnTwoBackends) { CheckMultiTaskHeadsOnTwoBackends(); }

// Placement by callback over op subsets (backends_test's fallback subsets,
// the backend as the device): the face detector at 1 thread concurrently
// and at 2 in sequence.
TEST_F(VulkanTest, PlacementCallbackOverOpSubsets) { CheckPlacementCallbackOverOpSubsets("face_detection_short_range.tflite"); }

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
