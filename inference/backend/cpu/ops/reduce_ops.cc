// MAX_POOL_2D, AVERAGE_POOL_2D and MEAN on the CPU.
#include <algorithm>
#include <string>
#include <vector>

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
  std::string name() const override {
    return std::string(is_max() ? "max_pool2d_" : "average_pool2d_") + (fast_ ? kernels().pool.isa : "ref");
  }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    const ir::OpAttrs& a = attrs();
    p_ = PoolParams{};
    SetNhwcSizes(&p_);
    p_.kernel_h = a.kernel_h;
    p_.kernel_w = a.kernel_w;
    p_.stride_h = a.stride_h;
    p_.stride_w = a.stride_w;
    const bool explicit_pads = a.padding == ir::Padding::kExplicit;
    p_.pad_top = explicit_pads ? a.pad_top : ir::WindowPadBefore(p_.in_h, p_.out_h, p_.kernel_h, p_.stride_h, 1, a.padding);
    p_.pad_left = explicit_pads ? a.pad_left : ir::WindowPadBefore(p_.in_w, p_.out_w, p_.kernel_w, p_.stride_w, 1, a.padding);
    p_.activation = ToFused(a.activation);
    fast_ = (is_max() ? kernels().pool.max_rows : kernels().pool.average_rows) != nullptr;
    return Status::Ok();
  }
  void Compute() override {
    if (!fast_) {
      if (is_max()) MaxPool2DRef(p_, In(0), Out());
      else AveragePool2DRef(p_, In(0), Out());
      return;
    }
    const int rows = p_.batch * p_.out_h;
    const int chunks = std::min(rows, threads() * 2);
    auto chunk = [this, rows, chunks](int c, int) {
      const int begin = rows * c / chunks, end = rows * (c + 1) / chunks;
      if (is_max()) kernels().pool.max_rows(p_, In(0), Out(), begin, end);
      else kernels().pool.average_rows(p_, In(0), Out(), begin, end);
    };
    ParallelFor(chunks, chunk);
  }

 private:
  PoolParams p_;
  bool fast_ = false;
};

class MeanOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return std::string("mean_") + (fast_ ? kernels().pool.isa : "ref"); }
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
    fast_ = kernels().pool.mean != nullptr && kernels().pool.plan_mean(p_, &plan_);
    return Status::Ok();
  }
  void Compute() override {
    if (fast_) kernels().pool.mean(plan_, In(0), Out());
    else MeanRef(p_, In(0), Out());
  }

 private:
  ReduceParams p_;
  MeanPlan plan_;
  bool fast_ = false;
};

}  // namespace

std::unique_ptr<Execution> MakePool(const CpuArgs& args) { return std::make_unique<PoolOp>(args); }
std::unique_ptr<Execution> MakeMean(const CpuArgs& args) { return std::make_unique<MeanOp>(args); }

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kMaxPool2D, MakePool) &&
                         RegisterCpuOp(ir::OpType::kAveragePool2D, MakePool) &&
                         RegisterCpuOp(ir::OpType::kMean, MakeMean);

}  // namespace

}  // namespace rill::inference::cpu
