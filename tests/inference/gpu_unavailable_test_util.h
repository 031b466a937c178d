// What the GPU backends' "unavailable" tests (opencl_unavailable_test,
// vulkan_unavailable_test, and the next backend's) share: asking for a GPU
// backend whose library cannot be loaded is one Unavailable error that says
// what is missing, never a crash, and the CPU still works in the same
// process; a device index that does not exist names the range. Each test is
// a process of its own (a library, once loaded, stays loaded).
#ifndef RILL_TESTS_INFERENCE_GPU_UNAVAILABLE_TEST_UTIL_H_
#define RILL_TESTS_INFERENCE_GPU_UNAVAILABLE_TEST_UTIL_H_

#include <string>
#include <vector>

namespace rill::inference::testing {

// A GPU backend's name and what its errors say.
struct UnavailableBackend {
  std::string name;             // "opencl": its options are "opencl.KEY"
  std::string missing_library;  // a library name no machine has
  std::string loader;           // what the missing-library error names: "ICD loader"
  // Without a loader the missing-library error repeats; with one, the
  // device range. Any of these in the bad-device error will do.
  std::vector<std::string> bad_device_messages;
};

// The library option names a library that does not exist.
void ExpectMissingLibraryIsAClearError(const UnavailableBackend& b);
// The device option is 99.
void ExpectBadDeviceIndexNamesTheRange(const UnavailableBackend& b);

// "gpu" (kGpuBackend) without `opencl`'s library: with `vulkan`'s missing
// too, one Unavailable error naming both libraries; else (a process that
// has not loaded the Vulkan loader yet, and a Vulkan device) the model runs
// on Vulkan, stderr saying why.
void ExpectGpuFallsBackToVulkan(const UnavailableBackend& opencl, const UnavailableBackend& vulkan);

}  // namespace rill::inference::testing

#endif  // RILL_TESTS_INFERENCE_GPU_UNAVAILABLE_TEST_UTIL_H_
