// UNIQUE on the CPU: the reference kernel, its scratch sized in Prepare (a
// run allocates nothing); every output but the inverse indices reports its
// actual size (DataDependentOutput).
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/unique.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/unique_ops.h"

namespace rill::inference::cpu {
namespace {

class UniqueOp : public CpuOp, public DataDependentOutput {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "unique_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::UniqueAttrs>();
    if (attrs_ == nullptr) return Error("missing UniqueAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    outer_ = 1;
    inner_ = 1;
    if (attrs_->axis < 0) {
      n_ = NumElements(x);
    } else {
      for (int d = 0; d < attrs_->axis; ++d) outer_ *= x[d];
      for (size_t d = attrs_->axis + 1; d < x.size(); ++d) inner_ *= x[d];
      n_ = x[attrs_->axis];
    }
    scratch_.resize(static_cast<size_t>(6 * n_));
    actual_ = OutShape();
    return Status::Ok();
  }
  void Compute() override {
    const long long count = UniqueRef(*attrs_, outer_, n_, inner_, In(0), scratch_.data(), Out());
    switch (attrs_->output) {
      case ir::UniqueAttrs::Output::kValues:
        actual_[attrs_->axis < 0 ? 0 : attrs_->axis] = static_cast<int>(count);
        break;
      case ir::UniqueAttrs::Output::kIndices:
      case ir::UniqueAttrs::Output::kCounts:
        actual_[0] = static_cast<int>(count);
        break;
      case ir::UniqueAttrs::Output::kInverse:
        break;
    }
  }
  const Shape& ActualOutputShape() const override { return actual_; }

 private:
  const ir::UniqueAttrs* attrs_ = nullptr;
  long long outer_ = 1, n_ = 0, inner_ = 1;
  std::vector<long long> scratch_;
  Shape actual_;
};

std::unique_ptr<Execution> MakeUnique(const CpuArgs& args) { return std::make_unique<UniqueOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::UniqueOp(), MakeUnique);

}  // namespace
}  // namespace rill::inference::cpu
