// The part of every GPU backend's execution that needs no GPU API: its node
// and operands, errors that name the node, refusals (Unimplemented: the
// node runs on the CPU, the message naming the backend), and the checks and
// geometry steps several ops share. A backend's execution base (OpenCL's
// ClExecution, Vulkan's VkExecution) derives from it and adds buffers,
// kernels and launches.
#ifndef RILL_INFERENCE_BACKEND_GPU_GPU_EXECUTION_H_
#define RILL_INFERENCE_BACKEND_GPU_GPU_EXECUTION_H_

#include <initializer_list>
#include <string>

#include "inference/backend/backend.h"
#include "inference/backend/gpu/op_geometry.h"

namespace rill::inference::gpu {

class GpuExecution : public Execution {
 protected:
  // `backend`: the name refusals carry ("opencl").
  GpuExecution(const ExecutionArgs& args, std::string backend) : args_(args), backend_name_(std::move(backend)) {}

  const ir::OpAttrs& attrs() const { return args_.node->attrs; }
  bool HasInput(size_t i) const { return i < args_.inputs.size() && args_.inputs[i] != nullptr; }
  // Input i, or null where the node has none.
  const TensorBinding* OptionalInput(size_t i) const { return HasInput(i) ? args_.inputs[i] : nullptr; }
  const Shape& InShape(size_t i) const { return args_.inputs[i]->shape; }
  const Shape& OutShape() const { return args_.outputs[0]->shape; }
  Status Error(const std::string& what) const;
  Status Refuse(const std::string& what) const;

  // Float32 activations only (others run on the CPU); constant operands
  // (shapes, axes, sizes) may be integers.
  Status NeedFloatInputs() const;
  // A conv's filter (input 1) and bias (input 2, if any) constant, else a
  // refusal naming `what` ("non-constant filter").
  Status NeedConstantWeights(const char* what = "non-constant filter") const;
  // Each of the inputs `which` the node has constant, else a refusal.
  Status NeedConstantInputs(std::initializer_list<size_t> which, const char* what) const;

  // The ops' geometry from the node and its operands' shapes (op_geometry.h),
  // with the errors and refusals that come with it.
  // ADD, SUB, MUL, DIV, PRELU: shapes that do not broadcast are an error.
  Status MakeBinary(BroadcastGeometry* g) const;
  // MEAN over its constant axes (input 1); ranks over 6 are refused.
  Status MakeMean(MeanGeometry* g) const;
  // CONCATENATION of all the inputs.
  ConcatGeometry MakeConcat() const;

  // TRANSPOSE, SLICE, PAD, RESHAPE: ranks over 6 and a non-constant pad
  // value are refused; PAD's constant value (input 2) is read.
  Status MakeView(ViewGeometry* v) const;

  // A fused PRELU (optimize::FusePRelu): where the node has input `slope`,
  // a constant per-channel slope, sets *slope_input to it and *g to the
  // broadcast of the dense output with it; else *slope_input = -1.
  Status FusedPRelu(size_t slope, int* slope_input, BroadcastGeometry* g) const;

  ExecutionArgs args_;

 private:
  std::string backend_name_;
};

}  // namespace rill::inference::gpu

#endif  // RILL_INFERENCE_BACKEND_GPU_GPU_EXECUTION_H_
