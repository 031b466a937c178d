// DET on the CPU: the reference kernel, on the calling thread, its scratch
// (one matrix in double) sized in Prepare.
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/det.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/det_ops.h"

namespace rill::inference::cpu {
namespace {

class DetOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "det_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    m_ = x.back();
    count_ = NumElements(OutShape());
    scratch_.resize(static_cast<size_t>(m_ * m_));
    return Status::Ok();
  }
  void Compute() override { DetRef(m_, In(0), Out(), 0, count_, scratch_.data()); }

 private:
  long long m_ = 0, count_ = 0;
  std::vector<double> scratch_;
};

std::unique_ptr<Execution> MakeDet(const CpuArgs& args) { return std::make_unique<DetOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::DetOp(), MakeDet);

}  // namespace
}  // namespace rill::inference::cpu
