// ADD, MUL (broadcasting) and the unary activations on the CPU.
#include "inference/backend/cpu/kernels/ref/activations.h"
#include "inference/backend/cpu/kernels/ref/add.h"
#include "inference/backend/cpu/kernels/ref/mul.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference::cpu {
namespace {

class BinaryOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return args_.node->type == ir::OpType::kAdd ? "add_ref" : "mul_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(2));
    if (!MakeBroadcastParams(InShape(0), InShape(1), &p_)) return Error("shapes do not broadcast");
    p_.activation = ToFused(attrs().activation);
    return Status::Ok();
  }
  void Run() override {
    if (args_.node->type == ir::OpType::kAdd) AddRef(p_, In(0), In(1), Out());
    else MulRef(p_, In(0), In(1), Out());
  }

 private:
  BroadcastParams p_;
};

class UnaryOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override {
    switch (args_.node->type) {
      case ir::OpType::kRelu: return "relu_ref";
      case ir::OpType::kRelu6: return "relu6_ref";
      case ir::OpType::kHardSwish: return "hard_swish_ref";
      default: return "logistic_ref";
    }
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    n_ = NumElements(InShape(0));
    return Status::Ok();
  }
  void Run() override {
    switch (args_.node->type) {
      case ir::OpType::kRelu: ReluRef(n_, In(0), Out()); break;
      case ir::OpType::kRelu6: Relu6Ref(n_, In(0), Out()); break;
      case ir::OpType::kHardSwish: HardSwishRef(n_, In(0), Out()); break;
      default: LogisticRef(n_, In(0), Out()); break;
    }
  }

 private:
  long long n_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeBinary(const ExecutionArgs& args) { return std::make_unique<BinaryOp>(args); }
std::unique_ptr<Execution> MakeUnary(const ExecutionArgs& args) { return std::make_unique<UnaryOp>(args); }

}  // namespace rill::inference::cpu
