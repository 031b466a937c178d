// The Vulkan device a backend runs on: instance, physical device choice,
// logical device with one compute queue, memory (device-local buffers for
// the arena and the weights, host-visible staging), the shaders' pipelines
// (SPIR-V compiled by glslc at build time and embedded, specialized per
// tile size) with a VkPipelineCache kept on disk keyed by device and driver,
// and the per-device tuning of the GEMM tile, measured once and cached.
#ifndef RILL_INFERENCE_BACKEND_VULKAN_VULKAN_RUNTIME_H_
#define RILL_INFERENCE_BACKEND_VULKAN_VULKAN_RUNTIME_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "inference/backend/vulkan/vk_api.h"
#include "rill/inference/status.h"

namespace rill::inference::vulkan {

// A VkBuffer with its own memory (mapped when host-visible).
struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  size_t size = 0;
};

// A compute pipeline: a shader, its storage precision and its
// specialization constants (ids 0..n-1).
struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  int bindings = 0;
};

// Storage of float tensors on the device: fp32, fp16 storage with fp32
// arithmetic (VK_KHR_16bit_storage), or fp16 storage with fp16 products in
// the GEMM (shaderFloat16, fp32 accumulation).
enum class Variant { kFp32 = 0, kFp16Storage = 1, kFp16Arith = 2 };

// The GEMM's output tile (rows = output pixels, columns = channels) per
// 16x16 work group; a specialization constant pair.
struct GemmTile {
  int m = 64, n = 64;
  std::string ToString() const { return std::to_string(m) + "x" + std::to_string(n); }
};

class VkRuntime {
 public:
  // Options (SessionConfig::backend_options "vulkan.KEY"):
  //   device     index into the physical devices, GPUs listed first (default
  //              0: the first GPU, else the first device, e.g. lavapipe);
  //   library    the Vulkan loader to load (default libvulkan.so.1);
  //   cache_dir  where the pipeline cache and the tuning are kept ("" or
  //              "none": no cache; default $XDG_CACHE_HOME/rill/vulkan or
  //              ~/.cache/rill/vulkan);
  //   compute_units  the device's count as the GEMM's split over K sees it
  //              (default: the SM count where VK_NV_shader_sm_builtins
  //              tells it, else 16);
  //   tile       the GEMM tile "MxN" (32 or 64 each), "tune" (the default:
  //              measured once per device and cached, one for layers of
  //              many output tiles and one for layers of few) or "default"
  //              (64x64);
  //   fp16_arithmetic  "true" (default where shaderFloat16) or "false".
  // Unavailable, naming what is missing, without a loader or a device.
  static StatusOr<std::unique_ptr<VkRuntime>> Create(const std::map<std::string, std::string>& options);
  ~VkRuntime();

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool command_pool() const { return pool_; }
  // "NVIDIA H100 80GB HBM3 (NVIDIA 550.54.15, Vulkan 1.3.277)".
  const std::string& description() const { return description_; }
  bool fp16_storage() const { return fp16_storage_; }
  bool fp16_arithmetic() const { return fp16_arithmetic_; }
  int compute_units() const { return compute_units_; }
  bool timestamps() const { return timestamp_valid_bits_ > 0; }
  double timestamp_period_ns() const { return timestamp_period_; }
  uint32_t max_group_count_x() const { return max_group_count_x_; }
  // A device that runs shaders on the host CPU (lavapipe, SwiftShader).
  bool cpu_device() const { return cpu_device_; }

  // A buffer of at least `bytes` (64 minimum): device-local (the arena,
  // weights), or host-visible, coherent and mapped (staging): cached for
  // reading back, or device-local where the device maps its memory to the
  // host (`upload`: the host writes, the device reads without crossing the
  // bus again).
  Status CreateBuffer(size_t bytes, bool host_visible, DeviceBuffer* out, bool upload = false);
  void DestroyBuffer(DeviceBuffer* b);
  // A device-local buffer holding `data` (through a staging buffer and one
  // blocking submit): weights and tables, at resize.
  Status Upload(const void* data, size_t bytes, DeviceBuffer* out);

  // The pipeline of a shader (by the name of its .comp file), created once
  // per variant and specialization (through the pipeline cache).
  StatusOr<const Pipeline*> GetPipeline(const std::string& shader, Variant variant, const std::vector<int>& spec = {});
  // Writes the pipeline cache to disk when pipelines were created since it
  // was loaded.
  void SavePipelineCache();

  // The "tile" option ("tune", "default" or "MxN").
  const std::string& tile_option() const { return tile_option_; }
  // A tuning result of this device and driver kept beside the pipeline
  // cache ("" when none was measured): `what` names the measurement.
  std::string CachedTuning(const std::string& what);
  void SaveTuning(const std::string& what, const std::string& value);

  // One command buffer recorded by `record`, submitted, waited for.
  template <class F>
  Status RunOnce(F record) {
    VkCommandBuffer cb = VK_NULL_HANDLE;
    RILL_INF_RETURN_IF_ERROR(BeginOneTime(&cb));
    record(cb);
    return EndOneTime(cb);
  }
  // Submits command buffers (one vkQueueSubmit) and signals `fence`.
  Status Submit(const VkCommandBuffer* cbs, uint32_t count, VkFence fence);

 private:
  VkRuntime() = default;
  Status BeginOneTime(VkCommandBuffer* cb);
  Status EndOneTime(VkCommandBuffer cb);
  int MemoryType(uint32_t type_bits, bool host_visible, bool upload) const;

  VkInstance instance_ = VK_NULL_HANDLE;  // the process's, shared
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence once_fence_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  uint32_t queue_family_ = 0;
  std::string description_, cache_key_, cache_dir_, tile_option_ = "tune";
  bool fp16_storage_ = false, fp16_arithmetic_ = false, cache_dirty_ = false, cpu_device_ = false;
  int compute_units_ = 16;
  uint32_t timestamp_valid_bits_ = 0, max_group_count_x_ = 65535;
  double timestamp_period_ = 1.0;
  std::mutex mu_;
  std::map<std::string, VkShaderModule> modules_;
  std::map<std::string, Pipeline> pipelines_;
  std::map<std::string, std::string> tuning_;  // loaded from / saved to the .tune file
  bool tuning_loaded_ = false;
};

}  // namespace rill::inference::vulkan

#endif  // RILL_INFERENCE_BACKEND_VULKAN_VULKAN_RUNTIME_H_
