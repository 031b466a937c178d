// No Vulkan, no crash: asking for the vulkan backend where its loader
// cannot be loaded is one Unavailable error that says what is missing (a
// process of its own: the library, once loaded, stays loaded). The cases
// are every GPU backend's (gpu_unavailable_test_util.h).
#include "gtest/gtest.h"
#include "tests/inference/gpu_unavailable_test_util.h"

namespace rill::inference {
namespace {

const testing::UnavailableBackend kVulkan = {
    "vulkan", "libRillNoSuchVulkan.so.1", "Vulkan loader", {"not a device index", "no Vulkan instance", "cannot load"}};

TEST(VulkanUnavailableTest, MissingLibraryIsAClearError) { testing::ExpectMissingLibraryIsAClearError(kVulkan); }

// A device index that does not exist names the range (needs the loader).
TEST(VulkanUnavailableTest, BadDeviceIndexNamesTheRange) { testing::ExpectBadDeviceIndexNamesTheRange(kVulkan); }

}  // namespace
}  // namespace rill::inference
