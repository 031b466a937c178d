// The CPU backend's registry of op executions and its thread pool.
#include "inference/backend/cpu/cpu_backend.h"

#include <map>
#include <mutex>

namespace rill::inference::cpu {
namespace {

struct OpTable {
  std::mutex mu;
  std::map<ir::OpType, CpuOpFactory> factories;
};

OpTable& GetOpTable() {
  static OpTable* table = new OpTable;  // never destroyed: static-init safe
  return *table;
}

StatusOr<std::unique_ptr<Backend>> CreateCpu(const BackendContext& context) {
  return std::unique_ptr<Backend>(new CpuBackend(*context.config));
}

const bool kRegistered = RegisterBackend(kCpuBackend, CreateCpu);

}  // namespace

bool RegisterCpuOp(ir::OpType type, CpuOpFactory factory) {
  OpTable& t = GetOpTable();
  std::lock_guard<std::mutex> lock(t.mu);
  t.factories[type] = factory;
  return true;
}

CpuBackend::CpuBackend(const SessionConfig& config)
    : spin_us_(config.pool_spin_us), pool_(std::make_unique<ThreadPool>(1, spin_us_)) {
  (void)kRegistered;
}
CpuBackend::~CpuBackend() = default;

void CpuBackend::SetThreadBudget(int threads) {
  if (threads < 1) threads = 1;
  if (pool_->num_threads() != threads) pool_ = std::make_unique<ThreadPool>(threads, spin_us_);
}

StatusOr<std::unique_ptr<Execution>> CpuBackend::CreateExecution(const ExecutionArgs& args) {
  CpuOpFactory factory = nullptr;
  {
    OpTable& t = GetOpTable();
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.factories.find(args.node->type);
    if (it != t.factories.end()) factory = it->second;
  }
  if (factory == nullptr) {
    // DEQUANTIZE and DENSIFY are folded at import when their input is constant.
    return UnimplementedError(args.graph->NodeContext(*args.node) + "not supported by the cpu backend" +
                              (args.node->type == ir::OpType::kDequantize || args.node->type == ir::OpType::kDensify
                                   ? " on non-constant inputs"
                                   : ""));
  }
  CpuArgs cpu_args;
  static_cast<ExecutionArgs&>(cpu_args) = args;
  cpu_args.backend = this;
  return factory(cpu_args);
}

}  // namespace rill::inference::cpu
