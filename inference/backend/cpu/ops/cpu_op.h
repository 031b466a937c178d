// Common base of the CPU backend's executions: typed access to the node's
// bindings, errors that name the node, and the kernel table the policy
// allows (kernels(): the optimized kernels are called through it only).
#ifndef RILL_INFERENCE_BACKEND_CPU_OPS_CPU_OP_H_
#define RILL_INFERENCE_BACKEND_CPU_OPS_CPU_OP_H_

#include <algorithm>
#include <memory>
#include <string>

#include "inference/backend/backend.h"
#include "inference/backend/cpu/cpu_backend.h"
#include "inference/backend/cpu/kernels/cpu_kernels.h"
#include "inference/backend/cpu/kernels/ref/conv_params.h"
#include "inference/backend/cpu/kernels/ref/kernel_params.h"
#include "inference/backend/cpu/kernels/ref/resize_coordinate.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::cpu {

class CpuOp : public CpuExecution {
 public:
  explicit CpuOp(const CpuArgs& args) : args_(args), kernels_(&CpuKernelsFor(args.algorithm)) {}
  // CPU kernels cannot fail once prepared.
  Status Run() final {
    Compute();
    return Status::Ok();
  }

 protected:
  virtual void Compute() = 0;

  // The reference-only table under AlgorithmPolicy::kReference, else the
  // CPU's.
  const CpuKernels& kernels() const { return *kernels_; }
  const ir::OpAttrs& attrs() const { return args_.node->attrs; }
  bool HasInput(size_t i) const { return i < args_.inputs.size() && args_.inputs[i] != nullptr; }
  const Shape& InShape(size_t i) const { return args_.inputs[i]->shape; }
  const Shape& OutShape(size_t i = 0) const { return args_.outputs[i]->shape; }
  const float* In(size_t i) const {
    return HasInput(i) ? static_cast<const float*>(args_.inputs[i]->host()) : nullptr;
  }
  float* Out(size_t i = 0) const { return static_cast<float*>(args_.outputs[i]->host()); }
  float* Scratch() const { return static_cast<float*>(scratch_.host()); }
  Status Error(const std::string& what) const {
    return InvalidArgumentError(args_.graph->NodeContext(*args_.node) + what);
  }
  Status NeedFloatInputs(size_t count) const {
    for (size_t i = 0; i < count && i < args_.inputs.size(); ++i) {
      if (args_.inputs[i] && args_.inputs[i]->dtype != DataType::kFloat32) {
        return UnimplementedError(args_.graph->NodeContext(*args_.node) + "input " + std::to_string(i) + " is " +
                                  DataTypeName(args_.inputs[i]->dtype) + ", only float32 is supported");
      }
    }
    return Status::Ok();
  }

  // The batch, input and output sizes of a one-input NHWC op (pooling,
  // resize) into its kernel parameters (fields batch, in_h, in_w, channels,
  // out_h, out_w).
  template <class Params>
  void SetNhwcSizes(Params* p) const {
    cpu::SetNhwcSizes(InShape(0), OutShape(), p);
  }

  ThreadPool* pool() const { return args_.backend ? args_.backend->pool() : nullptr; }
  int threads() const { return pool() ? pool()->num_threads() : 1; }
  // Runs f(task, thread) for tasks in [0, n) on the backend's threads.
  template <typename F>
  void ParallelFor(int n, F& f) const {
    if (ThreadPool* p = pool()) {
      p->ParallelFor(n, f);
    } else {
      for (int i = 0; i < n; ++i) f(i, 0);
    }
  }

  // Elementwise work below this many elements runs on the calling thread:
  // handing it out costs more than it saves.
  static constexpr long long kMinParallelElements = 16384;
  // f(begin, end) over [0, n) in pieces starting at multiples of `align`, two
  // per thread; one piece when `elements` (the work's size) is small.
  template <typename F>
  void ParallelRange(long long n, long long align, long long elements, F&& f) const {
    const int t = threads();
    if (t <= 1 || elements < kMinParallelElements || n <= align) {
      f(0LL, n);
      return;
    }
    const long long units = (n + align - 1) / align;
    const int pieces = static_cast<int>(units < 2LL * t ? units : 2LL * t);
    auto piece = [&](int i, int) {
      const long long begin = units * i / pieces * align;
      const long long end = std::min(n, units * (i + 1) / pieces * align);
      if (begin < end) f(begin, end);
    };
    ParallelFor(pieces, piece);
  }

  CpuArgs args_;

 private:
  const CpuKernels* kernels_;
};

// Factories, one per op family file.
std::unique_ptr<Execution> MakeConv2D(const CpuArgs& args);
std::unique_ptr<Execution> MakeDepthwiseConv2D(const CpuArgs& args);
std::unique_ptr<Execution> MakeTransposeConv2D(const CpuArgs& args);
std::unique_ptr<Execution> MakeSlice(const CpuArgs& args);
std::unique_ptr<Execution> MakeFullyConnected(const CpuArgs& args);
std::unique_ptr<Execution> MakeBinary(const CpuArgs& args);
std::unique_ptr<Execution> MakeUnary(const CpuArgs& args);
std::unique_ptr<Execution> MakePool(const CpuArgs& args);
std::unique_ptr<Execution> MakeMean(const CpuArgs& args);
std::unique_ptr<Execution> MakePad(const CpuArgs& args);
std::unique_ptr<Execution> MakeReshape(const CpuArgs& args);
std::unique_ptr<Execution> MakeConcatenation(const CpuArgs& args);
std::unique_ptr<Execution> MakeDepthToSpace(const CpuArgs& args);
std::unique_ptr<Execution> MakeResizeBilinear(const CpuArgs& args);
std::unique_ptr<Execution> MakeResizeNearest(const CpuArgs& args);
std::unique_ptr<Execution> MakeResizeBicubic(const CpuArgs& args);
std::unique_ptr<Execution> MakeSoftmax(const CpuArgs& args);
std::unique_ptr<Execution> MakeTranspose(const CpuArgs& args);
std::unique_ptr<Execution> MakeDepthwiseBlock(const CpuArgs& args);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_OPS_CPU_OP_H_
