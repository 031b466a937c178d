// LOCAL_RESPONSE_NORM on the CPU: the reference kernel over the outer rows
// (batch, or every pixel of a channels-last value) on the backend's threads.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/lrn.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/lrn_ops.h"

namespace rill::inference::cpu {
namespace {

class LrnOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "local_response_norm_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::LrnAttrs>();
    if (attrs_ == nullptr) return Error("missing LrnAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    const long long n = NumElements(x);
    channels_ = attrs_->channels_last ? x.back() : x[1];
    inner_ = attrs_->channels_last ? 1 : n / (static_cast<long long>(x[0]) * channels_);
    outer_ = channels_ == 0 ? 0 : n / (static_cast<long long>(channels_) * inner_);
    return Status::Ok();
  }
  void Compute() override {
    ParallelRange(outer_, 1, outer_ * channels_ * inner_, [&](long long begin, long long end) {
      LrnRef(*attrs_, outer_, channels_, inner_, In(0), Out(), begin, end);
    });
  }

 private:
  const ir::LrnAttrs* attrs_ = nullptr;
  int channels_ = 0;
  long long inner_ = 1, outer_ = 0;
};

std::unique_ptr<Execution> MakeLrn(const CpuArgs& args) { return std::make_unique<LrnOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::LrnOp(), MakeLrn);

}  // namespace
}  // namespace rill::inference::cpu
