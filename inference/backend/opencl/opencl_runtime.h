// The OpenCL device a backend runs on: platform and device choice, context,
// one in-order command queue, and the kernels' program, built once per
// precision and cached on disk keyed by device, driver, options and source
// (a second process loads the binary instead of compiling: PoCL and NVIDIA
// take 0.3-3 s to build it).
#ifndef RILL_INFERENCE_BACKEND_OPENCL_OPENCL_RUNTIME_H_
#define RILL_INFERENCE_BACKEND_OPENCL_OPENCL_RUNTIME_H_

#include "inference/backend/opencl/cl_api.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rill/inference/status.h"

namespace rill::inference::opencl {

// "CL_OUT_OF_RESOURCES (-5)".
std::string ClErrorName(cl_int err);
// An Internal error "opencl: WHAT: CL_...".
Status ClError(cl_int err, const std::string& what);

class ClRuntime {
 public:
  // Options (SessionConfig::backend_options "opencl.KEY"):
  //   device     index into the devices of all platforms, GPUs listed first
  //              (default 0: the first GPU, else the first device);
  //   library    the OpenCL library to load (default libOpenCL.so.1);
  //   compute_units  the device's count as the kernels' work split sees it
  //              (default: CL_DEVICE_MAX_COMPUTE_UNITS; tests set a GPU's);
  //   cache_dir  where built programs are kept ("" or "none": no cache;
  //              default $XDG_CACHE_HOME/rill/opencl or ~/.cache/rill/opencl);
  //   queues     in-order command queues (lanes) the session may run
  //              branches on at once (default 4, 1..16);
  //   gpu_profile  (a file, which the backend writes) queues with
  //              CL_QUEUE_PROFILING_ENABLE.
  // An error naming what is missing when there is no OpenCL platform or
  // device (no ICD installed, no driver).
  static StatusOr<std::unique_ptr<ClRuntime>> Create(const std::map<std::string, std::string>& options);
  ~ClRuntime();

  cl_context context() const { return context_; }
  cl_device_id device() const { return device_; }
  // The queue of the calling thread's lane (SelectLane; lane 0 unless the
  // thread chose another).
  cl_command_queue queue() const;
  int num_queues() const { return static_cast<int>(queues_.size()); }
  // Makes `lane` the calling thread's lane (clamped to the queues there are).
  static void SelectLane(int lane);
  static int CurrentLane();
  // "NVIDIA H100 80GB HBM3 (NVIDIA CUDA, driver 550.54)".
  const std::string& description() const { return description_; }
  int compute_units() const { return compute_units_; }
  bool profiling() const { return profiling_; }

  // The kernels' program for fp32 or half storage (RILL_HALF), built on
  // first use; `from_cache` tells whether it came from the disk cache.
  StatusOr<cl_program> Program(bool half, bool* from_cache = nullptr);

 private:
  ClRuntime() = default;
  StatusOr<cl_program> Build(const std::string& options, bool* from_cache);

  cl_context context_ = nullptr;
  cl_device_id device_ = nullptr;
  std::vector<cl_command_queue> queues_;
  std::string description_, cache_key_base_, cache_dir_;
  int compute_units_ = 1;
  bool profiling_ = false;
  std::mutex mu_;
  std::map<bool, cl_program> programs_;
};

}  // namespace rill::inference::opencl

#endif  // RILL_INFERENCE_BACKEND_OPENCL_OPENCL_RUNTIME_H_
