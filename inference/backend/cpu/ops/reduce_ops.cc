// MAX_POOL_2D, AVERAGE_POOL_2D and MEAN on the CPU.
#include "inference/backend/cpu/kernels/ref/mean.h"
#include "inference/backend/cpu/kernels/ref/pooling.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::cpu {
namespace {

class PoolOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  bool is_max() const { return args_.node->type == ir::OpType::kMaxPool2D; }
  std::string name() const override { return is_max() ? "max_pool2d_ref" : "average_pool2d_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    const Shape& y = OutShape();
    const ir::OpAttrs& a = attrs();
    p_ = PoolParams{};
    p_.batch = x[0];
    p_.in_h = x[1];
    p_.in_w = x[2];
    p_.channels = x[3];
    p_.out_h = y[1];
    p_.out_w = y[2];
    p_.kernel_h = a.kernel_h;
    p_.kernel_w = a.kernel_w;
    p_.stride_h = a.stride_h;
    p_.stride_w = a.stride_w;
    const bool explicit_pads = a.padding == ir::Padding::kExplicit;
    p_.pad_top = explicit_pads ? a.pad_top : ir::WindowPadBefore(p_.in_h, p_.out_h, p_.kernel_h, p_.stride_h, 1, a.padding);
    p_.pad_left = explicit_pads ? a.pad_left : ir::WindowPadBefore(p_.in_w, p_.out_w, p_.kernel_w, p_.stride_w, 1, a.padding);
    p_.activation = ToFused(a.activation);
    return Status::Ok();
  }
  void Run() override {
    if (is_max()) MaxPool2DRef(p_, In(0), Out());
    else AveragePool2DRef(p_, In(0), Out());
  }

 private:
  PoolParams p_;
};

class MeanOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "mean_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const Shape& x = InShape(0);
    if (x.size() > static_cast<size_t>(ReduceParams::kMaxRank)) return Error("rank > 6");
    std::vector<int> axes;
    RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(*args_.graph, *args_.node, 1, &axes));
    p_ = ReduceParams{};
    p_.rank = static_cast<int>(x.size());
    for (int d = 0; d < p_.rank; ++d) p_.in_dims[d] = x[d];
    for (int ax : axes) p_.reduce[(ax + p_.rank) % p_.rank] = true;
    return Status::Ok();
  }
  void Run() override { MeanRef(p_, In(0), Out()); }

 private:
  ReduceParams p_;
};

}  // namespace

std::unique_ptr<Execution> MakePool(const ExecutionArgs& args) { return std::make_unique<PoolOp>(args); }
std::unique_ptr<Execution> MakeMean(const ExecutionArgs& args) { return std::make_unique<MeanOp>(args); }

}  // namespace rill::inference::cpu
