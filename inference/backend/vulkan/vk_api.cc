#include "inference/backend/vulkan/vk_api.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

namespace rill::inference::vulkan {
namespace {

VkApi g_api;  // filled under g_mu; read-only once filled
std::mutex g_mu;
bool g_loaded = false, g_instance_loaded = false;

}  // namespace

Status LoadVkLoader(const std::string& library) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_loaded) return Status::Ok();
  std::string tried, error;
  void* handle = nullptr;
  const std::vector<std::string> names =
      library.empty() ? std::vector<std::string>{"libvulkan.so.1", "libvulkan.so"} : std::vector<std::string>{library};
  for (const std::string& name : names) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    tried += (tried.empty() ? "" : ", ") + name;
    if (handle) break;
    if (const char* e = dlerror()) error = e;
  }
  if (!handle) {
    return UnavailableError("vulkan: cannot load the Vulkan loader (" + tried + "): " + error +
                            "; install a Vulkan loader and a driver (Debian: libvulkan1 and e.g. mesa-vulkan-drivers)");
  }
  g_api.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
  if (!g_api.vkGetInstanceProcAddr) return UnavailableError("vulkan: " + tried + " lacks vkGetInstanceProcAddr");
#define RILL_VK_LOAD_GLOBAL(name)                                                              \
  g_api.name = reinterpret_cast<PFN_##name>(g_api.vkGetInstanceProcAddr(nullptr, #name));       \
  if (!g_api.name) return UnavailableError("vulkan: the Vulkan loader lacks " + std::string(#name));
  RILL_VK_GLOBAL_FUNCTIONS(RILL_VK_LOAD_GLOBAL)
#undef RILL_VK_LOAD_GLOBAL
  g_loaded = true;
  return Status::Ok();
}

Status LoadVkInstanceFunctions(VkInstance instance) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_instance_loaded) return Status::Ok();
  VkApi api = g_api;
#define RILL_VK_LOAD_INSTANCE(name)                                                           \
  api.name = reinterpret_cast<PFN_##name>(g_api.vkGetInstanceProcAddr(instance, #name));      \
  if (!api.name) return UnavailableError("vulkan: the Vulkan loader lacks " + std::string(#name));
  RILL_VK_INSTANCE_FUNCTIONS(RILL_VK_LOAD_INSTANCE)
#undef RILL_VK_LOAD_INSTANCE
  g_api = api;
  g_instance_loaded = true;
  return Status::Ok();
}

const VkApi& vk() { return g_api; }

std::string VkResultName(VkResult r) {
  const char* name = "VK_ERROR";
  switch (r) {
    case VK_SUCCESS: name = "VK_SUCCESS"; break;
    case VK_NOT_READY: name = "VK_NOT_READY"; break;
    case VK_TIMEOUT: name = "VK_TIMEOUT"; break;
    case VK_INCOMPLETE: name = "VK_INCOMPLETE"; break;
    case VK_ERROR_OUT_OF_HOST_MEMORY: name = "VK_ERROR_OUT_OF_HOST_MEMORY"; break;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: name = "VK_ERROR_OUT_OF_DEVICE_MEMORY"; break;
    case VK_ERROR_INITIALIZATION_FAILED: name = "VK_ERROR_INITIALIZATION_FAILED"; break;
    case VK_ERROR_DEVICE_LOST: name = "VK_ERROR_DEVICE_LOST"; break;
    case VK_ERROR_MEMORY_MAP_FAILED: name = "VK_ERROR_MEMORY_MAP_FAILED"; break;
    case VK_ERROR_LAYER_NOT_PRESENT: name = "VK_ERROR_LAYER_NOT_PRESENT"; break;
    case VK_ERROR_EXTENSION_NOT_PRESENT: name = "VK_ERROR_EXTENSION_NOT_PRESENT"; break;
    case VK_ERROR_FEATURE_NOT_PRESENT: name = "VK_ERROR_FEATURE_NOT_PRESENT"; break;
    case VK_ERROR_INCOMPATIBLE_DRIVER: name = "VK_ERROR_INCOMPATIBLE_DRIVER"; break;
    case VK_ERROR_TOO_MANY_OBJECTS: name = "VK_ERROR_TOO_MANY_OBJECTS"; break;
    case VK_ERROR_FORMAT_NOT_SUPPORTED: name = "VK_ERROR_FORMAT_NOT_SUPPORTED"; break;
    case VK_ERROR_OUT_OF_POOL_MEMORY: name = "VK_ERROR_OUT_OF_POOL_MEMORY"; break;
    default: break;
  }
  return std::string(name) + " (" + std::to_string(static_cast<int>(r)) + ")";
}

Status VkError(VkResult r, const std::string& what) {
  return InternalError("vulkan: " + what + ": " + VkResultName(r));
}

}  // namespace rill::inference::vulkan
