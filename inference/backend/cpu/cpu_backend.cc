// The CPU backend: maps each IR op to its execution. Optimized kernels are
// chosen inside the executions (by CPUID) when the policy allows.
#include "inference/backend/backend.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference {
namespace {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const SessionConfig& config) : config_(config) {}
  std::string name() const override { return "cpu"; }

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
      case OpType::kSoftmax: return cpu::MakeSoftmax(args);
      case OpType::kTranspose: return cpu::MakeTranspose(args);
      case OpType::kDequantize:
      case OpType::kDensify:
        break;  // folded at import when their input is constant
    }
    return UnimplementedError(args.graph->NodeContext(*args.node) + "not supported by the cpu backend on non-constant inputs");
  }

 private:
  SessionConfig config_;
};

}  // namespace

std::unique_ptr<Backend> CreateCpuBackend(const SessionConfig& config) {
  return std::make_unique<CpuBackend>(config);
}

}  // namespace rill::inference
