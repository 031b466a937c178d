// No OpenCL, no crash: asking for the opencl backend where its library
// cannot be loaded is one Unavailable error that says what is missing (a
// process of its own: the library, once loaded, stays loaded). The cases
// are every GPU backend's (gpu_unavailable_test_util.h).
#include "gtest/gtest.h"
#include "tests/inference/gpu_unavailable_test_util.h"

namespace rill::inference {
namespace {

const testing::UnavailableBackend kOpenCl = {
    "opencl", "libRillNoSuchOpenCL.so.1", "ICD loader", {"not a device index", "no OpenCL platform", "cannot load"}};

TEST(OpenClUnavailableTest, MissingLibraryIsAClearError) { testing::ExpectMissingLibraryIsAClearError(kOpenCl); }

// A device index that does not exist names the range (needs the loader).
TEST(OpenClUnavailableTest, BadDeviceIndexNamesTheRange) { testing::ExpectBadDeviceIndexNamesTheRange(kOpenCl); }

}  // namespace
}  // namespace rill::inference
