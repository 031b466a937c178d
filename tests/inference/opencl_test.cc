// The OpenCL backend against the CPU: every op it runs against the
// reference kernels on odd shapes (one-op graphs), the MediaPipe models and
// the ONNX CNNs whole (every layer on OpenCL), a resize, fp16 storage, and
// heterogeneous runs (one head of a two-headed model on OpenCL while the
// other runs on the CPU). In CI this runs on PoCL (scripts/setup.sh installs
// it): a machine without an OpenCL device fails these tests under CI=true
// and skips them loudly elsewhere.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <fstream>
#include <sstream>
#include <iterator>
#include <cstdio>
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

SessionConfig OpenClConfig(Precision precision = Precision::kFp32) {
  SessionConfig config;
  config.backend = "opencl";
  config.precision = precision;
  // A cache of built programs per test run (the second model loads it).
  if (const char* tmp = std::getenv("TEST_TMPDIR")) config.backend_options["opencl.cache_dir"] = std::string(tmp) + "/cl";
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

class OpenClTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OneOp probe;
    auto model = probe.Build(ir::OpType::kRelu, {probe.Input({1, 2, 2, 3})});
    auto session = Session::Create(model, OpenClConfig());
    RILL_REQUIRE(session.ok(), "no OpenCL device (PoCL: scripts/setup.sh): " << session.status().ToString());
  }

  // The op on OpenCL against the CPU's reference kernels; every layer must
  // run on OpenCL.
  // Also as on a GPU with 132 compute units, where small convs split K.
  void CheckOp(const std::shared_ptr<const Model>& model, const std::string& what, double tolerance = 1e-5) {
    SessionConfig ref;
    ref.algorithm = AlgorithmPolicy::kReference;
    auto cpu = Session::Create(model, ref);
    ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.status().ToString();
    const auto want = RunOnce(cpu->get(), 7);
    for (const char* units : {"", "132"}) {
      SessionConfig config = OpenClConfig();
      if (*units) config.backend_options["opencl.compute_units"] = units;
      auto cl = Session::Create(model, config);
      ASSERT_TRUE(cl.ok()) << what << ": " << cl.status().ToString();
      for (const LayerInfo& l : (*cl)->Layers()) EXPECT_EQ(l.backend, "opencl") << what << ": " << l.kernel;
      ExpectClose(RunOnce(cl->get(), 7), want, tolerance, what + (*units ? " (split K)" : ""));
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

TEST_F(OpenClTest, Convolutions) {
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

TEST_F(OpenClTest, DepthwiseAndTransposedConvolutions) {
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

TEST_F(OpenClTest, FullyConnectedAndDepthwiseBlock) {
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

TEST_F(OpenClTest, ElementwiseWithBroadcast) {
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

TEST_F(OpenClTest, PoolsMeanSoftmax) {
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
    OneOp op;
    ir::OpAttrs a;
    a.axis = 1;
    CheckOp(op.Build(ir::OpType::kSoftmax, {op.Input({2, 9, 3})}, a), "softmax axis 1");
  }
}

TEST_F(OpenClTest, DataMovement) {
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

TEST_F(OpenClTest, Resize) {
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

// Whole models, every layer on OpenCL, against the CPU backend.
class OpenClModelTest : public OpenClTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(OpenClModelTest, MatchesCpu) {
  const std::string path = testing::ModelPath(GetParam());
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  SessionConfig config = OpenClConfig();
  config.backend_options["opencl.compute_units"] = "132";  // as on an H100/H200: the small convs split K
  auto cl = Session::Create(*model, config);
  ASSERT_TRUE(cl.ok()) << cl.status().ToString();
  std::set<std::string> fell_back;
  for (const LayerInfo& l : (*cl)->Layers()) {
    if (l.backend != "opencl") fell_back.insert(l.op);
  }
  EXPECT_TRUE(fell_back.empty()) << "ops that fell back to the CPU: " << *fell_back.begin();
  if (GetParam() == "squeezenet1_1.onnx") {
    // Its fire modules' concatenations cost nothing: the convs write their
    // channel slices (StridedOutput), fp32 and fp16.
    int in_place = 0;
    for (const LayerInfo& l : (*cl)->Layers()) in_place += l.kernel == "concatenation_in_place";
    EXPECT_EQ(in_place, 8);
  }
  // Pose models amplify any change of summation order in their heatmaps
  // (mediapipe_models_test measures it): 1e-3 there, 1e-4 elsewhere.
  const double tolerance = GetParam().find("pose") != std::string::npos ? 1e-3 : 1e-4;
  const auto want = RunOnce(cpu->get(), 3);
  ExpectClose(RunOnce(cl->get(), 3), want, tolerance, GetParam());
  ExpectClose(RunOnce(cl->get(), 3), want, tolerance, GetParam() + " (second run)");
}

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
TEST_F(OpenClTest, ResizeReplans) {
  const std::string path = testing::ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  auto cpu = Session::Create(*model);
  auto cl = Session::Create(*model, OpenClConfig());
  ASSERT_TRUE(cpu.ok() && cl.ok());
  for (auto* s : {cpu->get(), cl->get()}) ASSERT_TRUE(s->Resize({{s->input(0)->name(), {2, 128, 128, 3}}}).ok());
  ExpectClose(RunOnce(cl->get(), 5), RunOnce(cpu->get(), 5), 1e-4, "batch 2");
}

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
TEST_F(OpenClTest, TwoHeadsOnOpenClAndCpu) {
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
    SessionConfig config = OpenClConfig();
    config.backend = kCpuBackend;
    for (const std::string& n : head) config.node_backends[n] = "opencl";
    config.concurrent_backends = concurrent;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    int on_cl = 0;
    for (const LayerInfo& l : (*session)->Layers()) on_cl += l.backend == "opencl";
    EXPECT_EQ(on_cl, static_cast<int>(head.size()));
    for (int run = 0; run < 3; ++run) {
      ExpectClose(RunOnce(session->get(), 11), want, 1e-4, std::string("two heads, run ") + std::to_string(run) + (concurrent ? " concurrent" : " sequential"));
    }
  }
}

// A multi-task model exported by PyTorch (tests/inference/
// export_torchvision_onnx.py: MobileNetV2 backbone, a classification head,
// a dense head): the dense head on OpenCL, the rest on the CPU, on two
// streams that run at once. Outputs match the CPU-only run; the trace puts
// each head's tasks on its backend's stream; so does a sequential run.
TEST_F(OpenClTest, MultiTaskHeadsOnTwoBackends) {
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
    SessionConfig config = OpenClConfig();
    config.backend = kCpuBackend;
    config.concurrent_backends = concurrent;
    std::set<std::string> on_cl, on_cpu;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (mask_head[n]) config.node_backends[g.nodes[n].name] = "opencl", on_cl.insert(g.nodes[n].name);
      if (classes_head[n]) on_cpu.insert(g.nodes[n].name);
    }
    ASSERT_GT(on_cl.size(), 3u);
    ASSERT_GT(on_cpu.size(), 3u);
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    (*session)->set_tracing(true);
    ExpectClose(RunOnce(session->get(), 13), want, 1e-4, concurrent ? "concurrent" : "sequential");
    int cl_tasks = 0, cpu_tasks = 0;
    for (const TaskSpan& s : (*session)->LastRunTrace()) {
      EXPECT_LE(s.start_us, s.end_us) << s.name;
      if (on_cl.count(s.name)) {
        EXPECT_EQ(s.backend, "opencl") << s.name;
        EXPECT_EQ(s.stream, concurrent ? 1 : 0) << s.name;
        ++cl_tasks;
      }
      if (on_cpu.count(s.name)) {
        EXPECT_EQ(s.backend, "cpu") << s.name;
        EXPECT_EQ(s.stream, 0) << s.name;
        ++cpu_tasks;
      }
    }
    EXPECT_EQ(cl_tasks, static_cast<int>(on_cl.size()));
    EXPECT_GT(cpu_tasks, 0);
    EXPECT_NE((*session)->LastRunTraceJson().find("\"tid\":"), std::string::npos);
  }
}

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
