// The CPU backend: maps each IR op to its execution. Optimized kernels are
// chosen inside the executions (by CPUID) when the policy allows. The same
// executions, behind a device boundary, make the cpu_device backend.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "inference/backend/backend.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference {
namespace {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const SessionConfig& config) : config_(config) {}
  std::string name() const override { return "cpu"; }
  bool host_memory() const override { return true; }

  StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) override {
    using ir::OpType;
    switch (args.node->type) {
      case OpType::kConv2D: return cpu::MakeConv2D(args);
      case OpType::kDepthwiseConv2D: return cpu::MakeDepthwiseConv2D(args);
      case OpType::kTransposeConv2D: return cpu::MakeTransposeConv2D(args);
      case OpType::kFullyConnected: return cpu::MakeFullyConnected(args);
      case OpType::kAdd:
      case OpType::kSub:
      case OpType::kMul:
      case OpType::kDiv:
      case OpType::kPRelu: return cpu::MakeBinary(args);
      case OpType::kClamp:
      case OpType::kLeakyRelu:
      case OpType::kHardSigmoid:
      case OpType::kSilu:
      case OpType::kRelu:
      case OpType::kRelu6:
      case OpType::kHardSwish:
      case OpType::kLogistic: return cpu::MakeUnary(args);
      case OpType::kMaxPool2D:
      case OpType::kAveragePool2D: return cpu::MakePool(args);
      case OpType::kMean: return cpu::MakeMean(args);
      case OpType::kPad: return cpu::MakePad(args);
      case OpType::kReshape: return cpu::MakeReshape(args);
      case OpType::kConcatenation: return cpu::MakeConcatenation(args);
      case OpType::kDepthToSpace: return cpu::MakeDepthToSpace(args);
      case OpType::kResizeBilinear: return cpu::MakeResizeBilinear(args);
      case OpType::kResizeNearest: return cpu::MakeResizeNearest(args);
      case OpType::kResizeBicubic: return cpu::MakeResizeBicubic(args);
      case OpType::kSoftmax: return cpu::MakeSoftmax(args);
      case OpType::kTranspose: return cpu::MakeTranspose(args);
      case OpType::kSlice: return cpu::MakeSlice(args);
      case OpType::kDepthwiseBlock: return cpu::MakeDepthwiseBlock(args);
      case OpType::kDequantize:
      case OpType::kDensify:
        break;  // folded at import when their input is constant
    }
    return UnimplementedError(args.graph->NodeContext(*args.node) + "not supported by the cpu backend on non-constant inputs");
  }

 private:
  SessionConfig config_;
};

// Memory of the cpu_device backend: an allocation of its own, never the host
// arena. Its addresses are only handed to this backend's executions and
// transfers (the session does not read or write them).
class DeviceBuffer : public Buffer {
 public:
  explicit DeviceBuffer(std::unique_ptr<Buffer> memory) : memory_(std::move(memory)) {}
  size_t size() const override { return memory_->size(); }
  void* At(size_t offset) override { return memory_->At(offset); }

 private:
  std::unique_ptr<Buffer> memory_;
};

class CpuDeviceBackend : public CpuBackend {
 public:
  explicit CpuDeviceBackend(const SessionConfig& config)
      : CpuBackend(config), ops_(config.cpu_device_ops) {}
  std::string name() const override { return "cpu_device"; }
  bool host_memory() const override { return false; }

  StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) override {
    const std::string op = ir::OpTypeName(args.node->type);
    if (!ops_.empty() && std::find(ops_.begin(), ops_.end(), op) == ops_.end()) {
      return UnimplementedError(args.graph->NodeContext(*args.node) + op + " is not in cpu_device_ops");
    }
    return CpuBackend::CreateExecution(args);
  }

  std::unique_ptr<Buffer> AllocateBuffer(size_t bytes) override {
    std::unique_ptr<Buffer> memory = AllocateHostBuffer(bytes);
    if (!memory) return nullptr;
    return std::make_unique<DeviceBuffer>(std::move(memory));
  }
  void CopyToHost(const TensorBinding& device, void* host, size_t bytes) override {
    std::memcpy(host, device.data, bytes);
  }
  void CopyFromHost(const void* host, const TensorBinding& device, size_t bytes) override {
    std::memcpy(device.data, host, bytes);
  }

 private:
  std::vector<std::string> ops_;
};

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend(const SessionConfig& config) {
  return std::make_unique<CpuBackend>(config);
}

std::unique_ptr<Backend> CreateCpuDeviceBackend(const SessionConfig& config) {
  return std::make_unique<CpuDeviceBackend>(config);
}

StatusOr<std::unique_ptr<Backend>> CreateBackend(BackendKind kind, const SessionConfig& config) {
  switch (kind) {
    case BackendKind::kCpu: return CreateCpuBackend(config);
    case BackendKind::kCpuDevice: return CreateCpuDeviceBackend(config);
  }
  return UnimplementedError(std::string("backend ") + BackendKindName(kind) + " is not built in");
}

}  // namespace rill::inference
