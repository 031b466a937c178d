// MAX_ROI_POOL on the CPU: the reference kernel (channels innermost, a
// loop the compiler vectorizes) on the calling thread under
// AlgorithmPolicy::kReference, else over the rois on the backend's threads.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/max_roi_pool.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/max_roi_pool_ops.h"

namespace rill::inference::cpu {
namespace {

class MaxRoiPoolOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return reference_ ? "max_roi_pool_ref" : "max_roi_pool_rois"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(2));
    const auto* a = args_.node->attrs_as<ir::MaxRoiPoolAttrs>();
    if (a == nullptr) return Error("missing MaxRoiPoolAttrs");
    const Shape& x = InShape(0);
    p_.batch = x[0];
    p_.height = x[1];
    p_.width = x[2];
    p_.channels = x[3];
    p_.pooled_h = a->pooled_h;
    p_.pooled_w = a->pooled_w;
    p_.spatial_scale = a->spatial_scale;
    rois_ = InShape(1)[0];
    reference_ = args_.algorithm == AlgorithmPolicy::kReference;
    return Status::Ok();
  }
  void Compute() override {
    if (reference_) {
      MaxRoiPoolRef(p_, In(0), In(1), Out(), 0, rois_);
      return;
    }
    auto task = [&](int r, int) { MaxRoiPoolRef(p_, In(0), In(1), Out(), r, r + 1); };
    ParallelFor(rois_, task);
  }

 private:
  MaxRoiPoolParams p_;
  int rois_ = 0;
  bool reference_ = false;
};

std::unique_ptr<Execution> MakeMaxRoiPool(const CpuArgs& args) { return std::make_unique<MaxRoiPoolOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::MaxRoiPoolOp(), MakeMaxRoiPool);

}  // namespace
}  // namespace rill::inference::cpu
