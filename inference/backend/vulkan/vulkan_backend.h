// The Vulkan backend ("vulkan"): SessionConfig::backend = "vulkan" or a node
// placed there; options as SessionConfig::backend_options["vulkan.KEY"]
// (vulkan_runtime.h lists the device's, plus "gpu_profile": a file the
// backend writes, when the session ends, each recorded step's mean GPU time
// from VkQueryPool timestamps).
//
// Every dispatch and barrier of the backend's part of the model is recorded
// at resize (EndResize, after memory is bound) into command buffers that
// each run replays: one vkQueueSubmit per run where the backend's tasks run
// back to back (a whole model), one per stretch between transfers to the
// host otherwise. Nodes it has no shader for, or cannot run in a shape, are
// refused (Unimplemented) and run on the CPU.
#ifndef RILL_INFERENCE_BACKEND_VULKAN_VULKAN_BACKEND_H_
#define RILL_INFERENCE_BACKEND_VULKAN_VULKAN_BACKEND_H_

namespace rill::inference::vulkan {

// Linking //inference/backend/vulkan registers the backend; this symbol lets
// a binary make sure the library is kept.
bool VulkanBackendLinked();

}  // namespace rill::inference::vulkan

#endif  // RILL_INFERENCE_BACKEND_VULKAN_VULKAN_BACKEND_H_
