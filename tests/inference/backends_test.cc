// Heterogeneous runs on real models: nodes a backend cannot run fall back to
// the CPU with copies at the boundaries, nodes placed on another backend (the
// cpu_device backend: memory of its own, its own stream), concurrent heads.
// Every variant must give outputs bit-identical to a CPU-only run.
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inference/backend/backend.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/inference/cpu_device_backend.h"
#include "tests/inference/test_util.h"

namespace rill::inference {
namespace {

// Fills every float input with a deterministic pattern, runs, returns outputs.
std::vector<std::vector<float>> RunOnce(Session* session) {
  for (int i = 0; i < session->num_inputs(); ++i) {
    Tensor* t = session->input(i);
    for (int64_t k = 0; k < t->num_elements(); ++k) t->data_as<float>()[k] = static_cast<float>((k * 37 + i) % 251) / 251.0f - 0.5f;
  }
  Status s = session->Run();
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::vector<float>> outs;
  for (int i = 0; i < session->num_outputs(); ++i) {
    const Tensor* t = session->output(i);
    outs.emplace_back(t->data_as<float>(), t->data_as<float>() + t->num_elements());
  }
  return outs;
}

void ExpectBitIdentical(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    EXPECT_EQ(std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)), 0) << "output " << i << " differs";
  }
}

std::set<std::string> Backends(const Session& session) {
  std::set<std::string> names;
  for (const LayerInfo& l : session.Layers()) names.insert(l.backend);
  return names;
}

std::shared_ptr<const Model> Load(const std::string& name) {
  auto model = Model::FromFile(testing::ModelPath(name));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

class FallbackTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FallbackTest, DeviceWithFallbackMatchesCpu) {
  RILL_SKIP_IF_MISSING(testing::ModelPath(GetParam()));
  auto model = Load(GetParam());
  ASSERT_TRUE(model);
  auto cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  const auto expected = RunOnce(cpu->get());
  for (int threads : {1, 2}) {
    for (bool concurrent : {true, false}) {
      for (const std::vector<std::string>& ops : std::vector<std::vector<std::string>>{
               {"CONV_2D", "DEPTHWISE_CONV_2D"},  // the rest falls back: copies at every boundary
               {"DEPTHWISE_CONV_2D", "ADD"},      // islands on the device (residual ADDs are fused into convs)
               {}}) {                             // everything on the device: copies at inputs/outputs
        SessionConfig config;
        testing::UseCpuDevice(&config, ops);
        config.concurrent_backends = concurrent;
        config.num_threads = threads;
        auto session = Session::Create(model, config);
        ASSERT_TRUE(session.ok()) << session.status().ToString();
        const std::set<std::string> used = Backends(**session);
        EXPECT_TRUE(used.count("cpu_device")) << "nothing ran on the device";
        if (!ops.empty()) {
          EXPECT_TRUE(used.count("cpu")) << "nothing fell back";
        }
        for (int run = 0; run < 3; ++run) ExpectBitIdentical(RunOnce(session->get()), expected);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, FallbackTest,
                         ::testing::Values("face_detection_short_range.tflite", "mobilenet_v2.onnx"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

// Nodes that a graph output depends on.
std::vector<bool> AncestorsOf(const ir::Graph& g, int output) {
  std::vector<bool> needed_tensor(g.tensors.size(), false), needed_node(g.nodes.size(), false);
  needed_tensor[output] = true;
  for (int n = static_cast<int>(g.nodes.size()) - 1; n >= 0; --n) {
    bool needed = false;
    for (int id : g.nodes[n].outputs) needed |= needed_tensor[id];
    if (!needed) continue;
    needed_node[n] = true;
    for (int id : g.nodes[n].inputs) {
      if (id >= 0) needed_tensor[id] = true;
    }
  }
  return needed_node;
}

// face_detection_short_range has two heads (box regressors, class scores)
// over one backbone: the scores head runs on the device, concurrently with
// the regressors head on the CPU.
TEST(PlacementTest, TwoHeadsOnTwoBackends) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  const ir::Graph& g = model->graph();
  ASSERT_EQ(g.outputs.size(), 2u);
  const std::vector<bool> head0 = AncestorsOf(g, g.outputs[0]);
  const std::vector<bool> head1 = AncestorsOf(g, g.outputs[1]);
  std::set<std::string> device_nodes;
  int cpu_only = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (head1[n] && !head0[n]) device_nodes.insert(g.nodes[n].name);
    if (head0[n] && !head1[n]) ++cpu_only;
  }
  ASSERT_GT(device_nodes.size(), 0u);
  ASSERT_GT(cpu_only, 0);

  auto cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok());
  const auto expected = RunOnce(cpu->get());
  for (bool by_callback : {false, true}) {
    SessionConfig config;
    if (by_callback) {
      config.placement = [&](const NodeRef& node) {
        return std::string(device_nodes.count(node.name) ? testing::kCpuDevice : kCpuBackend);
      };
    } else {
      for (const std::string& n : device_nodes) config.node_backends[n] = testing::kCpuDevice;
    }
    auto session = Session::Create(model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    int on_device = 0;
    for (const LayerInfo& l : (*session)->Layers()) {
      EXPECT_EQ(l.backend, device_nodes.count(l.name) ? "cpu_device" : "cpu") << l.name;
      on_device += l.backend == "cpu_device";
    }
    EXPECT_EQ(on_device, static_cast<int>(device_nodes.size()));
    for (int run = 0; run < 20; ++run) ExpectBitIdentical(RunOnce(session->get()), expected);
    // Resize re-plans both arenas.
    ASSERT_TRUE((*session)->Resize({{(*session)->input(0)->name(), {2, 128, 128, 3}}}).ok());
    ASSERT_TRUE((*cpu)->Resize({{(*cpu)->input(0)->name(), {2, 128, 128, 3}}}).ok());
    ExpectBitIdentical(RunOnce(session->get()), RunOnce(cpu->get()));
    ASSERT_TRUE((*cpu)->Resize({{(*cpu)->input(0)->name(), {1, 128, 128, 3}}}).ok());
  }
}

TEST(PlacementTest, ProfiledRunMatches) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  auto cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok());
  const auto expected = RunOnce(cpu->get());
  SessionConfig config;
  testing::UseCpuDevice(&config, {"CONV_2D"});
  auto session = Session::Create(model, config);
  ASSERT_TRUE(session.ok());
  RunOnce(session->get());
  std::vector<double> ms;
  ASSERT_TRUE((*session)->RunProfiled(&ms).ok());
  EXPECT_EQ(ms.size(), (*session)->Layers().size());
  for (int i = 0; i < (*session)->num_outputs(); ++i) {
    const Tensor* t = (*session)->output(i);
    EXPECT_EQ(std::memcmp(t->data(), expected[i].data(), expected[i].size() * sizeof(float)), 0);
  }
}

// The seam's contract with a device backend.

// A backend that is not built in is an error naming it and those that are.
TEST(BackendSeamTest, UnknownBackendIsAClearError) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  SessionConfig config;
  config.backend = "no_such_gpu";
  auto session = Session::Create(model, config);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kNotFound);
  EXPECT_NE(session.status().message().find("no_such_gpu"), std::string::npos) << session.status().ToString();
  EXPECT_NE(session.status().message().find("cpu_device"), std::string::npos) << session.status().ToString();
  const std::vector<std::string> names = RegisteredBackends();
  EXPECT_TRUE(std::count(names.begin(), names.end(), "cpu")) << "the CPU backend registers itself";
}

// An execution that refuses its node in Prepare (a shape or attribute the
// device cannot run, found only once shapes are known) sends the node to the
// CPU, as a refusal in CreateExecution does; so does a resize.
TEST(BackendSeamTest, PrepareRefusalFallsBackToCpu) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  auto cpu = Session::Create(model);
  ASSERT_TRUE(cpu.ok());
  const auto expected = RunOnce(cpu->get());
  SessionConfig config;
  testing::UseCpuDevice(&config, {});
  config.backend_options["cpu_device.refuse_in_prepare"] = "DEPTHWISE_CONV_2D";
  auto session = Session::Create(model, config);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  int on_cpu = 0, on_device = 0;
  for (const LayerInfo& l : (*session)->Layers()) {
    if (l.op == "DEPTHWISE_CONV_2D") {
      EXPECT_EQ(l.backend, "cpu") << l.name;
      ++on_cpu;
    } else {
      EXPECT_EQ(l.backend, "cpu_device") << l.name;
      ++on_device;
    }
  }
  EXPECT_GT(on_cpu, 0);
  EXPECT_GT(on_device, 0);
  ExpectBitIdentical(RunOnce(session->get()), expected);
  ASSERT_TRUE((*session)->Resize({{(*session)->input(0)->name(), {2, 128, 128, 3}}}).ok());
  ASSERT_TRUE((*cpu)->Resize({{(*cpu)->input(0)->name(), {2, 128, 128, 3}}}).ok());
  ExpectBitIdentical(RunOnce(session->get()), RunOnce(cpu->get()));
}

// BeginResize/EndResize run once per plan, BeginRun/EndRun once per run on
// the backend's stream, whether or not the backends run concurrently.
TEST(BackendSeamTest, HooksRunOncePerPlanAndRun) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  for (bool concurrent : {true, false}) {
    SessionConfig config;
    testing::UseCpuDevice(&config, {"CONV_2D"});
    config.concurrent_backends = concurrent;
    const testing::CpuDeviceHookCounts before = testing::CpuDeviceHooks();
    auto session = Session::Create(model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    for (int run = 0; run < 5; ++run) RunOnce(session->get());
    ASSERT_TRUE((*session)->Resize({{(*session)->input(0)->name(), {1, 128, 128, 3}}}).ok());
    const testing::CpuDeviceHookCounts after = testing::CpuDeviceHooks();
    EXPECT_EQ(after.begin_resize - before.begin_resize, 2);
    EXPECT_EQ(after.end_resize - before.end_resize, 2);
    EXPECT_EQ(after.begin_run - before.begin_run, 5);
    EXPECT_EQ(after.end_run - before.end_run, 5);
  }
}

// Backends that compute on the host share SessionConfig::num_threads when
// they run concurrently (no oversubscription) and each get all of them when
// they run one after another.
TEST(BackendSeamTest, HostThreadsAreShared) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  struct Case {
    int threads;
    bool concurrent;
    int device_threads;
  };
  for (const Case& c : {Case{4, true, 2}, Case{3, true, 1}, Case{2, false, 2}, Case{1, true, 1}}) {
    SessionConfig config;
    testing::UseCpuDevice(&config, {"CONV_2D"});
    config.num_threads = c.threads;
    config.concurrent_backends = c.concurrent;
    auto session = Session::Create(model, config);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    EXPECT_EQ(testing::CpuDeviceHooks().thread_budget, c.device_threads) << c.threads << " " << c.concurrent;
  }
}

// Without a bound set, a hostile model (a few bytes asking for gigabytes:
// here 64 outputs, each a RELU of a 1x8192x8192x16 input, 4.3 GB apiece and
// all alive to the end: 279 GB) fails planning with the default bound (half
// the machine's memory), before anything is allocated, naming the model,
// the bytes and the settings.
TEST(SessionConfigTest, DefaultMemoryBoundStopsAHostileModel) {
  auto g = std::make_shared<ir::Graph>();
  g->source = "hostile.onnx";
  const Shape shape = {1, 8192, 8192, 16};
  auto tensor = [&](const std::string& name) {
    ir::TensorInfo t;
    t.name = name;
    t.shape = shape;
    g->tensors.push_back(t);
    return static_cast<int>(g->tensors.size()) - 1;
  };
  g->inputs = {tensor("x")};
  for (int k = 0; k < 64; ++k) {
    ir::Node relu;
    relu.name = "y" + std::to_string(k);
    relu.type = ir::OpType::kRelu;
    relu.inputs = {0};
    relu.outputs = {tensor(relu.name)};
    g->nodes.push_back(relu);
    g->outputs.push_back(relu.outputs[0]);
  }
  auto session = Session::Create(std::make_shared<Model>(g));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kOutOfRange) << session.status().ToString();
  const std::string m = session.status().message();
  EXPECT_NE(m.find("hostile.onnx"), std::string::npos) << m;
  EXPECT_NE(m.find("279172874240 bytes"), std::string::npos) << m;  // 65 tensors of 4 GiB
  EXPECT_NE(m.find("max_memory_mb"), std::string::npos) << m;
  EXPECT_NE(m.find("half this machine's memory"), std::string::npos) << m;
}

// A memory budget fails planning before anything is allocated (models from
// untrusted sources can ask for gigabytes; the fuzzers run under one).
TEST(SessionConfigTest, MemoryBudget) {
  const std::string name = "face_detection_short_range.tflite";
  RILL_SKIP_IF_MISSING(testing::ModelPath(name));
  auto model = Load(name);
  ASSERT_TRUE(model);
  auto unbounded = Session::Create(model);
  ASSERT_TRUE(unbounded.ok());
  const size_t need = (*unbounded)->arena_bytes();
  SessionConfig config;
  config.max_memory_bytes = need - 1;
  auto over = Session::Create(model, config);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kOutOfRange) << over.status().ToString();
  config.max_memory_bytes = need;
  auto fits = Session::Create(model, config);
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_FALSE((*fits)->Resize({{(*fits)->input(0)->name(), {2, 128, 128, 3}}}).ok());
  EXPECT_FALSE((*fits)->Run().ok()) << "a failed resize leaves the session unplanned";
}

}  // namespace
}  // namespace rill::inference
