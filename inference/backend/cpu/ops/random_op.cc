// RANDOM on the CPU: the reference kernel on the calling thread (one
// generator, values in element order whatever the thread count), the
// generator seeded at the first Prepare and advanced by every run.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/random.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/random_ops.h"

namespace rill::inference::cpu {
namespace {

class RandomOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "random_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::RandomAttrs>();
    if (attrs_ == nullptr) return Error("missing RandomAttrs");
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    if (attrs_->kind == ir::RandomAttrs::Kind::kBernoulli && !HasInput(0)) return Error("needs its probabilities");
    if (attrs_->kind == ir::RandomAttrs::Kind::kMultinomial) {
      if (!HasInput(0)) return Error("needs its logits");
      cdf_.resize(static_cast<size_t>(InShape(0)[1]));  // a run allocates nothing
    }
    if (!seeded_) {
      gen_.seed(attrs_->seed);
      seeded_ = true;
    }
    return Status::Ok();
  }
  void Compute() override {
    if (attrs_->kind == ir::RandomAttrs::Kind::kMultinomial) {
      MultinomialRef(&gen_, In(0), InShape(0)[0], InShape(0)[1], OutShape()[1], Out(), cdf_.data());
      return;
    }
    RandomRef(*attrs_, &gen_, In(0), NumElements(OutShape()), Out());
  }

 private:
  const ir::RandomAttrs* attrs_ = nullptr;
  std::minstd_rand0 gen_;
  bool seeded_ = false;
  std::vector<double> cdf_;  // kMultinomial's cumulative sums of one row
};

std::unique_ptr<Execution> MakeRandom(const CpuArgs& args) { return std::make_unique<RandomOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::RandomOp(), MakeRandom);

}  // namespace
}  // namespace rill::inference::cpu
