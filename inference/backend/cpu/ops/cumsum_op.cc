// CUMSUM on the CPU: the reference kernel over the rows outside the axis on
// the backend's threads (its inner loop adds whole rows of contiguous
// elements, which the compiler vectorizes).
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/cumsum.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/cumsum_ops.h"

namespace rill::inference::cpu {
namespace {

class CumSumOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "cumsum_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::CumSumAttrs>();
    if (attrs_ == nullptr) return Error("missing CumSumAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    outer_ = 1;
    inner_ = 1;
    for (int d = 0; d < attrs_->axis; ++d) outer_ *= x[d];
    for (size_t d = attrs_->axis + 1; d < x.size(); ++d) inner_ *= x[d];
    n_ = x[attrs_->axis];
    return Status::Ok();
  }
  void Compute() override {
    ParallelRange(outer_, 1, outer_ * n_ * inner_, [&](long long begin, long long end) {
      CumSumRef(*attrs_, n_, inner_, In(0), Out(), begin, end);
    });
  }

 private:
  const ir::CumSumAttrs* attrs_ = nullptr;
  long long outer_ = 1, n_ = 1, inner_ = 1;
};

std::unique_ptr<Execution> MakeCumSum(const CpuArgs& args) { return std::make_unique<CumSumOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::CumSumOp(), MakeCumSum);

}  // namespace
}  // namespace rill::inference::cpu
