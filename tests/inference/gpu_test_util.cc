// The GPU backends' shared test helpers and cases (gpu_test_util.h).
#include "tests/inference/gpu_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>

namespace rill::inference::testing {

std::string TmpDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp ? tmp : "/tmp";
}

int OneOp::Input(const Shape& shape) {
  const int id = Tensor(shape);
  g_->inputs.push_back(id);
  return id;
}

int OneOp::Const(const Shape& shape, std::vector<float> values) {
  const int id = Tensor(shape);
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  g_->SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
  return id;
}

int OneOp::ConstInts(const std::vector<int>& values) {
  const int id = Tensor({static_cast<int>(values.size())});
  std::vector<uint8_t> bytes(values.size() * sizeof(int));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  g_->SetConstant(id, DataType::kInt32, {static_cast<int>(values.size())}, std::move(bytes));
  return id;
}

int OneOp::RandomConst(const Shape& shape, std::mt19937* rng) {
  return Const(shape, RandomFloats(NumElements(shape), rng));
}

int OneOp::Node(ir::OpType type, std::vector<int> inputs, const ir::OpAttrs& attrs) {
  ir::Node node;
  node.name = std::string(ir::OpTypeName(type)) + "_" + std::to_string(g_->nodes.size());
  node.type = type;
  node.inputs = std::move(inputs);
  node.outputs = {Tensor({})};
  node.attrs = attrs;
  g_->nodes.push_back(node);
  return node.outputs[0];
}

std::shared_ptr<const Model> OneOp::Build(ir::OpType type, std::vector<int> inputs, const ir::OpAttrs& attrs,
                                          const std::vector<int>& outputs) {
  ir::Node node;
  node.name = std::string(ir::OpTypeName(type)) + "_under_test";
  node.type = type;
  node.inputs = std::move(inputs);
  node.outputs = {Tensor({})};
  node.attrs = attrs;
  g_->nodes.push_back(node);
  g_->outputs = node.outputs;
  g_->outputs.insert(g_->outputs.end(), outputs.begin(), outputs.end());
  g_->source = node.name;
  return std::make_shared<Model>(g_);
}

int OneOp::Tensor(const Shape& shape) {
  ir::TensorInfo t;
  t.name = "t" + std::to_string(g_->tensors.size());
  t.shape = shape;
  g_->tensors.push_back(t);
  return static_cast<int>(g_->tensors.size()) - 1;
}

Outputs RunOnce(Session* s, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int i = 0; i < s->num_inputs(); ++i) {
    inference::Tensor* t = s->input(i);
    const std::vector<float> v = RandomFloats(t->num_elements(), &rng, -2.0f, 2.0f);
    std::copy(v.begin(), v.end(), t->data_as<float>());
  }
  const Status status = s->Run();
  EXPECT_TRUE(status.ok()) << status.ToString();
  Outputs outs;
  for (int i = 0; i < s->num_outputs(); ++i) {
    const inference::Tensor* t = s->output(i);
    outs.emplace_back(t->data_as<float>(), t->data_as<float>() + t->num_elements());
  }
  return outs;
}

void ExpectClose(const Outputs& got, const Outputs& want, double tolerance, const std::string& what) {
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

double WorstRelativeError(const Outputs& got, const Outputs& want) {
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

ir::OpAttrs Window(int stride, ir::Padding padding, ir::Activation act, int dilation) {
  ir::OpAttrs a;
  a.stride_h = a.stride_w = stride;
  a.dilation_h = a.dilation_w = dilation;
  a.padding = padding;
  a.activation = act;
  return a;
}

void GpuBackendTest::SetUp() {
  OneOp probe;
  auto model = probe.Build(ir::OpType::kRelu, {probe.Input({1, 2, 2, 3})});
  auto session = Session::Create(model, Config());
  RILL_REQUIRE(session.ok(), gpu_.missing << ": " << session.status().ToString());
}

void GpuBackendTest::CheckOp(const std::shared_ptr<const Model>& model, const std::string& what, double tolerance) {
  SessionConfig ref;
  ref.algorithm = AlgorithmPolicy::kReference;
  auto cpu = Session::Create(model, ref);
  ASSERT_TRUE(cpu.ok()) << what << ": " << cpu.status().ToString();
  const auto want = RunOnce(cpu->get(), 7);
  for (const GpuBackendUnderTest::Variant& v : gpu_.op_variants) {
    SessionConfig config = Config();
    for (const auto& [key, value] : v.options) config.backend_options[key] = value;
    auto gpu = Session::Create(model, config);
    ASSERT_TRUE(gpu.ok()) << what << ": " << gpu.status().ToString();
    for (const LayerInfo& l : (*gpu)->Layers()) EXPECT_EQ(l.backend, gpu_.name) << what << ": " << l.kernel;
    ExpectClose(RunOnce(gpu->get(), 7), want, tolerance, what + v.label);
  }
}

void GpuBackendTest::CheckConvolutions() {
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

void GpuBackendTest::CheckDepthwiseAndTransposedConvolutions() {
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

void GpuBackendTest::CheckFullyConnectedAndDepthwiseBlock() {
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

void GpuBackendTest::CheckElementwiseWithBroadcast() {
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

void GpuBackendTest::CheckPoolsMeanSoftmax() {
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
  {  // many elements per output (OpenCL: a work group per output), an odd count
    OneOp op;
    const int x = op.Input({2, 13, 11, 9});
    ir::OpAttrs a;
    a.keep_dims = true;
    CheckOp(op.Build(ir::OpType::kMean, {x, op.ConstInts({1, 2})}, a), "global average pool 13x11");
  }
  {  // the same over the innermost axis
    OneOp op;
    const int x = op.Input({1, 3, 2, 130});
    ir::OpAttrs a;
    a.keep_dims = false;
    CheckOp(op.Build(ir::OpType::kMean, {x, op.ConstInts({3})}, a), "mean over 130 channels");
  }
  {
    OneOp op;
    ir::OpAttrs a;
    a.axis = 1;
    CheckOp(op.Build(ir::OpType::kSoftmax, {op.Input({2, 9, 3})}, a), "softmax axis 1");
  }
}

void GpuBackendTest::CheckDataMovement() {
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

void GpuBackendTest::CheckResize() {
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

void GpuBackendTest::CheckResizeReplans() {
  const std::string path = ModelPath("face_detection_short_range.tflite");
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok());
  auto cpu = Session::Create(*model);
  auto gpu = Session::Create(*model, Config());
  ASSERT_TRUE(cpu.ok() && gpu.ok());
  for (auto* s : {cpu->get(), gpu->get()}) ASSERT_TRUE(s->Resize({{s->input(0)->name(), {2, 128, 128, 3}}}).ok());
  ExpectClose(RunOnce(gpu->get(), 5), RunOnce(cpu->get(), 5), 1e-4, "batch 2");
}

void GpuBackendTest::CheckTwoHeadsOnGpuAndCpu() {
  const std::string path = ModelPath("face_detection_short_range.tflite");
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
    SessionConfig config = Config();
    config.backend = kCpuBackend;
    for (const std::string& n : head) config.node_backends[n] = backend();
    config.concurrent_backends = concurrent;
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    int on_gpu = 0;
    for (const LayerInfo& l : (*session)->Layers()) on_gpu += l.backend == backend();
    EXPECT_EQ(on_gpu, static_cast<int>(head.size()));
    for (int run = 0; run < 3; ++run) {
      ExpectClose(RunOnce(session->get(), 11), want, 1e-4, std::string("two heads, run ") + std::to_string(run) + (concurrent ? " concurrent" : " sequential"));
    }
  }
}

void GpuBackendTest::CheckMultiTaskHeadsOnTwoBackends() {
  const std::string path = ModelPath("rill_multitask.onnx");
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
    SessionConfig config = Config();
    config.backend = kCpuBackend;
    config.concurrent_backends = concurrent;
    std::set<std::string> on_gpu, on_cpu;
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (mask_head[n]) config.node_backends[g.nodes[n].name] = backend(), on_gpu.insert(g.nodes[n].name);
      if (classes_head[n]) on_cpu.insert(g.nodes[n].name);
    }
    ASSERT_GT(on_gpu.size(), 3u);
    ASSERT_GT(on_cpu.size(), 3u);
    auto session = Session::Create(*model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    (*session)->set_tracing(true);
    ExpectClose(RunOnce(session->get(), 13), want, 1e-4, concurrent ? "concurrent" : "sequential");
    int gpu_tasks = 0, cpu_tasks = 0;
    for (const TaskSpan& s : (*session)->LastRunTrace()) {
      EXPECT_LE(s.start_us, s.end_us) << s.name;
      if (on_gpu.count(s.name)) {
        EXPECT_EQ(s.backend, backend()) << s.name;
        EXPECT_EQ(s.stream, concurrent ? 1 : 0) << s.name;
        ++gpu_tasks;
      }
      if (on_cpu.count(s.name)) {
        EXPECT_EQ(s.backend, "cpu") << s.name;
        EXPECT_EQ(s.stream, 0) << s.name;
        ++cpu_tasks;
      }
    }
    EXPECT_EQ(gpu_tasks, static_cast<int>(on_gpu.size()));
    EXPECT_GT(cpu_tasks, 0);
    EXPECT_NE((*session)->LastRunTraceJson().find("\"tid\":"), std::string::npos);
  }
}

void GpuBackendTest::CheckPlacementCallbackOverOpSubsets(const std::string& name) {
  const std::string path = ModelPath(name);
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  const auto want = RunOnce(cpu->get(), 17);
  const std::vector<std::set<std::string>> subsets = {
      {"CONV_2D", "DEPTHWISE_CONV_2D"}, {"DEPTHWISE_CONV_2D", "ADD"}, {}};  // {}: every node
  // Each subset at 1 thread concurrent and at 2 threads in sequence (PoCL
  // and lavapipe are slow: the four pairs took twice as long for no new path).
  for (const std::set<std::string>& ops : subsets) {
    for (int threads : {1, 2}) {
      {
        const bool concurrent = threads == 1;
        const std::string what = name + " on " + backend() + ": " + (ops.empty() ? "every op" : *ops.begin() + "+") +
                                 ", " + std::to_string(threads) + " threads" + (concurrent ? ", concurrent" : "");
        SessionConfig config = Config();
        config.backend = kCpuBackend;
        config.num_threads = threads;
        config.concurrent_backends = concurrent;
        const std::string gpu = backend();
        int placed = 0;
        config.placement = [&](const NodeRef& node) {
          const bool on_gpu = ops.empty() || ops.count(node.op) > 0;
          placed += on_gpu;
          return on_gpu ? gpu : std::string(kCpuBackend);
        };
        auto session = Session::Create(*model, config);
        ASSERT_TRUE(session.ok()) << what << ": " << session.status().ToString();
        EXPECT_GT(placed, 0) << what;
        int on_gpu = 0, on_cpu = 0;
        for (const LayerInfo& l : (*session)->Layers()) {
          const bool want_gpu = ops.empty() || ops.count(l.op) > 0;
          EXPECT_EQ(l.backend, want_gpu ? gpu : std::string(kCpuBackend)) << what << ": " << l.name << " " << l.op;
          (l.backend == gpu ? on_gpu : on_cpu) += 1;
        }
        EXPECT_GT(on_gpu, 0) << what;
        if (!ops.empty()) {
          EXPECT_GT(on_cpu, 0) << what << ": nothing stayed on the CPU";
        }
        for (int run = 0; run < 2; ++run) {
          ExpectClose(RunOnce(session->get(), 17), want, 1e-4, what + ", run " + std::to_string(run));
        }
      }
    }
  }
}

void GpuBackendTest::CheckModelMatchesCpu(const std::string& name) {
  const std::string path = ModelPath(name);
  RILL_SKIP_IF_MISSING(path);
  auto model = Model::FromFile(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto cpu = Session::Create(*model);
  ASSERT_TRUE(cpu.ok());
  SessionConfig config = Config();
  config.backend_options[backend() + ".compute_units"] = "132";  // as on an H100/H200: the small convs split K
  auto gpu = Session::Create(*model, config);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  std::set<std::string> fell_back;
  for (const LayerInfo& l : (*gpu)->Layers()) {
    if (l.backend != backend()) fell_back.insert(l.op);
  }
  EXPECT_TRUE(fell_back.empty()) << "ops that fell back to the CPU: " << *fell_back.begin();
  if (name == "squeezenet1_1.onnx") {
    // Its fire modules' concatenations cost nothing: the convs write their
    // channel slices (StridedOutput), fp32 and fp16.
    int in_place = 0;
    for (const LayerInfo& l : (*gpu)->Layers()) in_place += l.kernel == "concatenation_in_place";
    EXPECT_EQ(in_place, 8);
  }
  // Pose models amplify any change of summation order in their heatmaps
  // (mediapipe_models_test measures it): 1e-3 there, 1e-4 elsewhere.
  const double tolerance = name.find("pose") != std::string::npos ? 1e-3 : 1e-4;
  const auto want = RunOnce(cpu->get(), 3);
  ExpectClose(RunOnce(gpu->get(), 3), want, tolerance, name);
  ExpectClose(RunOnce(gpu->get(), 3), want, tolerance, name + " (second run)");
}

}  // namespace rill::inference::testing
