// GRID_SAMPLE on the CPU: the reference kernel over (batch, output row)
// pieces on the backend's threads.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/grid_sample.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/grid_sample_ops.h"

namespace rill::inference::cpu {
namespace {

class GridSampleOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "grid_sample_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::GridSampleAttrs>();
    if (attrs_ == nullptr) return Error("missing GridSampleAttrs");
    return NeedFloatInputs(2);
  }
  void Compute() override {
    const Shape& gs = InShape(1);
    auto task = [&](int t, int) {
      GridSampleRef(*attrs_, InShape(0), gs, In(0), In(1), Out(), t / gs[1], t % gs[1], t % gs[1] + 1);
    };
    ParallelFor(gs[0] * gs[1], task);
  }

 private:
  const ir::GridSampleAttrs* attrs_ = nullptr;
};

std::unique_ptr<Execution> MakeGridSample(const CpuArgs& args) { return std::make_unique<GridSampleOp>(args); }

const bool kRegistered = RegisterCpuOp(ir::GridSampleOp(), MakeGridSample);

}  // namespace
}  // namespace rill::inference::cpu
