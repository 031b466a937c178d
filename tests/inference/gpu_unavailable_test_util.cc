// The GPU backends' shared "unavailable" cases (gpu_unavailable_test_util.h).
#include "tests/inference/gpu_unavailable_test_util.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"
#include "tests/require.h"

namespace rill::inference::testing {
namespace {

std::shared_ptr<const Model> ReluModel() {
  auto g = std::make_shared<ir::Graph>();
  g->source = "relu_model";
  for (const char* name : {"x", "y"}) {
    ir::TensorInfo t;
    t.name = name;
    t.shape = {1, 2, 2, 3};
    g->tensors.push_back(t);
  }
  ir::Node relu;
  relu.name = "y";
  relu.type = ir::OpType::kRelu;
  relu.inputs = {0};
  relu.outputs = {1};
  g->nodes = {relu};
  g->inputs = {0};
  g->outputs = {1};
  return std::make_shared<Model>(g);
}

}  // namespace

void ExpectMissingLibraryIsAClearError(const UnavailableBackend& b) {
  SessionConfig config;
  config.backend = b.name;
  config.backend_options[b.name + ".library"] = b.missing_library;
  auto session = Session::Create(ReluModel(), config);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnavailable) << session.status().ToString();
  const std::string message = session.status().message();
  EXPECT_NE(message.find("relu_model"), std::string::npos) << message;
  EXPECT_NE(message.find(b.missing_library), std::string::npos) << message;
  EXPECT_NE(message.find(b.loader), std::string::npos) << message;
  // The CPU still works in the same process.
  config.backend = kCpuBackend;
  EXPECT_TRUE(Session::Create(ReluModel(), config).ok());
}

void ExpectBadDeviceIndexNamesTheRange(const UnavailableBackend& b) {
  SessionConfig config;
  config.backend = b.name;
  config.backend_options[b.name + ".device"] = "99";
  auto session = Session::Create(ReluModel(), config);
  ASSERT_FALSE(session.ok());
  const std::string message = session.status().message();
  bool named = false;
  for (const std::string& m : b.bad_device_messages) named = named || message.find(m) != std::string::npos;
  EXPECT_TRUE(named) << message;
}

void ExpectGpuFallsBackToVulkan(const UnavailableBackend& opencl, const UnavailableBackend& vulkan) {
  SessionConfig config;
  config.backend = kGpuBackend;
  config.backend_options[opencl.name + ".library"] = opencl.missing_library;
  config.backend_options[vulkan.name + ".library"] = vulkan.missing_library;
  auto none = Session::Create(ReluModel(), config);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable) << none.status().ToString();
  const std::string message = none.status().message();
  for (const std::string& m : {std::string("relu_model"), std::string("\"gpu\""), opencl.missing_library,
                               vulkan.missing_library}) {
    EXPECT_NE(message.find(m), std::string::npos) << m << " not in: " << message;
  }

  // Vulkan present: the relu runs there.
  config.backend_options.erase(vulkan.name + ".library");
  SessionConfig probe;
  probe.backend = vulkan.name;
  RILL_REQUIRE(Session::Create(ReluModel(), probe).ok(), "no Vulkan device (lavapipe: scripts/setup.sh)");
  ::testing::internal::CaptureStderr();
  auto session = Session::Create(ReluModel(), config);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_EQ((*session)->Layers().size(), 1u);
  EXPECT_EQ((*session)->Layers()[0].backend, vulkan.name);
  EXPECT_NE(log.find("\"gpu\" runs on vulkan: no OpenCL"), std::string::npos) << log;
  EXPECT_NE(log.find(opencl.missing_library), std::string::npos) << log;
  const std::vector<float> x = {-1.5f, 0.0f, 2.0f, 3.25f, -0.5f, 1.0f, -4.0f, 0.25f, 5.0f, -2.0f, 0.75f, -0.125f};
  Tensor* in = (*session)->input(0);
  std::copy(x.begin(), x.end(), in->data_as<float>());
  ASSERT_TRUE((*session)->Run().ok());
  const float* y = (*session)->output(0)->data_as<float>();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f) << i;
}

}  // namespace rill::inference::testing
