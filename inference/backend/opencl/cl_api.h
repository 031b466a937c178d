// The OpenCL entry points, loaded with dlopen() from the ICD loader
// (libOpenCL.so.1) when a session first asks for the opencl backend, as MNN
// does: a binary that links the backend still starts on a machine without
// OpenCL, and asking for it there is a clear error instead of a loader
// failure at start-up.
#ifndef RILL_INFERENCE_BACKEND_OPENCL_CL_API_H_
#define RILL_INFERENCE_BACKEND_OPENCL_CL_API_H_

#include <CL/cl.h>

#include <string>

#include "rill/inference/status.h"

namespace rill::inference::opencl {

#define RILL_CL_FUNCTIONS(X)                                                                                  \
  X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext)           \
  X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clCreateProgramWithSource)          \
  X(clCreateProgramWithBinary) X(clBuildProgram) X(clGetProgramBuildInfo) X(clGetProgramInfo)                 \
  X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg) X(clCreateBuffer)               \
  X(clReleaseMemObject) X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer) X(clEnqueueNDRangeKernel) X(clFinish) \
  X(clGetEventProfilingInfo) X(clReleaseEvent) X(clWaitForEvents) X(clGetKernelInfo)                        \
  X(clGetKernelWorkGroupInfo) X(clCreateImage) X(clEnqueueReadImage) X(clFlush)

struct ClApi {
#define RILL_CL_MEMBER(name) decltype(&::name) name = nullptr;
  RILL_CL_FUNCTIONS(RILL_CL_MEMBER)
#undef RILL_CL_MEMBER
};

// Loads the API once per process (`library`: a path or soname; empty:
// libOpenCL.so.1, then libOpenCL.so). Unavailable, naming the library and
// dlerror(), when it cannot be loaded.
StatusOr<const ClApi*> LoadClApi(const std::string& library = "");
// The loaded API; only after LoadClApi succeeded.
const ClApi& cl();

}  // namespace rill::inference::opencl

#endif  // RILL_INFERENCE_BACKEND_OPENCL_CL_API_H_
