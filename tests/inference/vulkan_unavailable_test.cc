// No Vulkan, no crash: asking for the opencl backend where its library
// cannot be loaded is one Unavailable error that says what is missing (a
// process of its own: the library, once loaded, stays loaded).
#include <string>

#include "gtest/gtest.h"
#include "inference/ir/graph.h"
#include "rill/inference/inference.h"

namespace rill::inference {
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

TEST(VulkanUnavailableTest, MissingLibraryIsAClearError) {
  SessionConfig config;
  config.backend = "vulkan";
  config.backend_options["vulkan.library"] = "libRillNoSuchVulkan.so.1";
  auto session = Session::Create(ReluModel(), config);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnavailable) << session.status().ToString();
  const std::string message = session.status().message();
  EXPECT_NE(message.find("relu_model"), std::string::npos) << message;
  EXPECT_NE(message.find("libRillNoSuchVulkan.so.1"), std::string::npos) << message;
  EXPECT_NE(message.find("Vulkan loader"), std::string::npos) << message;
  // The CPU still works in the same process.
  config.backend = kCpuBackend;
  EXPECT_TRUE(Session::Create(ReluModel(), config).ok());
}

// A device index that does not exist names the range (needs the loader).
TEST(VulkanUnavailableTest, BadDeviceIndexNamesTheRange) {
  SessionConfig config;
  config.backend = "vulkan";
  config.backend_options["vulkan.device"] = "99";
  auto session = Session::Create(ReluModel(), config);
  ASSERT_FALSE(session.ok());
  const std::string message = session.status().message();
  // Without a loader the first test's error repeats; with one, the range.
  EXPECT_TRUE(message.find("not a device index") != std::string::npos ||
              message.find("no Vulkan instance") != std::string::npos ||
              message.find("cannot load") != std::string::npos)
      << message;
}

}  // namespace
}  // namespace rill::inference
