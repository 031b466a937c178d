#include "inference/backend/opencl/opencl_runtime.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace rill::inference::opencl {

extern const char kNnKernels[];  // kernels/nn.cl, embedded by Bazel

namespace {

std::string DeviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (cl().clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  cl().clGetDeviceInfo(device, what, size, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string PlatformString(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (cl().clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  cl().clGetPlatformInfo(platform, what, size, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/rill/opencl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/rill/opencl";
  return "";
}

// mkdir -p; false when the folder cannot be made.
bool MakeDirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      const std::string part = path.substr(0, i);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size > 0) cl().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

}  // namespace

std::string ClErrorName(cl_int err) {
  const char* name = "CL_ERROR";
  switch (err) {
    case CL_DEVICE_NOT_FOUND: name = "CL_DEVICE_NOT_FOUND"; break;
    case CL_DEVICE_NOT_AVAILABLE: name = "CL_DEVICE_NOT_AVAILABLE"; break;
    case CL_COMPILER_NOT_AVAILABLE: name = "CL_COMPILER_NOT_AVAILABLE"; break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: name = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
    case CL_OUT_OF_RESOURCES: name = "CL_OUT_OF_RESOURCES"; break;
    case CL_OUT_OF_HOST_MEMORY: name = "CL_OUT_OF_HOST_MEMORY"; break;
    case CL_BUILD_PROGRAM_FAILURE: name = "CL_BUILD_PROGRAM_FAILURE"; break;
    case CL_INVALID_VALUE: name = "CL_INVALID_VALUE"; break;
    case CL_INVALID_DEVICE: name = "CL_INVALID_DEVICE"; break;
    case CL_INVALID_BINARY: name = "CL_INVALID_BINARY"; break;
    case CL_INVALID_BUFFER_SIZE: name = "CL_INVALID_BUFFER_SIZE"; break;
    case CL_INVALID_MEM_OBJECT: name = "CL_INVALID_MEM_OBJECT"; break;
    case CL_INVALID_KERNEL_NAME: name = "CL_INVALID_KERNEL_NAME"; break;
    case CL_INVALID_ARG_INDEX: name = "CL_INVALID_ARG_INDEX"; break;
    case CL_INVALID_ARG_VALUE: name = "CL_INVALID_ARG_VALUE"; break;
    case CL_INVALID_ARG_SIZE: name = "CL_INVALID_ARG_SIZE"; break;
    case CL_INVALID_KERNEL_ARGS: name = "CL_INVALID_KERNEL_ARGS"; break;
    case CL_INVALID_WORK_GROUP_SIZE: name = "CL_INVALID_WORK_GROUP_SIZE"; break;
    case CL_INVALID_GLOBAL_WORK_SIZE: name = "CL_INVALID_GLOBAL_WORK_SIZE"; break;
    default: break;
  }
  return std::string(name) + " (" + std::to_string(err) + ")";
}

Status ClError(cl_int err, const std::string& what) {
  return InternalError("opencl: " + what + ": " + ClErrorName(err));
}

StatusOr<std::unique_ptr<ClRuntime>> ClRuntime::Create(const std::map<std::string, std::string>& options) {
  auto library = options.find("library");
  RILL_INF_RETURN_IF_ERROR(LoadClApi(library == options.end() ? "" : library->second).status());
  cl_uint num_platforms = 0;
  cl_int err = cl().clGetPlatformIDs(0, nullptr, &num_platforms);
  if (err != CL_SUCCESS || num_platforms == 0) {
    return UnavailableError(
        "opencl: no OpenCL platform (" + (err != CL_SUCCESS ? ClErrorName(err) : std::string("none listed")) +
        "): install a driver and its ICD file (/etc/OpenCL/vendors/*.icd, or a folder named by OCL_ICD_VENDORS)");
  }
  std::vector<cl_platform_id> platforms(num_platforms);
  cl().clGetPlatformIDs(num_platforms, platforms.data(), nullptr);
  // GPUs first, then the other devices, in platform order.
  std::vector<std::pair<cl_platform_id, cl_device_id>> gpus, others;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    if (cl().clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> devices(n);
    cl().clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      cl_device_type type = 0;
      cl().clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(type), &type, nullptr);
      ((type & CL_DEVICE_TYPE_GPU) ? gpus : others).emplace_back(p, d);
    }
  }
  gpus.insert(gpus.end(), others.begin(), others.end());
  if (gpus.empty()) return UnavailableError("opencl: the OpenCL platforms list no device");
  size_t index = 0;
  if (auto it = options.find("device"); it != options.end()) {
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != 0 || v < 0 || static_cast<size_t>(v) >= gpus.size()) {
      return InvalidArgumentError("opencl: option device=" + it->second + " is not a device index (0.." +
                                  std::to_string(gpus.size() - 1) + ")");
    }
    index = static_cast<size_t>(v);
  }
  std::unique_ptr<ClRuntime> rt(new ClRuntime);
  const cl_platform_id platform = gpus[index].first;
  rt->device_ = gpus[index].second;
  rt->context_ = cl().clCreateContext(nullptr, 1, &rt->device_, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) return ClError(err, "clCreateContext");
  int queues = 4;
  if (auto it = options.find("queues"); it != options.end()) {
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != 0 || v < 1 || v > 16) {
      return InvalidArgumentError("opencl: option queues=" + it->second + " is not a count from 1 to 16");
    }
    queues = static_cast<int>(v);
  }
  // gpu_profile: the queues time each command (the backend reads the events).
  rt->profiling_ = options.count("gpu_profile") > 0;
  const cl_command_queue_properties properties = rt->profiling_ ? CL_QUEUE_PROFILING_ENABLE : 0;
  for (int q = 0; q < queues; ++q) {
    rt->queues_.push_back(cl().clCreateCommandQueue(rt->context_, rt->device_, properties, &err));
    if (err != CL_SUCCESS) {
      rt->queues_.pop_back();
      return ClError(err, "clCreateCommandQueue");
    }
  }
  const std::string name = DeviceString(rt->device_, CL_DEVICE_NAME);
  const std::string driver = DeviceString(rt->device_, CL_DRIVER_VERSION);
  const std::string version = DeviceString(rt->device_, CL_DEVICE_VERSION);
  const std::string platform_name = PlatformString(platform, CL_PLATFORM_NAME);
  rt->description_ = name + " (" + platform_name + ", driver " + driver + ")";
  cl_uint units = 1;
  cl().clGetDeviceInfo(rt->device_, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, nullptr);
  rt->compute_units_ = static_cast<int>(std::max<cl_uint>(units, 1));
  if (auto it = options.find("compute_units"); it != options.end()) {
    rt->compute_units_ = std::max(1, std::atoi(it->second.c_str()));
  }
  rt->cache_key_base_ = platform_name + "\n" + name + "\n" + driver + "\n" + version + "\n";
  rt->cache_dir_ = DefaultCacheDir();
  if (auto it = options.find("cache_dir"); it != options.end()) rt->cache_dir_ = it->second == "none" ? "" : it->second;
  return rt;
}

namespace {
thread_local int tls_lane = 0;
}  // namespace

void ClRuntime::SelectLane(int lane) { tls_lane = lane; }
int ClRuntime::CurrentLane() { return tls_lane; }

cl_command_queue ClRuntime::queue() const {
  const int lane = tls_lane;
  return queues_[lane >= 0 && lane < static_cast<int>(queues_.size()) ? lane : 0];
}

ClRuntime::~ClRuntime() {
  for (auto& [half, program] : programs_) cl().clReleaseProgram(program);
  for (cl_command_queue q : queues_) cl().clReleaseCommandQueue(q);
  if (context_) cl().clReleaseContext(context_);
}

StatusOr<cl_program> ClRuntime::Program(bool half, bool* from_cache) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = programs_.find(half); it != programs_.end()) {
    if (from_cache) *from_cache = true;
    return it->second;
  }
  const std::string options = std::string("-cl-std=CL1.2") + (half ? " -DRILL_HALF" : "");
  StatusOr<cl_program> program = Build(options, from_cache);
  if (program.ok()) programs_[half] = *program;
  return program;
}

StatusOr<cl_program> ClRuntime::Build(const std::string& options, bool* from_cache) {
  if (from_cache) *from_cache = false;
  const std::string source = kNnKernels;
  char key[32];
  std::snprintf(key, sizeof(key), "%016llx",
                static_cast<unsigned long long>(Fnv1a(cache_key_base_ + options + "\n" + source)));
  const std::string path = cache_dir_.empty() ? "" : cache_dir_ + "/" + key + ".clbin";
  cl_int err = CL_SUCCESS;
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> binary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!binary.empty()) {
      const unsigned char* data = binary.data();
      const size_t size = binary.size();
      cl_int status = CL_SUCCESS;
      cl_program program = cl().clCreateProgramWithBinary(context_, 1, &device_, &size, &data, &status, &err);
      if (err == CL_SUCCESS && status == CL_SUCCESS &&
          cl().clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
        if (from_cache) *from_cache = true;
        return program;
      }
      if (program) cl().clReleaseProgram(program);  // stale or foreign: build from source
    }
  }
  const char* text = source.c_str();
  cl_program program = cl().clCreateProgramWithSource(context_, 1, &text, nullptr, &err);
  if (err != CL_SUCCESS) return ClError(err, "clCreateProgramWithSource");
  err = cl().clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = BuildLog(program, device_);
    cl().clReleaseProgram(program);
    return InternalError("opencl: building the kernels for " + description_ + " failed (" + ClErrorName(err) +
                         "):\n" + log.substr(0, 4000));
  }
  if (!path.empty() && MakeDirs(cache_dir_)) {
    size_t size = 0;
    cl().clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr);
    std::vector<unsigned char> binary(size);
    unsigned char* data = binary.data();
    if (size > 0 && cl().clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr) == CL_SUCCESS) {
      // Written to a temporary name and renamed: a concurrent reader never
      // sees half a binary.
      const std::string tmp = path + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
      std::ofstream out(tmp, std::ios::binary);
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
      out.close();
      if (out) std::rename(tmp.c_str(), path.c_str());
      else std::remove(tmp.c_str());
    }
  }
  return program;
}

}  // namespace rill::inference::opencl
