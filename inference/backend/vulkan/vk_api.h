// The Vulkan entry points, loaded with dlopen() from the loader
// (libvulkan.so.1) when a session first asks for the vulkan backend, as the
// OpenCL backend loads libOpenCL: a binary that links the backend still
// starts on a machine without Vulkan, and asking for it there is a clear
// error instead of a loader failure at start-up.
#ifndef RILL_INFERENCE_BACKEND_VULKAN_VK_API_H_
#define RILL_INFERENCE_BACKEND_VULKAN_VK_API_H_

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

#include "rill/inference/status.h"

namespace rill::inference::vulkan {

// Entry points the loader exports without an instance.
#define RILL_VK_GLOBAL_FUNCTIONS(X) X(vkCreateInstance) X(vkEnumerateInstanceExtensionProperties)

// Entry points reached through vkGetInstanceProcAddr once an instance exists
// (device functions included: the loader's trampolines dispatch them).
#define RILL_VK_INSTANCE_FUNCTIONS(X)                                                                            \
  X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)                             \
  X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceQueueFamilyProperties)   \
  X(vkGetPhysicalDeviceMemoryProperties) X(vkEnumerateDeviceExtensionProperties) X(vkCreateDevice)                \
  X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements)     \
  X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory)                        \
  X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreatePipelineCache) X(vkDestroyPipelineCache)              \
  X(vkGetPipelineCacheData) X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreatePipelineLayout)             \
  X(vkDestroyPipelineLayout) X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout)                        \
  X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkResetDescriptorPool) X(vkAllocateDescriptorSets)        \
  X(vkUpdateDescriptorSets) X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers)             \
  X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkResetCommandBuffer)                    \
  X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch)                           \
  X(vkCmdPipelineBarrier) X(vkCmdCopyBuffer) X(vkCmdFillBuffer) X(vkCmdWriteTimestamp) X(vkCmdResetQueryPool)     \
  X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkGetQueryPoolResults) X(vkCreateFence) X(vkDestroyFence)           \
  X(vkResetFences) X(vkWaitForFences) X(vkQueueSubmit) X(vkQueueWaitIdle) X(vkDeviceWaitIdle)

struct VkApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define RILL_VK_MEMBER(name) PFN_##name name = nullptr;
  RILL_VK_GLOBAL_FUNCTIONS(RILL_VK_MEMBER)
  RILL_VK_INSTANCE_FUNCTIONS(RILL_VK_MEMBER)
#undef RILL_VK_MEMBER
};

// Loads the loader once per process (`library`: a path or soname; empty:
// libvulkan.so.1, then libvulkan.so) and its global entry points.
// Unavailable, naming the library and dlerror(), when it cannot be loaded.
Status LoadVkLoader(const std::string& library = "");
// Fills the instance-level entry points for `instance` (once per process:
// every instance of one loader shares the trampolines).
Status LoadVkInstanceFunctions(VkInstance instance);
// The loaded API; only after LoadVkLoader succeeded.
const VkApi& vk();

// "VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)".
std::string VkResultName(VkResult r);
// An Internal error "vulkan: WHAT: VK_...".
Status VkError(VkResult r, const std::string& what);

}  // namespace rill::inference::vulkan

#endif  // RILL_INFERENCE_BACKEND_VULKAN_VK_API_H_
