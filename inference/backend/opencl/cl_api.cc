#include "inference/backend/opencl/cl_api.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

namespace rill::inference::opencl {
namespace {

ClApi g_api;  // filled once under g_mu; read-only afterwards
std::mutex g_mu;
bool g_loaded = false;

}  // namespace

StatusOr<const ClApi*> LoadClApi(const std::string& library) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_loaded) return &g_api;
  std::string tried, error;
  void* handle = nullptr;
  const std::vector<std::string> names =
      library.empty() ? std::vector<std::string>{"libOpenCL.so.1", "libOpenCL.so"} : std::vector<std::string>{library};
  for (const std::string& name : names) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    tried += (tried.empty() ? "" : ", ") + name;
    if (handle) break;
    if (const char* e = dlerror()) error = e;
  }
  if (!handle) {
    return UnavailableError("opencl: cannot load the OpenCL library (" + tried + "): " + error +
                            "; install an OpenCL ICD loader and a driver (Debian: ocl-icd-libopencl1 and e.g. "
                            "pocl-opencl-icd)");
  }
  ClApi api;
#define RILL_CL_LOAD(name)                                                                       \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));                         \
  if (!api.name) return UnavailableError("opencl: the OpenCL library lacks " + std::string(#name));
  RILL_CL_FUNCTIONS(RILL_CL_LOAD)
#undef RILL_CL_LOAD
  g_api = api;
  g_loaded = true;
  return &g_api;
}

const ClApi& cl() { return g_api; }

}  // namespace rill::inference::opencl
