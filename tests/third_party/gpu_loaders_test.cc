// The OpenCL and Vulkan wrappers in third_party/ link and find a device: PoCL
// and Mesa lavapipe on CPU-only machines, the vendor driver elsewhere. The GPU
// backends build on these two targets.
#include <CL/cl.h>
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(GpuLoadersTest, OpenClFindsAPlatformAndDevice) {
  cl_uint num_platforms = 0;
  ASSERT_EQ(clGetPlatformIDs(0, nullptr, &num_platforms), CL_SUCCESS);
  ASSERT_GT(num_platforms, 0u) << "no OpenCL platform (is pocl-opencl-icd installed?)";
  std::vector<cl_platform_id> platforms(num_platforms);
  ASSERT_EQ(clGetPlatformIDs(num_platforms, platforms.data(), nullptr), CL_SUCCESS);
  cl_uint devices = 0;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) == CL_SUCCESS) devices += n;
  }
  EXPECT_GT(devices, 0u);
}

TEST(GpuLoadersTest, VulkanFindsAPhysicalDevice) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "rill-loader-test";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateInstance(&info, nullptr, &instance), VK_SUCCESS)
      << "no Vulkan driver (is mesa-vulkan-drivers installed?)";
  uint32_t count = 0;
  EXPECT_EQ(vkEnumeratePhysicalDevices(instance, &count, nullptr), VK_SUCCESS);
  EXPECT_GT(count, 0u);
  vkDestroyInstance(instance, nullptr);
}

}  // namespace
