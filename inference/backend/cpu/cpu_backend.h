// The CPU backend: host memory, every op of the IR, kernels chosen inside
// the executions for the CPU found (CPUID / HWCAP) when the policy allows.
// What only the CPU has lives here, not in the generic seam: the thread pool
// its executions split work over, and the CPU extension of an execution
// (writing an output as a channel slice of a wider tensor).
//
// Ops register their CPU execution beside their code:
//   const bool kRegistered = RegisterCpuOp(ir::OpType::kConv2D, MakeConv2D);
#ifndef RILL_INFERENCE_BACKEND_CPU_CPU_BACKEND_H_
#define RILL_INFERENCE_BACKEND_CPU_CPU_BACKEND_H_

#include <memory>
#include <string>

#include "inference/backend/backend.h"
#include "inference/runtime/thread_pool.h"

namespace rill::inference::cpu {

class CpuBackend;

// ExecutionArgs plus the CPU backend the execution runs on.
struct CpuArgs : ExecutionArgs {
  CpuBackend* backend = nullptr;
};

// The CPU extension of Execution.
class CpuExecution : public Execution {
 public:
  // Asks the execution to write its (NHWC) output with `floats` between
  // consecutive pixels instead of the channel count (0: dense again), so
  // that the output can be a channel slice of a wider tensor: the memory
  // planner elides a channel CONCATENATION by pointing its inputs into its
  // output. Called after Prepare (which resets it); false when not supported.
  virtual bool SetOutputPixelStride(int floats) { return floats == 0; }
};

// The CPU extension of an execution, or nullptr for other backends'.
inline CpuExecution* AsCpuExecution(Execution* e) { return dynamic_cast<CpuExecution*>(e); }

using CpuOpFactory = std::unique_ptr<Execution> (*)(const CpuArgs& args);
// Registers the CPU execution of an op (one factory per op type; a later
// registration replaces an earlier one). Returns true to initialise a static.
bool RegisterCpuOp(ir::OpType type, CpuOpFactory factory);

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const SessionConfig& config);
  ~CpuBackend() override;
  std::string name() const override { return kCpuBackend; }
  bool host_memory() const override { return true; }
  bool computes_on_host() const override { return true; }
  void SetThreadBudget(int threads) override;

  StatusOr<std::unique_ptr<Execution>> CreateExecution(const ExecutionArgs& args) override;

  // The threads executions split their work over (SetThreadBudget's count;
  // 1 before it is called).
  ThreadPool* pool() const { return pool_.get(); }

 private:
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_CPU_BACKEND_H_
