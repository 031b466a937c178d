// TRANSPOSE_CONV_2D on the CPU: a GEMM per input row and a scatter into bands
// of output rows on the kernel table's widest GEMM, or the reference kernel.
#include <algorithm>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/transpose_conv2d.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::cpu {
namespace {

class TransposeConv2DOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    if (gemm_ == nullptr) return "transpose_conv2d_ref";
    return std::string("transpose_conv2d_gemm_") + gemm_->name;
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(4));
    const ir::OpAttrs& a = attrs();
    p_ = ConvShapeParams(InShape(0), InShape(1), OutShape(), a);
    p_.dilation_h = p_.dilation_w = 1;
    SetTransposeConvPadding(a, &p_);
    p_.groups = ir::ConvGroups(p_.in_c, InShape(1)[3]);
    const TransposeConvKernels& tc = kernels().transpose_conv;
    gemm_ = tc && args_.inputs[1]->constant ? kernels().widest_gemm() : nullptr;
    scratch_floats_ = 0;
    if (gemm_ != nullptr) {
      // The packing depends on whether the taps tile the output (a resize
      // may change that).
      if (!prepared_ || prepared_tiles_ != tc.tiles(p_)) tc.pack(p_, In(1), In(2), gemm_->nr, &packed_);
      prepared_ = true;
      prepared_tiles_ = tc.tiles(p_);
      scratch_floats_ = tc.scratch_floats(p_) * threads();
    }
    return Status::Ok();
  }

  size_t scratch_bytes() const override { return scratch_floats_ * sizeof(float); }
  size_t packed_weight_bytes() const override { return packed_.size() * sizeof(float); }

  void Compute() override {
    if (gemm_ == nullptr) {
      TransposeConv2DRef(p_, In(0), In(1), In(2), Out());
      return;
    }
    // Bands of output rows (a few per thread); each band computes the input
    // rows that reach it, so the split never changes a result.
    const TransposeConvKernels& tc = kernels().transpose_conv;
    const int rows = p_.batch * p_.out_h;
    const int bands = std::min(rows, 4 * threads());
    const size_t per_thread = tc.scratch_floats(p_);
    auto band = [this, &tc, rows, bands, per_thread](int b, int thread) {
      tc.rows(p_, In(0), packed_.data(), In(2), gemm_->gemm, Scratch() + per_thread * thread, Out(),
              rows * b / bands, rows * (b + 1) / bands);
    };
    ParallelFor(bands, band);
  }

 private:
  ConvParams p_;
  const GemmKernels* gemm_ = nullptr;  // the GEMM the weights are packed for (null: the reference kernel)
  bool prepared_ = false;
  bool prepared_tiles_ = false;  // packed for TransposeConvKernels::tiles
  std::vector<float> packed_;
  size_t scratch_floats_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeTransposeConv2D(const CpuArgs& args) {
  return std::make_unique<TransposeConv2DOp>(args);
}

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kTransposeConv2D, MakeTransposeConv2D);

}  // namespace

}  // namespace rill::inference::cpu
