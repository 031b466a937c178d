// The bitwise ops (ir/ops/bitwise_ops.h) on the CPU. Under
// AlgorithmPolicy::kReference the reference kernel on the calling thread;
// otherwise operands of the output's shape or scalars (the usual masks and
// shift amounts) run as one contiguous loop split over the session's
// threads, and other broadcasts run the reference kernel.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/bitwise.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/ops/bitwise_ops.h"

namespace rill::inference::cpu {
namespace {

class BitwiseOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return fast_ ? "bitwise_loop" : "bitwise_ref"; }
  Status Prepare() override {
    const size_t count = args_.inputs.size();
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(count));
    if (!ir::IsBitwiseOp(args_.node->type, &fn_)) return Error("not a bitwise op");
    const auto* a = args_.node->attrs_as<ir::BitwiseAttrs>();
    if (a == nullptr) return Error("missing BitwiseAttrs");
    attrs_ = *a;
    unary_ = fn_ == ir::BitwiseFn::kNot;
    n_ = NumElements(OutShape());
    fast_ = args_.algorithm != AlgorithmPolicy::kReference;
    for (size_t k = 0; k < count; ++k) {
      fast_ = fast_ && (InShape(k) == OutShape() || NumElements(InShape(k)) == 1);
    }
    a_step_ = NumElements(InShape(0)) == 1 && n_ != 1 ? 0 : 1;
    b_step_ = unary_ || (NumElements(InShape(1)) == 1 && n_ != 1) ? 0 : 1;
    return Status::Ok();
  }
  void Compute() override {
    const float* a = In(0);
    const float* b = unary_ ? nullptr : In(1);
    float* y = Out();
    if (!fast_) {
      BitwiseRef(fn_, attrs_, InShape(0), a, unary_ ? Shape{} : InShape(1), b, OutShape(), y);
      return;
    }
    ParallelRange(n_, 64, n_ * 2, [&](long long begin, long long end) {
      const ir::BitwiseAttrs& at = attrs_;
      const ir::BitwiseFn fn = fn_;
      for (long long i = begin; i < end; ++i) {
        const int64_t x = ir::BitwiseFromFloat(a[i * a_step_], at);
        const int64_t s = b == nullptr ? 0 : ir::BitwiseFromFloat(b[i * b_step_], at);
        y[i] = ir::BitwiseToFloat(ir::ApplyBitwise(fn, at, x, s), at);
      }
    });
  }

 private:
  ir::BitwiseFn fn_ = ir::BitwiseFn::kAnd;
  ir::BitwiseAttrs attrs_;
  bool unary_ = false, fast_ = false;
  long long n_ = 0, a_step_ = 1, b_step_ = 1;
};

std::unique_ptr<Execution> MakeBitwise(const CpuArgs& args) { return std::make_unique<BitwiseOp>(args); }

bool RegisterAll() {
  bool ok = true;
  for (int i = 0; i < ir::kNumBitwiseFns; ++i) {
    ok = RegisterCpuOp(ir::BitwiseOp(static_cast<ir::BitwiseFn>(i)), MakeBitwise) && ok;
  }
  return ok;
}

const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace rill::inference::cpu
