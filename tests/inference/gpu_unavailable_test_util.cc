// The GPU backends' shared "unavailable" cases (gpu_unavailable_test_util.h).
#include "tests/inference/gpu_unavailable_test_util.h"

#include <memory>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"

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

}  // namespace rill::inference::testing
