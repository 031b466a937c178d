#include "inference/backend/vulkan/vulkan_runtime.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "inference/backend/vulkan/shaders.h"

namespace rill::inference::vulkan {
namespace {

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Hex(uint64_t v) {
  char key[32];
  std::snprintf(key, sizeof(key), "%016llx", static_cast<unsigned long long>(v));
  return key;
}

std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/rill/vulkan";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/rill/vulkan";
  return "";
}

bool MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      const std::string part = path.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

// Written to a temporary name and renamed: a concurrent reader never sees
// half a file.
void WriteFileAtomically(const std::string& path, const void* data, size_t size, const void* tag) {
  const std::string tmp = path + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(tag));
  std::ofstream out(tmp, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (out) std::rename(tmp.c_str(), path.c_str());
  else std::remove(tmp.c_str());
}

bool HasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
  for (const VkExtensionProperties& e : list) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

std::string VersionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

// NVIDIA packs its driver version 10.8.8.6 bits.
std::string DriverString(const VkPhysicalDeviceProperties& p) {
  const uint32_t v = p.driverVersion;
  if (p.vendorID == 0x10de) {
    return std::to_string(v >> 22) + "." + std::to_string((v >> 14) & 0xff) + "." + std::to_string((v >> 6) & 0xff);
  }
  return VersionString(v);
}

}  // namespace

StatusOr<std::unique_ptr<VkRuntime>> VkRuntime::Create(const std::map<std::string, std::string>& options) {
  auto library = options.find("library");
  RILL_INF_RETURN_IF_ERROR(LoadVkLoader(library == options.end() ? "" : library->second));
  std::unique_ptr<VkRuntime> rt(new VkRuntime);
  // One instance per process, kept until it exits (like the loaded
  // library): the loader loads and unloads the drivers with each instance,
  // and NVIDIA's does not load again after some twenty cycles (the loader
  // then reports VK_ERROR_INCOMPATIBLE_DRIVER).
  VkResult r = VK_SUCCESS;
  {
    static std::mutex* mu = new std::mutex;  // never destroyed
    static VkInstance shared = VK_NULL_HANDLE;
    std::lock_guard<std::mutex> lock(*mu);
    if (shared == VK_NULL_HANDLE) {
      VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
      app.pApplicationName = "rill";
      app.pEngineName = "rill";
      app.apiVersion = VK_API_VERSION_1_1;
      VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
      ici.pApplicationInfo = &app;
      r = vk().vkCreateInstance(&ici, nullptr, &shared);
      if (r != VK_SUCCESS) {
        shared = VK_NULL_HANDLE;
        return UnavailableError("vulkan: no Vulkan instance (" + VkResultName(r) +
                                "): install a driver and its ICD file (/usr/share/vulkan/icd.d/*.json, or one named "
                                "by VK_ICD_FILENAMES)");
      }
    }
    rt->instance_ = shared;
  }
  RILL_INF_RETURN_IF_ERROR(LoadVkInstanceFunctions(rt->instance_));
  uint32_t count = 0;
  vk().vkEnumeratePhysicalDevices(rt->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> all(count);
  if (count > 0) vk().vkEnumeratePhysicalDevices(rt->instance_, &count, all.data());
  // GPUs first (discrete, integrated, virtual), then the others (CPU).
  std::vector<VkPhysicalDevice> ordered;
  for (int pass = 0; pass < 2; ++pass) {
    for (VkPhysicalDevice d : all) {
      VkPhysicalDeviceProperties p;
      vk().vkGetPhysicalDeviceProperties(d, &p);
      const bool gpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ||
                       p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
                       p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
      if (gpu == (pass == 0)) ordered.push_back(d);
    }
  }
  if (ordered.empty()) {
    return UnavailableError("vulkan: the Vulkan loader lists no device: install a driver and its ICD file "
                            "(/usr/share/vulkan/icd.d/*.json; Debian: mesa-vulkan-drivers)");
  }
  size_t index = 0;
  if (auto it = options.find("device"); it != options.end()) {
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != 0 || v < 0 || static_cast<size_t>(v) >= ordered.size()) {
      return InvalidArgumentError("vulkan: option device=" + it->second + " is not a device index (0.." +
                                  std::to_string(ordered.size() - 1) + ")");
    }
    index = static_cast<size_t>(v);
  }
  rt->physical_ = ordered[index];
  VkPhysicalDeviceProperties props;
  vk().vkGetPhysicalDeviceProperties(rt->physical_, &props);
  vk().vkGetPhysicalDeviceMemoryProperties(rt->physical_, &rt->memory_);
  rt->max_group_count_x_ = props.limits.maxComputeWorkGroupCount[0];
  rt->cpu_device_ = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  rt->timestamp_period_ = props.limits.timestampPeriod;

  uint32_t families = 0;
  vk().vkGetPhysicalDeviceQueueFamilyProperties(rt->physical_, &families, nullptr);
  std::vector<VkQueueFamilyProperties> fam(families);
  vk().vkGetPhysicalDeviceQueueFamilyProperties(rt->physical_, &families, fam.data());
  bool found = false;
  for (uint32_t i = 0; i < families && !found; ++i) {
    if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      rt->queue_family_ = i;
      rt->timestamp_valid_bits_ = props.limits.timestampComputeAndGraphics ? fam[i].timestampValidBits : 0;
      found = true;
    }
  }
  if (!found) return UnavailableError(std::string("vulkan: ") + props.deviceName + " has no compute queue");

  uint32_t ext_count = 0;
  vk().vkEnumerateDeviceExtensionProperties(rt->physical_, nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  vk().vkEnumerateDeviceExtensionProperties(rt->physical_, nullptr, &ext_count, exts.data());

  // Features: 16-bit storage (core in 1.1) and fp16 arithmetic.
  VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features float16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  storage16.pNext = &float16;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &storage16;
  const bool has_float16_ext = HasExtension(exts, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) ||
                               props.apiVersion >= VK_API_VERSION_1_2;
  if (!has_float16_ext) storage16.pNext = nullptr;
  vk().vkGetPhysicalDeviceFeatures2(rt->physical_, &features);
  rt->fp16_storage_ = storage16.storageBuffer16BitAccess == VK_TRUE;
  rt->fp16_arithmetic_ = rt->fp16_storage_ && has_float16_ext && float16.shaderFloat16 == VK_TRUE;
  if (auto it = options.find("fp16_arithmetic"); it != options.end() && it->second == "false") {
    rt->fp16_arithmetic_ = false;
  }
  VkPhysicalDevice16BitStorageFeatures enable16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceShaderFloat16Int8Features enablef16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  enable16.storageBuffer16BitAccess = rt->fp16_storage_ ? VK_TRUE : VK_FALSE;
  enablef16.shaderFloat16 = rt->fp16_arithmetic_ ? VK_TRUE : VK_FALSE;
  if (rt->fp16_arithmetic_) enable16.pNext = &enablef16;
  std::vector<const char*> enabled;
  if (rt->fp16_storage_ && HasExtension(exts, VK_KHR_16BIT_STORAGE_EXTENSION_NAME)) {
    enabled.push_back(VK_KHR_16BIT_STORAGE_EXTENSION_NAME);
  }
  if (rt->fp16_arithmetic_ && HasExtension(exts, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
    enabled.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  // The SM count, for the split over K of small GEMMs.
  if (HasExtension(exts, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &sm;
    vk().vkGetPhysicalDeviceProperties2(rt->physical_, &p2);
    if (sm.shaderSMCount > 0) rt->compute_units_ = static_cast<int>(sm.shaderSMCount);
  }
  if (auto it = options.find("compute_units"); it != options.end()) {
    rt->compute_units_ = std::max(1, std::atoi(it->second.c_str()));
  }

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = rt->queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &enable16;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<uint32_t>(enabled.size());
  dci.ppEnabledExtensionNames = enabled.data();
  r = vk().vkCreateDevice(rt->physical_, &dci, nullptr, &rt->device_);
  if (r != VK_SUCCESS) return VkError(r, std::string("vkCreateDevice on ") + props.deviceName);
  vk().vkGetDeviceQueue(rt->device_, rt->queue_family_, 0, &rt->queue_);
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = rt->queue_family_;
  r = vk().vkCreateCommandPool(rt->device_, &pci, nullptr, &rt->pool_);
  if (r != VK_SUCCESS) return VkError(r, "vkCreateCommandPool");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = vk().vkCreateFence(rt->device_, &fci, nullptr, &rt->once_fence_);
  if (r != VK_SUCCESS) return VkError(r, "vkCreateFence");

  rt->description_ = std::string(props.deviceName) + " (driver " + DriverString(props) + ", Vulkan " +
                     VersionString(props.apiVersion) + ")";
  std::string uuid(reinterpret_cast<const char*>(props.pipelineCacheUUID), VK_UUID_SIZE);
  rt->cache_key_ = Hex(Fnv1a(std::to_string(props.vendorID) + "\n" + std::to_string(props.deviceID) + "\n" +
                             std::to_string(props.driverVersion) + "\n" + uuid + "\n" + props.deviceName + "\n" +
                             ShadersDigest()));
  rt->cache_dir_ = DefaultCacheDir();
  if (auto it = options.find("cache_dir"); it != options.end()) rt->cache_dir_ = it->second == "none" ? "" : it->second;
  if (auto it = options.find("tile"); it != options.end()) rt->tile_option_ = it->second;

  // The pipeline cache: the file of this device and driver, if any (a
  // driver checks the header and ignores a foreign one).
  std::vector<char> data;
  if (!rt->cache_dir_.empty()) {
    std::ifstream in(rt->cache_dir_ + "/" + rt->cache_key_ + ".vkpc", std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  VkPipelineCacheCreateInfo cci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  cci.initialDataSize = data.size();
  cci.pInitialData = data.empty() ? nullptr : data.data();
  r = vk().vkCreatePipelineCache(rt->device_, &cci, nullptr, &rt->cache_);
  if (r != VK_SUCCESS) {
    cci.initialDataSize = 0;
    cci.pInitialData = nullptr;
    r = vk().vkCreatePipelineCache(rt->device_, &cci, nullptr, &rt->cache_);
    if (r != VK_SUCCESS) return VkError(r, "vkCreatePipelineCache");
  }
  return rt;
}

VkRuntime::~VkRuntime() {
  if (device_) {
    vk().vkDeviceWaitIdle(device_);
    SavePipelineCache();
    for (auto& [key, p] : pipelines_) {
      vk().vkDestroyPipeline(device_, p.pipeline, nullptr);
      vk().vkDestroyPipelineLayout(device_, p.layout, nullptr);
      vk().vkDestroyDescriptorSetLayout(device_, p.set_layout, nullptr);
    }
    for (auto& [key, m] : modules_) vk().vkDestroyShaderModule(device_, m, nullptr);
    if (cache_) vk().vkDestroyPipelineCache(device_, cache_, nullptr);
    if (once_fence_) vk().vkDestroyFence(device_, once_fence_, nullptr);
    if (pool_) vk().vkDestroyCommandPool(device_, pool_, nullptr);
    vk().vkDestroyDevice(device_, nullptr);
  }
}

void VkRuntime::SavePipelineCache() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!cache_dirty_ || cache_dir_.empty() || !MakeDirs(cache_dir_)) return;
  size_t size = 0;
  if (vk().vkGetPipelineCacheData(device_, cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<char> data(size);
  if (vk().vkGetPipelineCacheData(device_, cache_, &size, data.data()) != VK_SUCCESS) return;
  WriteFileAtomically(cache_dir_ + "/" + cache_key_ + ".vkpc", data.data(), size, this);
  cache_dirty_ = false;
}

std::string VkRuntime::CachedTuning(const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!tuning_loaded_ && !cache_dir_.empty()) {
    std::ifstream in(cache_dir_ + "/" + cache_key_ + ".tune");
    std::string key, value;
    while (in >> key >> value) tuning_[key] = value;
  }
  tuning_loaded_ = true;
  auto it = tuning_.find(what);
  return it == tuning_.end() ? "" : it->second;
}

void VkRuntime::SaveTuning(const std::string& what, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  tuning_[what] = value;
  if (cache_dir_.empty() || !MakeDirs(cache_dir_)) return;
  std::string text;
  for (const auto& [key, v] : tuning_) text += key + " " + v + "\n";
  WriteFileAtomically(cache_dir_ + "/" + cache_key_ + ".tune", text.data(), text.size(), this);
}

int VkRuntime::MemoryType(uint32_t type_bits, bool host_visible, bool upload) const {
  // Staging: host-visible and coherent, cached where offered (read back).
  // Device memory: device-local.
  int best = -1, best_score = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    int score = 0;
    if (host_visible) {
      if (!(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) || !(f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) continue;
      if (upload) {
        score = (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ? 2 : 1;
      } else {
        score = (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ? 2 : 1;
      }
    } else {
      score = (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ? 2 : 1;
    }
    if (score > best_score) best = static_cast<int>(i), best_score = score;
  }
  return best;
}

Status VkRuntime::CreateBuffer(size_t bytes, bool host_visible, DeviceBuffer* out, bool upload) {
  *out = DeviceBuffer{};
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = std::max<size_t>((bytes + 63) / 64 * 64, 64);
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vk().vkCreateBuffer(device_, &bci, nullptr, &out->buffer);
  if (r != VK_SUCCESS) return VkError(r, "vkCreateBuffer of " + std::to_string(bytes) + " bytes");
  VkMemoryRequirements req;
  vk().vkGetBufferMemoryRequirements(device_, out->buffer, &req);
  int type = MemoryType(req.memoryTypeBits, host_visible, upload);
  if (type < 0) {
    DestroyBuffer(out);
    return InternalError(std::string("vulkan: no ") + (host_visible ? "host-visible" : "device") + " memory type");
  }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = static_cast<uint32_t>(type);
  r = vk().vkAllocateMemory(device_, &mai, nullptr, &out->memory);
  if (r != VK_SUCCESS && upload) {
    // The host-mapped part of device memory is small without resizable
    // BAR (256 MB): plain host memory then.
    mai.memoryTypeIndex = static_cast<uint32_t>(MemoryType(req.memoryTypeBits, host_visible, false));
    r = vk().vkAllocateMemory(device_, &mai, nullptr, &out->memory);
  }
  if (r != VK_SUCCESS) {
    DestroyBuffer(out);
    return VkError(r, "vkAllocateMemory of " + std::to_string(req.size) + " bytes");
  }
  vk().vkBindBufferMemory(device_, out->buffer, out->memory, 0);
  if (host_visible) {
    r = vk().vkMapMemory(device_, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (r != VK_SUCCESS) {
      DestroyBuffer(out);
      return VkError(r, "vkMapMemory");
    }
  }
  out->size = bytes;
  return Status::Ok();
}

void VkRuntime::DestroyBuffer(DeviceBuffer* b) {
  if (b->mapped) vk().vkUnmapMemory(device_, b->memory);
  if (b->buffer) vk().vkDestroyBuffer(device_, b->buffer, nullptr);
  if (b->memory) vk().vkFreeMemory(device_, b->memory, nullptr);
  *b = DeviceBuffer{};
}

Status VkRuntime::Upload(const void* data, size_t bytes, DeviceBuffer* out) {
  DeviceBuffer staging;
  RILL_INF_RETURN_IF_ERROR(CreateBuffer(bytes, true, &staging));
  std::memcpy(staging.mapped, data, bytes);
  Status status = CreateBuffer(bytes, false, out);
  if (status.ok()) {
    status = RunOnce([&](VkCommandBuffer cb) {
      VkBufferCopy region{0, 0, std::max<size_t>(bytes, 1)};
      region.size = bytes;
      if (bytes > 0) vk().vkCmdCopyBuffer(cb, staging.buffer, out->buffer, 1, &region);
    });
  }
  DestroyBuffer(&staging);
  return status;
}

Status VkRuntime::BeginOneTime(VkCommandBuffer* cb) {
  mu_.lock();  // held until EndOneTime: one-time submits share the fence
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkResult r = vk().vkAllocateCommandBuffers(device_, &ai, cb);
  if (r != VK_SUCCESS) {
    mu_.unlock();
    return VkError(r, "vkAllocateCommandBuffers");
  }
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk().vkBeginCommandBuffer(*cb, &bi);
  return Status::Ok();
}

Status VkRuntime::EndOneTime(VkCommandBuffer cb) {
  vk().vkEndCommandBuffer(cb);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VkResult r = vk().vkQueueSubmit(queue_, 1, &si, once_fence_);
  if (r == VK_SUCCESS) r = vk().vkWaitForFences(device_, 1, &once_fence_, VK_TRUE, UINT64_MAX);
  vk().vkResetFences(device_, 1, &once_fence_);
  vk().vkFreeCommandBuffers(device_, pool_, 1, &cb);
  mu_.unlock();
  return r == VK_SUCCESS ? Status::Ok() : VkError(r, "one-time submit");
}

Status VkRuntime::Submit(const VkCommandBuffer* cbs, uint32_t count, VkFence fence) {
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = count;
  si.pCommandBuffers = cbs;
  const VkResult r = vk().vkQueueSubmit(queue_, 1, &si, fence);
  return r == VK_SUCCESS ? Status::Ok() : VkError(r, "vkQueueSubmit");
}

StatusOr<const Pipeline*> VkRuntime::GetPipeline(const std::string& shader, Variant variant,
                                                 const std::vector<int>& spec) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string key = shader + "/" + std::to_string(static_cast<int>(variant));
  for (int v : spec) key += "/" + std::to_string(v);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return &it->second;
  const ShaderInfo* info = FindShader(shader, static_cast<int>(variant));
  if (!info) {
    return InternalError("vulkan: no shader " + shader + " for variant " + std::to_string(static_cast<int>(variant)));
  }
  const std::string module_key = shader + "/" + std::to_string(static_cast<int>(variant));
  VkShaderModule module = VK_NULL_HANDLE;
  if (auto it = modules_.find(module_key); it != modules_.end()) {
    module = it->second;
  } else {
    VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smi.codeSize = info->words * sizeof(uint32_t);
    smi.pCode = info->code;
    const VkResult r = vk().vkCreateShaderModule(device_, &smi, nullptr, &module);
    if (r != VK_SUCCESS) return VkError(r, "vkCreateShaderModule " + shader);
    modules_[module_key] = module;
  }
  Pipeline p;
  p.bindings = info->bindings;
  std::vector<VkDescriptorSetLayoutBinding> binds(p.bindings);
  for (int i = 0; i < p.bindings; ++i) {
    binds[i] = VkDescriptorSetLayoutBinding{};
    binds[i].binding = static_cast<uint32_t>(i);
    binds[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    binds[i].descriptorCount = 1;
    binds[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dli.bindingCount = static_cast<uint32_t>(binds.size());
  dli.pBindings = binds.data();
  VkResult r = vk().vkCreateDescriptorSetLayout(device_, &dli, nullptr, &p.set_layout);
  if (r != VK_SUCCESS) return VkError(r, "vkCreateDescriptorSetLayout " + shader);
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &p.set_layout;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &range;
  r = vk().vkCreatePipelineLayout(device_, &pli, nullptr, &p.layout);
  if (r != VK_SUCCESS) return VkError(r, "vkCreatePipelineLayout " + shader);
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    entries[i] = VkSpecializationMapEntry{static_cast<uint32_t>(i), static_cast<uint32_t>(i * sizeof(int)), sizeof(int)};
  }
  VkSpecializationInfo si{};
  si.mapEntryCount = static_cast<uint32_t>(entries.size());
  si.pMapEntries = entries.data();
  si.dataSize = spec.size() * sizeof(int);
  si.pData = spec.data();
  VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpi.stage.module = module;
  cpi.stage.pName = "main";
  cpi.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
  cpi.layout = p.layout;
  r = vk().vkCreateComputePipelines(device_, cache_, 1, &cpi, nullptr, &p.pipeline);
  if (r != VK_SUCCESS) return VkError(r, "vkCreateComputePipelines " + shader);
  cache_dirty_ = true;
  return &(pipelines_[key] = p);
}

}  // namespace rill::inference::vulkan
