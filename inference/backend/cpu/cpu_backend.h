// The CPU backend: host memory, every op of the IR, kernels chosen inside
// the executions for the CPU found (CPUID / HWCAP) when the policy allows.
// What only the CPU has lives here, not in the generic seam: the thread pool
// its executions split work over, and the CPU extension of an execution
// (writing an output as a channel slice of a wider tensor).
//
// Precision on the CPU:
// - kFp16: the layers on the AVX-512 GEMM (1x1 and im2col convs, MobileNet's
//   fused blocks, FULLY_CONNECTED) keep half the weight bytes, converted to
//   fp32 in the microkernel; FULLY_CONNECTED at batch 1 reads half the bytes
//   per run. Winograd, sliding window, depthwise, Strassen, and CPUs without
//   AVX-512 keep fp32 weights.
// - kBf16: the same GEMM layers round weights and input activations to
//   bfloat16 and run vdpbf16ps (two multiplies per lane) where the CPU has
//   AVX512-BF16 at full rate (AMD Zen 4; a measured check at start-up keeps
//   fp32 on CPUs with a half-rate unit such as Sapphire Rapids). Winograd
//   F(4,3)/F(6,3), sliding-window, depthwise and elementwise stay fp32.
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

// The CPU's executions: every one answers StridedOutput (the x86 CONV_2D
// kernels take a pixel stride; the others say no).
class CpuExecution : public Execution, public StridedOutput {
 public:
  bool SetOutputPixelStride(int floats) override { return floats == 0; }
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
  const int spin_us_;  // SessionConfig::pool_spin_us
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_CPU_BACKEND_H_
