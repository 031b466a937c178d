// The OpenCL backend against the CPU: every op it runs against the
// reference kernels on odd shapes (one-op graphs), the MediaPipe models and
// the ONNX CNNs whole (every layer on OpenCL), a resize, fp16 storage, and
// heterogeneous runs (one head of a two-headed model on OpenCL while the
// other runs on the CPU). In CI this runs on PoCL (scripts/setup.sh installs
// it): a machine without an OpenCL device fails these tests under CI=true
// and skips them loudly elsewhere.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
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
using testing::Window;

SessionConfig OpenClConfig(Precision precision = Precision::kFp32) {
  SessionConfig config;
  config.backend = "opencl";
  config.precision = precision;
  // A cache of built programs per test run (the second model loads it).
  if (const char* tmp = std::getenv("TEST_TMPDIR")) config.backend_options["opencl.cache_dir"] = std::string(tmp) + "/cl";
  return config;
}

testing::GpuBackendUnderTest OpenCl() {
  return {"opencl", OpenClConfig, "no OpenCL device (PoCL: scripts/setup.sh)",
          // Also as on a GPU with 132 compute units, where small convs split K.
          {{{}, ""}, {{{"opencl.compute_units", "132"}}, " (split K)"}}};
}

// Every layer on OpenCL unless a test places it.
class OpenClTest : public testing::GpuBackendTest {
 protected:
  OpenClTest() : GpuBackendTest(OpenCl()) {}
  // `model` run once on the CPU's reference kernels, inputs from `seed`.
  testing::Outputs ReferenceRun(const std::shared_ptr<const Model>& model, uint32_t seed) {
    SessionConfig ref;
    ref.algorithm = AlgorithmPolicy::kReference;
    auto cpu = Session::Create(model, ref);
    EXPECT_TRUE(cpu.ok()) << cpu.status().ToString();
    if (!cpu.ok()) return {};
    return RunOnce(cpu->get(), seed);
  }
};

// The ops against the CPU's reference kernels (gpu_test_util.h).
TEST_F(OpenClTest, Convolutions) { CheckConvolutions(); }

TEST_F(OpenClTest, DepthwiseAndTransposedConvolutions) { CheckDepthwiseAndTransposedConvolutions(); }

TEST_F(OpenClTest, FullyConnectedAndDepthwiseBlock) { CheckFullyConnectedAndDepthwiseBlock(); }

TEST_F(OpenClTest, ElementwiseWithBroadcast) { CheckElementwiseWithBroadcast(); }

TEST_F(OpenClTest, PoolsMeanSoftmax) { CheckPoolsMeanSoftmax(); }

TEST_F(OpenClTest, DataMovement) { CheckDataMovement(); }

TEST_F(OpenClTest, Resize) { CheckResize(); }

// RESIZE_BICUBIC (ONNX cubic: coefficient, exclude_outside, coordinate
// modes) and antialiased linear and cubic resizes, up and down, against the
// reference kernels' taps.
TEST_F(OpenClTest, BicubicAndAntialiasedResize) {
  struct Case {
    ir::OpType type;
    bool antialias, exclude_outside;
    float coeff;
    ir::ResizeCoordinate coordinate;
    std::vector<int> size;
  };
  using C = ir::ResizeCoordinate;
  for (const Case& c : {Case{ir::OpType::kResizeBicubic, false, false, -0.75f, C::kHalfPixel, {11, 9}},
                        Case{ir::OpType::kResizeBicubic, false, true, -0.5f, C::kAlignCorners, {13, 4}},
                        Case{ir::OpType::kResizeBicubic, false, false, -0.75f, C::kAsymmetric, {3, 17}},
                        Case{ir::OpType::kResizeBilinear, true, false, -0.75f, C::kHalfPixel, {3, 2}},
                        Case{ir::OpType::kResizeBilinear, true, false, -0.75f, C::kPytorchHalfPixel, {12, 5}},
                        Case{ir::OpType::kResizeBicubic, true, false, -0.5f, C::kHalfPixel, {2, 3}}}) {
    OneOp op;
    ir::OpAttrs a;
    a.antialias = c.antialias;
    a.exclude_outside = c.exclude_outside;
    a.cubic_coeff_a = c.coeff;
    a.resize_coordinate = c.coordinate;
    const int x = op.Input({2, 6, 7, 3});
    CheckOp(op.Build(c.type, {x, op.ConstInts(c.size)}, a),
            std::string(ir::OpTypeName(c.type)) + (c.antialias ? " antialias" : "") +
                (c.exclude_outside ? " exclude_outside" : "") + " to " + std::to_string(c.size[0]) + "x" +
                std::to_string(c.size[1]));
  }
}

// Channel-blocked (NC4HW4) storage: a chain of 1x1 convs, depthwise convs
// and a depthwise block with odd channel counts (not multiples of 4),
// strides, padding, a dilation, fused activations and residuals, as the
// backend stores it: NC4HW4 where the producer and every reader run the
// NC4HW4 kernels, NHWC where a graph input, a graph output or a kernel that
// reads NHWC (the 3x3 GEMM) meets them, converted by the kernels on the
// boundary. Against the reference kernels, batch 2.
std::shared_ptr<const Model> ChannelBlockedChain(const Shape& x_shape, std::mt19937* rng) {
  OneOp op;
  using ir::Activation;
  using ir::OpType;
  using ir::Padding;
  const int c_in = x_shape[3];
  const int x = op.Input(x_shape);
  const int x2 = op.Input(x_shape);
  auto conv = [&](int in, int in_c, int out_c, int k, ir::OpAttrs a, int res = -1) {
    std::vector<int> inputs = {in, op.RandomConst({out_c, k, k, in_c}, rng), op.RandomConst({out_c}, rng)};
    if (res >= 0) inputs.push_back(res);
    return op.Node(OpType::kConv2D, inputs, a);
  };
  auto depthwise = [&](int in, int c, int k, ir::OpAttrs a) {
    return op.Node(OpType::kDepthwiseConv2D, {in, op.RandomConst({1, k, k, c}, rng), op.RandomConst({c}, rng)}, a);
  };
  // NHWC graph input -> NC4HW4 -> NC4HW4 ...
  const int a = conv(x, c_in, 13, 1, Window(1, Padding::kValid, Activation::kRelu6));
  const int b = depthwise(a, 13, 3, Window(2, Padding::kSame, Activation::kRelu));
  ir::OpAttrs dilated = Window(1, Padding::kSame, Activation::kTanh, 2);
  const int c = depthwise(b, 13, 3, dilated);
  const int r = conv(c, 13, 5, 1, Window(1, Padding::kSame));                          // a residual of 5 channels
  const int d = conv(c, 13, 7, 1, Window(1, Padding::kValid, Activation::kRelu), r);  // -> NHWC for the 3x3
  const int e = conv(d, 7, 10, 3, Window(1, Padding::kSame));
  const int z = conv(c, 13, 3, 1, Window(1, Padding::kValid));  // NC4HW4 -> a graph output
  // A depthwise block (expand 13 -> 18, 3x3, project 18 -> 9, the residual
  // r) between NC4HW4 tensors.
  ir::OpAttrs block = Window(1, Padding::kSame, Activation::kNone);
  block.expand_activation = Activation::kRelu6;
  block.depthwise_activation = Activation::kRelu;
  const int q = op.Node(OpType::kDepthwiseBlock,
                        {c, op.RandomConst({18, 1, 1, 13}, rng), op.RandomConst({18}, rng),
                         op.RandomConst({1, 3, 3, 18}, rng), op.RandomConst({18}, rng),
                         op.RandomConst({9, 1, 1, 18}, rng), op.RandomConst({9}, rng), r},
                        block);
  const int qz = conv(q, 9, 4, 1, Window(1, Padding::kValid, Activation::kRelu));
  // NHWC graph input -> a depthwise (explicit padding) -> NC4HW4.
  ir::OpAttrs explicit_pad = Window(1, Padding::kExplicit, Activation::kRelu);
  explicit_pad.pad_top = 2;
  explicit_pad.pad_left = 1;
  explicit_pad.pad_bottom = 0;
  explicit_pad.pad_right = 1;
  const int w = depthwise(x2, c_in, 3, explicit_pad);
  return op.Build(ir::OpType::kConv2D,
                  {w, op.RandomConst({11, 1, 1, c_in}, rng), op.RandomConst({11}, rng)},
                  Window(1, Padding::kValid, Activation::kNone), {e, z, qz});
}

std::multiset<std::string> KernelsOf(Session* s) {
  std::multiset<std::string> kernels;
  for (const LayerInfo& l : s->Layers()) {
    EXPECT_EQ(l.backend, "opencl") << l.name;
    kernels.insert(l.kernel);
  }
  return kernels;
}

TEST_F(OpenClTest, ChannelBlockedChainsMatchTheReference) {
  SessionConfig ref;
  ref.algorithm = AlgorithmPolicy::kReference;
  struct Case {
    Shape x;
    const char* min_pixels;  // opencl.nc4_min_pixels ("": the default, 28x28)
    Precision precision;
    bool blocked;  // the NC4HW4 kernels run
  };
  for (const Case& k : {Case{{2, 9, 11, 6}, "0", Precision::kFp32, true},
                        Case{{2, 9, 11, 6}, "0", Precision::kFp16, true},
                        Case{{2, 9, 11, 6}, "", Precision::kFp32, false},  // maps under 28x28
                        Case{{1, 56, 57, 6}, "", Precision::kFp32, true}}) {  // 28x29 after the stride
    const std::string what = "x " + std::to_string(k.x[1]) + "x" + std::to_string(k.x[2]) + " nc4_min_pixels '" +
                             k.min_pixels + (k.precision == Precision::kFp16 ? "' fp16" : "'");
    const auto model = ChannelBlockedChain(k.x, &rng_);
    auto cpu = Session::Create(model, ref);
    ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.status().ToString();
    SessionConfig config = Config(k.precision);
    if (*k.min_pixels) config.backend_options["opencl.nc4_min_pixels"] = k.min_pixels;
    auto cl = Session::Create(model, config);
    ASSERT_TRUE(cl.ok()) << what << ": " << cl.status().ToString();
    const std::multiset<std::string> kernels = KernelsOf(cl->get());
    const std::string f16 = k.precision == Precision::kFp16 ? "_cl_f16" : "_cl";
    if (k.blocked) {
      // a, r, d, z, qz and the last conv; b, c and w; the block. The 3x3
      // conv stays on NHWC: the GEMM, or Winograd on a map of 28x28 and
      // more (opencl.winograd=auto).
      EXPECT_EQ(kernels.count("pointwise_nc4" + f16), 6u) << what;
      EXPECT_EQ(kernels.count("depthwise_nc4" + f16), 3u) << what;
      EXPECT_EQ(kernels.count("depthwise_block_nc4" + f16), 1u) << what;
      EXPECT_EQ(kernels.count(k.x[1] >= 56 ? "conv2d_winograd" + f16 : "conv2d_tiled" + f16), 1u) << what;
    } else {
      for (const std::string& kernel : kernels) EXPECT_EQ(kernel.find("nc4"), std::string::npos) << what << kernel;
    }
    const auto want = RunOnce(cpu->get(), 3);
    ExpectClose(RunOnce(cl->get(), 3), want, k.precision == Precision::kFp16 ? 1e-2 : 1e-5, what);
    // A second run gives the same (steady state: nothing left over).
    EXPECT_EQ(RunOnce(cl->get(), 3), RunOnce(cl->get(), 3)) << what;
  }
}

// A fire module (SqueezeNet's squeeze 1x1, then a 1x1 and a 3x3 expand
// side by side in a concatenation): the two expands run as one launch
// (conv2d_tiled_pair) where the 1x1's channels are a multiple of the GEMM
// tile (64), the activations agree and opencl.pair_convs is on; against the
// reference kernels, also as on a 132-unit GPU (K = 9 x 32 splits), batch 2,
// fp16.
std::shared_ptr<const Model> FireModule(const Shape& x_shape, int squeeze, int e1, int e3, ir::Activation act3,
                                        std::mt19937* rng) {
  OneOp op;
  using ir::Activation;
  using ir::OpType;
  using ir::Padding;
  const int c = x_shape[3];
  const int x = op.Input(x_shape);
  const int s = op.Node(OpType::kConv2D, {x, op.RandomConst({squeeze, 1, 1, c}, rng), op.RandomConst({squeeze}, rng)},
                        Window(1, Padding::kValid, Activation::kRelu));
  const int a = op.Node(OpType::kConv2D, {s, op.RandomConst({e1, 1, 1, squeeze}, rng), op.RandomConst({e1}, rng)},
                        Window(1, Padding::kValid, Activation::kRelu));
  const int b = op.Node(OpType::kConv2D, {s, op.RandomConst({e3, 3, 3, squeeze}, rng), op.RandomConst({e3}, rng)},
                        Window(1, Padding::kSame, act3));
  ir::OpAttrs cat;
  cat.axis = 3;
  const int y = op.Node(OpType::kConcatenation, {a, b}, cat);
  return op.Build(OpType::kConv2D, {y, op.RandomConst({5, 1, 1, e1 + e3}, rng), op.RandomConst({5}, rng)},
                  Window(1, Padding::kValid, Activation::kNone));
}

TEST_F(OpenClTest, FireModuleExpandsRunAsOneLaunch) {
  SessionConfig ref;
  ref.algorithm = AlgorithmPolicy::kReference;
  struct Case {
    Shape x;
    int squeeze, e1, e3;
    ir::Activation act3;
    const char* pair_convs;
    Precision precision;
    bool paired;
  };
  using A = ir::Activation;
  for (const Case& k : {Case{{1, 9, 11, 13}, 10, 64, 70, A::kRelu, "", Precision::kFp32, true},
                        Case{{2, 7, 6, 5}, 32, 128, 37, A::kRelu, "", Precision::kFp32, true},  // K 288: splits
                        Case{{2, 7, 6, 5}, 32, 128, 37, A::kRelu, "", Precision::kFp16, true},
                        Case{{1, 9, 11, 13}, 10, 60, 70, A::kRelu, "", Precision::kFp32, false},  // 60: not a tile
                        Case{{1, 9, 11, 13}, 10, 64, 70, A::kRelu6, "", Precision::kFp32, false},
                        Case{{1, 9, 11, 13}, 10, 64, 70, A::kRelu, "0", Precision::kFp32, false}}) {
    const auto model = FireModule(k.x, k.squeeze, k.e1, k.e3, k.act3, &rng_);
    auto cpu = Session::Create(model, ref);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    const auto want = RunOnce(cpu->get(), 4);
    for (const char* units : {"", "132"}) {
      const std::string what = "squeeze " + std::to_string(k.squeeze) + " e1 " + std::to_string(k.e1) + " e3 " +
                               std::to_string(k.e3) + " pair_convs '" + k.pair_convs + "' units '" + units +
                               (k.precision == Precision::kFp16 ? "' fp16" : "'");
      SessionConfig config = Config(k.precision);
      if (*k.pair_convs) config.backend_options["opencl.pair_convs"] = k.pair_convs;
      if (*units) config.backend_options["opencl.compute_units"] = units;
      auto cl = Session::Create(model, config);
      ASSERT_TRUE(cl.ok()) << what << ": " << cl.status().ToString();
      const std::multiset<std::string> kernels = KernelsOf(cl->get());
      const std::string f16 = k.precision == Precision::kFp16 ? "_cl_f16" : "_cl";
      EXPECT_EQ(kernels.count("conv2d_tiled_pair" + f16), k.paired ? 1u : 0u) << what;
      EXPECT_EQ(kernels.count("conv2d_in_pair" + f16), k.paired ? 1u : 0u) << what;
      EXPECT_EQ(kernels.count("concatenation_in_place"), 1u) << what;
      ExpectClose(RunOnce(cl->get(), 4), want, k.precision == Precision::kFp16 ? 1e-2 : 1e-5, what);
    }
  }
}

// Winograd F(2x2, 3x3) (opencl.winograd=1): 3x3 stride-1 convs on odd maps
// (partial 2x2 tiles), SAME, VALID and explicit padding, residuals,
// activations, batch 2, a 1x1 map, fp16, against the reference kernels
// (1e-4 of the range: the transforms round differently); a strided 3x3
// conv keeps the GEMM. And ResNet-18 whole against the CPU backend.
TEST_F(OpenClTest, Winograd3x3MatchesTheReference) {
  SessionConfig ref;
  ref.algorithm = AlgorithmPolicy::kReference;
  struct Case {
    Shape x;
    int out_c, stride;
    ir::Padding padding;
    ir::Activation act;
    bool residual;
    Precision precision;
  };
  using A = ir::Activation;
  using P = ir::Padding;
  for (const Case& k : {Case{{1, 9, 11, 3}, 5, 1, P::kSame, A::kRelu, false, Precision::kFp32},
                        Case{{2, 7, 6, 8}, 16, 1, P::kValid, A::kNone, true, Precision::kFp32},
                        Case{{1, 10, 9, 6}, 9, 1, P::kExplicit, A::kRelu6, false, Precision::kFp32},
                        Case{{1, 5, 6, 40}, 70, 1, P::kSame, A::kTanh, true, Precision::kFp32},
                        Case{{1, 1, 1, 4}, 3, 1, P::kSame, A::kNone, false, Precision::kFp32},
                        Case{{2, 13, 12, 7}, 11, 1, P::kSame, A::kRelu, true, Precision::kFp16},
                        Case{{1, 9, 11, 3}, 5, 2, P::kSame, A::kRelu, false, Precision::kFp32}}) {
    OneOp op;
    const int x = op.Input(k.x);
    std::vector<int> inputs = {x, op.RandomConst({k.out_c, 3, 3, k.x[3]}, &rng_), op.RandomConst({k.out_c}, &rng_)};
    ir::OpAttrs a = Window(k.stride, k.padding, k.act);
    int oh = k.padding == P::kValid ? k.x[1] - 2 : (k.x[1] + k.stride - 1) / k.stride;
    int ow = k.padding == P::kValid ? k.x[2] - 2 : (k.x[2] + k.stride - 1) / k.stride;
    if (k.padding == P::kExplicit) {
      a.pad_top = 2;
      a.pad_bottom = 0;
      a.pad_left = 0;
      a.pad_right = 1;
      oh = k.x[1] + 2 - 2;
      ow = k.x[2] + 1 - 2;
    }
    if (k.residual) inputs.push_back(op.Input({k.x[0], oh, ow, k.out_c - 3}));
    const auto model = op.Build(ir::OpType::kConv2D, inputs, a);
    const std::string what = "winograd x " + std::to_string(k.x[1]) + "x" + std::to_string(k.x[2]) + "x" +
                             std::to_string(k.x[3]) + " -> " + std::to_string(k.out_c) + " stride " +
                             std::to_string(k.stride) + (k.precision == Precision::kFp16 ? " fp16" : "");
    auto cpu = Session::Create(model, ref);
    ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.status().ToString();
    SessionConfig config = Config(k.precision);
    config.backend_options["opencl.winograd"] = "1";
    auto cl = Session::Create(model, config);
    ASSERT_TRUE(cl.ok()) << what << ": " << cl.status().ToString();
    const std::multiset<std::string> kernels = KernelsOf(cl->get());
    const std::string f16 = k.precision == Precision::kFp16 ? "_cl_f16" : "_cl";
    EXPECT_EQ(kernels.count("conv2d_winograd" + f16), k.stride == 1 ? 1u : 0u) << what;
    ExpectClose(RunOnce(cl->get(), 6), RunOnce(cpu->get(), 6), k.precision == Precision::kFp16 ? 1e-2 : 1e-4, what);
  }
  const std::string path = testing::ModelPath("resnet18.onnx");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  SessionConfig config = Config();
  config.backend_options["opencl.winograd"] = "1";
  auto cpu = Session::Create(*model);
  auto cl = Session::Create(*model, config);
  ASSERT_TRUE(cpu.ok() && cl.ok()) << cl.status().ToString();
  const std::multiset<std::string> kernels = KernelsOf(cl->get());
  EXPECT_EQ(kernels.count("conv2d_winograd_cl"), 13u);  // the 3x3 convs but the 3 strided ones and the stem
  ExpectClose(RunOnce(cl->get(), 8), RunOnce(cpu->get(), 8), 1e-4, "resnet18 winograd");
  // The default (auto): only the maps of 28x28 and more, layer1's four 56x56
  // convs and layer2's three unstrided 28x28 ones; 0 turns it off; anything
  // else is an error naming the option.
  auto cl_auto = Session::Create(*model, Config());
  ASSERT_TRUE(cl_auto.ok()) << cl_auto.status().ToString();
  EXPECT_EQ(KernelsOf(cl_auto->get()).count("conv2d_winograd_cl"), 7u);
  ExpectClose(RunOnce(cl_auto->get(), 8), RunOnce(cpu->get(), 8), 1e-4, "resnet18 winograd auto");
  config.backend_options["opencl.winograd"] = "0";
  auto cl_off = Session::Create(*model, config);
  ASSERT_TRUE(cl_off.ok()) << cl_off.status().ToString();
  EXPECT_EQ(KernelsOf(cl_off->get()).count("conv2d_winograd_cl"), 0u);
  config.backend_options["opencl.winograd"] = "sometimes";
  auto bad = Session::Create(*model, config);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("opencl.winograd=sometimes"), std::string::npos) << bad.status().ToString();
}

// opencl.flush_every=N (a clFlush after every N-th launch of a lane) gives
// the same results, one lane or two (the multi-task model's heads).
TEST_F(OpenClTest, FlushEveryNthLaunchKeepsTheResults) {
  const auto model = FireModule({2, 7, 6, 5}, 32, 128, 37, ir::Activation::kRelu, &rng_);
  const testing::Outputs want = ReferenceRun(model, 4);
  ASSERT_FALSE(want.empty());
  for (const char* n : {"1", "2", "0"}) {
    SessionConfig config = Config();
    config.backend_options["opencl.flush_every"] = n;
    auto cl = Session::Create(model, config);
    ASSERT_TRUE(cl.ok()) << cl.status().ToString();
    ExpectClose(RunOnce(cl->get(), 4), want, 1e-5, std::string("flush_every ") + n);
    ExpectClose(RunOnce(cl->get(), 4), want, 1e-5, std::string("flush_every ") + n + ", run 2");
  }
  const std::string path = testing::ModelPath("rill_multitask.onnx");
  RILL_SKIP_IF_MISSING(path);
  auto multitask = Model::FromFile(path);
  ASSERT_TRUE(multitask.ok());
  auto cpu_mt = Session::Create(*multitask);
  SessionConfig config = Config();
  config.backend_options["opencl.flush_every"] = "3";
  auto cl_mt = Session::Create(*multitask, config);
  ASSERT_TRUE(cpu_mt.ok() && cl_mt.ok()) << cl_mt.status().ToString();
  ExpectClose(RunOnce(cl_mt->get(), 5), RunOnce(cpu_mt->get(), 5), 1e-4, "multi-task, flush_every 3");
}

// opencl.split_min_k: the least K a GEMM splits over work groups (as on a
// 132-unit GPU): every conv splits that can (1), none does (a K over any
// layer's); the fire module and SqueezeNet give the same results.
TEST_F(OpenClTest, SplitFloorKeepsTheResults) {
  const auto model = FireModule({2, 7, 6, 5}, 32, 128, 37, ir::Activation::kRelu, &rng_);
  const testing::Outputs want = ReferenceRun(model, 4);
  ASSERT_FALSE(want.empty());
  const std::string path = testing::ModelPath("squeezenet1_1.onnx");
  auto squeezenet = Model::FromFile(path);
  auto cpu_sq = squeezenet.ok() ? Session::Create(*squeezenet) : squeezenet.status();
  for (const char* k : {"1", "100000"}) {
    SessionConfig config = Config();
    config.backend_options["opencl.split_min_k"] = k;
    config.backend_options["opencl.compute_units"] = "132";
    auto cl = Session::Create(model, config);
    ASSERT_TRUE(cl.ok()) << cl.status().ToString();
    ExpectClose(RunOnce(cl->get(), 4), want, 1e-5, std::string("fire module, split_min_k ") + k);
    if (!cpu_sq.ok()) continue;
    auto cl_sq = Session::Create(*squeezenet, config);
    ASSERT_TRUE(cl_sq.ok()) << cl_sq.status().ToString();
    ExpectClose(RunOnce(cl_sq->get(), 5), RunOnce(cpu_sq->get(), 5), 1e-4, std::string("squeezenet, split_min_k ") + k);
  }
}

// opencl.gpu_profile=FILE: each command's GPU time per run, written when
// the session ends: the runs, the commands of a run in order (the input's
// write, the conv, the output's read), their means and the kernels' sum.
TEST_F(OpenClTest, GpuProfileListsEachCommandOfARun) {
  OneOp op;
  const int x = op.Input({1, 9, 11, 3});
  const auto model = op.Build(ir::OpType::kConv2D, {x, op.RandomConst({5, 3, 3, 3}, &rng_),
                                                    op.RandomConst({5}, &rng_)},
                              Window(1, ir::Padding::kSame, ir::Activation::kRelu));
  const std::string path = testing::TmpDir() + "/cl_profile.tsv";
  std::remove(path.c_str());
  {
    SessionConfig config = Config();
    config.backend_options["opencl.gpu_profile"] = path;
    auto cl = Session::Create(model, config);
    ASSERT_TRUE(cl.ok()) << cl.status().ToString();
    RunOnce(cl->get(), 1);
    RunOnce(cl->get(), 2);
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0].rfind("# opencl GPU time per command", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("# runs 2 commands per run 3 kernels' sum ", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2], "# step\tmean_us\tshare\tname");
  EXPECT_EQ(lines[3].rfind("0\t", 0), 0u);
  EXPECT_NE(lines[3].find("\tcopy_from_host"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("\tconv2d_tiled_cl conv2d_tiled"), std::string::npos) << lines[4];
  EXPECT_NE(lines[5].find("\tcopy_to_host"), std::string::npos) << lines[5];
  EXPECT_EQ(lines[6].rfind("# total_us\t", 0), 0u) << lines[6];
  double total = 0, sum = 0;
  for (int i = 3; i < 6; ++i) {
    std::istringstream row(lines[i]);
    int step = -1;
    double mean = -1;
    row >> step >> mean;
    EXPECT_EQ(step, i - 3);
    EXPECT_GE(mean, 0.0) << lines[i];
    sum += mean;
  }
  std::sscanf(lines[6].c_str(), "# total_us\t%lf", &total);
  EXPECT_NEAR(total, sum, 0.05);
}

// Whole models, every layer on OpenCL, against the CPU backend.
class OpenClModelTest : public OpenClTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(OpenClModelTest, MatchesCpu) { CheckModelMatchesCpu(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Models, OpenClModelTest,
                         ::testing::Values("face_detection_short_range.tflite", "face_detection_full_range.tflite",
                                           "selfie_segmentation.tflite", "hand_landmark_lite.tflite",
                                           "pose_landmark_lite.tflite", "mobilenet_v2.onnx", "squeezenet1_1.onnx",
                                           "resnet18.onnx",
                                           // Fused PRELUs (optimize::FusePRelu) in convs and depthwise blocks.
                                           "palm_detection_lite.tflite", "face_landmark.tflite"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

// face_landmark_with_attention: everything on OpenCL but MediaPipe's three
// custom ops, which OpenCL has no kernel for and which run on the CPU between
// transfers; the outputs match the CPU backend's.
TEST_F(OpenClTest, MediaPipeCustomOpsFallBackToTheCpu) {
  const std::string path = testing::ModelPath("face_landmark_with_attention.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto cpu = Session::Create(*model);
  auto cl = Session::Create(*model, OpenClConfig());
  ASSERT_TRUE(cpu.ok() && cl.ok()) << cl.status().ToString();
  std::set<std::string> on_cpu, on_cl;
  for (const LayerInfo& l : (*cl)->Layers()) (l.backend == "opencl" ? on_cl : on_cpu).insert(l.op);
  EXPECT_EQ(on_cpu, std::set<std::string>({"LANDMARKS_TO_TRANSFORM_MATRIX", "TRANSFORM_LANDMARKS",
                                           "TRANSFORM_TENSOR_BILINEAR"}));
  EXPECT_TRUE(on_cl.count("PRELU") && on_cl.count("SLICE"));
  const auto want = RunOnce(cpu->get(), 5);
  ExpectClose(RunOnce(cl->get(), 5), want, 1e-4, "face_landmark_with_attention");
}

// A resize re-plans the device arena; batch 2 matches the CPU.
TEST_F(OpenClTest, ResizeReplans) { CheckResizeReplans(); }

// Precision::kFp16: activations and weights stored as halves (rounded to
// nearest even), arithmetic in fp32: within 1e-2 of the outputs' range of
// fp32 on every MediaPipe detector and the CNNs (1e-2: each stored value
// moves by up to 2^-11 relative, compounded over the layers), and not bit
// for bit (the mode is on).
TEST_F(OpenClTest, Fp16Storage) {
  for (const std::string name : {"face_detection_short_range.tflite", "face_detection_full_range.tflite",
                                 "hand_landmark_lite.tflite", "mobilenet_v2.onnx", "squeezenet1_1.onnx"}) {
    const std::string path = testing::ModelPath(name);
    RILL_SKIP_IF_MISSING(path);
    auto model = Model::FromFile(path);
    ASSERT_TRUE(model.ok());
    auto cpu = Session::Create(*model);
    auto cl = Session::Create(*model, OpenClConfig(Precision::kFp16));
    ASSERT_TRUE(cpu.ok() && cl.ok()) << cl.status().ToString();
    for (const std::string& k : (*cl)->KernelNames()) EXPECT_NE(k.find("_cl_f16"), std::string::npos) << k;
    const auto want = RunOnce(cpu->get(), 9);
    const auto got = RunOnce(cl->get(), 9);
    ExpectClose(got, want, 1e-2, name + " fp16");
    EXPECT_NE(got, want) << name << ": fp16 gave the fp32 bits";
  }
}

// Nodes that flow out of one trunk into two heads: the scores head on
// OpenCL while the boxes head runs on the CPU, concurrently or not; a node
// refused by OpenCL (here: none) would fall back.
TEST_F(OpenClTest, TwoHeadsOnOpenClAndCpu) { CheckTwoHeadsOnGpuAndCpu(); }

// A multi-task model exported by PyTorch (tests/inference/
// export_torchvision_onnx.py: MobileNetV2 backbone, a classification head,
// a dense head): the dense head on OpenCL, the rest on the CPU, on two
// streams that run at once. Outputs match the CPU-only run; the trace puts
// each head's tasks on its backend's stream; so does a sequential run.
TEST_F(OpenClTest, MultiTaskHeadsOnTwoBackends) { CheckMultiTaskHeadsOnTwoBackends(); }

// Placement by callback over op subsets (backends_test's fallback subsets,
// the backend as the device): the face detector at 1 thread concurrently
// and at 2 in sequence.
TEST_F(OpenClTest, PlacementCallbackOverOpSubsets) { CheckPlacementCallbackOverOpSubsets("face_detection_short_range.tflite"); }

// Both heads of the multi-task model and its trunk on OpenCL: with
// branch_streams each head runs on a command queue (lane) and a stream
// thread of its own, the trunk on a third; the heads read the trunk's output
// across lanes (SyncLane). Outputs match the CPU in fp32 and fp16, run after
// run; without branch_streams every OpenCL task shares one stream.
TEST_F(OpenClTest, BranchesOnOneGpuRunOnLanesOfTheirOwn) {
  const std::string path = testing::ModelPath("rill_multitask.onnx");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ir::Graph& g = (*model)->graph();
  const std::vector<bool> classes_head = g.HeadOf(0), mask_head = g.HeadOf(1);
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 17);
  for (const bool branches : {true, false}) {
    for (const Precision precision : {Precision::kFp32, Precision::kFp16}) {
      const std::string what = std::string(branches ? "branch streams" : "one stream") +
                               (precision == Precision::kFp16 ? ", fp16" : ", fp32");
      SessionConfig config = OpenClConfig();
      config.branch_streams = branches;
      config.precision = precision;
      auto session = Session::Create(*model, config);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      (*session)->set_tracing(true);
      for (int run = 0; run < 3; ++run) {
        ExpectClose(RunOnce(session->get(), 17), want, precision == Precision::kFp16 ? 1e-2 : 1e-4,
                    what + ", run " + std::to_string(run));
      }
      std::set<int> classes_streams, mask_streams, trunk_streams;
      for (const TaskSpan& span : (*session)->LastRunTrace()) {
        if (span.backend != "opencl") continue;
        int node = -1;
        for (size_t n = 0; n < g.nodes.size(); ++n) {
          if (g.nodes[n].name == span.name) node = static_cast<int>(n);
        }
        if (node < 0) continue;  // a transfer
        (classes_head[node] ? classes_streams : mask_head[node] ? mask_streams : trunk_streams).insert(span.stream);
      }
      ASSERT_EQ(classes_streams.size(), 1u) << what;
      ASSERT_EQ(mask_streams.size(), 1u) << what;
      ASSERT_EQ(trunk_streams.size(), 1u) << what;
      if (branches) {
        EXPECT_NE(*classes_streams.begin(), *mask_streams.begin()) << what;
        EXPECT_NE(*classes_streams.begin(), *trunk_streams.begin()) << what;
        EXPECT_NE(*mask_streams.begin(), *trunk_streams.begin()) << what;
      } else {
        EXPECT_EQ(*classes_streams.begin(), *mask_streams.begin()) << what;
        EXPECT_EQ(*classes_streams.begin(), *trunk_streams.begin()) << what;
      }
    }
  }
  // One queue: the branches share it, and the outputs are the same.
  SessionConfig one_queue = OpenClConfig();
  one_queue.backend_options["opencl.queues"] = "1";
  auto session = Session::Create(*model, one_queue);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ExpectClose(RunOnce(session->get(), 17), want, 1e-4, "one queue");
  one_queue.backend_options["opencl.queues"] = "99";
  auto bad = Session::Create(*model, one_queue);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("queues=99"), std::string::npos) << bad.status().ToString();
}

// kTune on OpenCL measures each launch's work-group size (the driver's and
// sizes dividing the global size) once the memory is bound, keeps the
// choices in the tuning cache file like the CPU's algorithm choices, and a
// later session applies them without measuring. Outputs are the CPU's.
TEST_F(OpenClTest, WorkGroupSizesAreTunedAndCached) {
  const std::string path = testing::ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 19);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string cache = std::string(tmp ? tmp : "/tmp") + "/cl_tune.txt";
  std::remove(cache.c_str());
  SessionConfig config = OpenClConfig();
  config.algorithm = AlgorithmPolicy::kTune;
  config.tuning_cache = cache;
  auto read_cache = [&] {
    std::ifstream in(cache);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  {
    auto tuned = Session::Create(*model, config);
    ASSERT_TRUE(tuned.ok()) << tuned.status().ToString();
    ExpectClose(RunOnce(tuned->get(), 19), want, 1e-4, "tuned");
  }
  const std::string first = read_cache();
  int entries = 0;
  for (size_t at = first.find("opencl_local|"); at != std::string::npos; at = first.find("opencl_local|", at + 1)) {
    ++entries;
  }
  EXPECT_GT(entries, 5) << first;
  EXPECT_NE(first.find("|f32|"), std::string::npos) << first;
  {
    // Everything known: nothing measured, nothing written.
    auto again = Session::Create(*model, config);
    ASSERT_TRUE(again.ok());
    ExpectClose(RunOnce(again->get(), 19), want, 1e-4, "from the cache");
  }
  EXPECT_EQ(read_cache(), first);
  // The cache is applied: a size that cannot divide the launch makes the
  // run fail, naming the node's kernel.
  std::string broken;
  {
    std::istringstream lines(first);
    std::string key, choice;
    bool done = false;
    while (lines >> key >> choice) {
      if (!done && key.rfind("opencl_local|", 0) == 0) choice = "999983x1x1", done = true;
      broken += key + " " + choice + "\n";
    }
  }
  std::ofstream(cache, std::ios::trunc) << broken;
  auto bad = Session::Create(*model, config);
  if (bad.ok()) {
    const Status run = (*bad)->Run();
    EXPECT_FALSE(run.ok());
    EXPECT_NE(run.message().find("clEnqueueNDRangeKernel"), std::string::npos) << run.ToString();
  } else {
    EXPECT_NE(bad.status().message().find("clEnqueueNDRangeKernel"), std::string::npos) << bad.status().ToString();
  }
}

}  // namespace
}  // namespace rill::inference
