// "gpu" names the GPU backend that works here: OpenCL, else Vulkan, else a
// clear error (a process of its own: it must ask for the missing Vulkan
// loader before the real one is loaded; gpu_unavailable_test_util.h).
#include "gtest/gtest.h"
#include "tests/inference/gpu_unavailable_test_util.h"

namespace rill::inference {
namespace {

const testing::UnavailableBackend kOpenCl = {"opencl", "libRillNoSuchOpenCL.so.1", "ICD loader", {}};
const testing::UnavailableBackend kVulkan = {"vulkan", "libRillNoSuchVulkan.so.1", "Vulkan loader", {}};

TEST(GpuFallbackTest, GpuFallsBackToVulkanWithoutOpenCl) { testing::ExpectGpuFallsBackToVulkan(kOpenCl, kVulkan); }

}  // namespace
}  // namespace rill::inference
