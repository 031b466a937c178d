// GROUP_NORM on the CPU: the reference kernel over (batch, group) pairs on
// the backend's threads (two passes over each group's values, in double).
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/group_norm.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/group_norm_ops.h"

namespace rill::inference::cpu {
namespace {

class GroupNormOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "group_norm_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::GroupNormAttrs>();
    if (attrs_ == nullptr) return Error("missing GroupNormAttrs");
    return NeedFloatInputs(3);
  }
  void Compute() override {
    const Shape& x = InShape(0);
    auto task = [&](int t, int) {
      GroupNormRef(*attrs_, x, In(0), In(1), In(2), Out(), t / attrs_->groups, t % attrs_->groups);
    };
    ParallelFor(x[0] * attrs_->groups, task);
  }

 private:
  const ir::GroupNormAttrs* attrs_ = nullptr;
};

std::unique_ptr<Execution> MakeGroupNorm(const CpuArgs& args) { return std::make_unique<GroupNormOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::GroupNormOp(), MakeGroupNorm);

}  // namespace
}  // namespace rill::inference::cpu
