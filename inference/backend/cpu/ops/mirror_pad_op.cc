// MIRROR_PAD on the CPU: the reference kernel over output rows on the
// backend's threads.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/mirror_pad.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/mirror_pad_ops.h"

namespace rill::inference::cpu {
namespace {

class MirrorPadOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "mirror_pad_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::MirrorPadAttrs>();
    if (attrs_ == nullptr) return Error("missing MirrorPadAttrs");
    return NeedFloatInputs(1);
  }
  void Compute() override {
    const Shape& y = OutShape();
    const long long rows = NumElements(y) / y.back();
    ParallelRange(rows, 1, NumElements(y),
                  [&](long long begin, long long end) { MirrorPadRef(*attrs_, InShape(0), In(0), Out(), begin, end); });
  }

 private:
  const ir::MirrorPadAttrs* attrs_ = nullptr;
};

std::unique_ptr<Execution> MakeMirrorPad(const CpuArgs& args) { return std::make_unique<MirrorPadOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::MirrorPadOp(), MakeMirrorPad);

}  // namespace
}  // namespace rill::inference::cpu
