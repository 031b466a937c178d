// GATHER_ELEMENTS on the CPU: the reference kernel over pieces of the output
// on the backend's threads.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/gather_elements.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/gather_elements_ops.h"

namespace rill::inference::cpu {
namespace {

class GatherElementsOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "gather_elements_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::GatherElementsAttrs>();
    if (attrs_ == nullptr) return Error("missing GatherElementsAttrs");
    if (InShape(1).size() > 8) return Error("rank above 8");
    return NeedFloatInputs(2);
  }
  void Compute() override {
    const long long n = NumElements(OutShape());
    ParallelRange(n, 64, n, [&](long long begin, long long end) {
      GatherElementsRef(InShape(0), In(0), InShape(1), In(1), attrs_->axis, Out(), begin, end);
    });
  }

 private:
  const ir::GatherElementsAttrs* attrs_ = nullptr;
};

std::unique_ptr<Execution> MakeGatherElements(const CpuArgs& args) {
  return std::make_unique<GatherElementsOp>(args);
}

const bool kRegistered = RegisterCpuOp(ir::GatherElementsOp(), MakeGatherElements);

}  // namespace
}  // namespace rill::inference::cpu
