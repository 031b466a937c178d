// DEPTHWISE_CONV_2D on the CPU: the kernel table's depthwise rows (depth
// multiplier 1, constant filter), or the reference kernel.
#include <algorithm>
#include <string>

#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/ops/conv_common.h"
#include "inference/backend/cpu/ops/cpu_op.h"

namespace rill::inference::cpu {
namespace {

class DepthwiseConv2DOp : public CpuOp {
 public:
  using CpuOp::CpuOp;

  std::string name() const override {
    if (!fast_) return "depthwise_conv2d_ref";
    const DepthwiseKernels& k = kernels().depthwise;
    return std::string("depthwise_conv2d_") + (k.isa_for ? k.isa_for(p_) : k.isa);
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(5));
    const ir::OpAttrs& a = attrs();
    p_ = ConvShapeParams(InShape(0), InShape(1), OutShape(), a);
    SetWindowPadding(a, &p_);
    p_.depth_multiplier = p_.out_c / p_.in_c;
    prelu_ = HasInput(4);  // a fused PRELU's slope (optimizer: depthwise -> PRELU)
    fast_ = kernels().depthwise && args_.inputs[1]->constant && p_.depth_multiplier == 1;
    return Status::Ok();
  }

  void Compute() override {
    if (!fast_) {
      DepthwiseConv2DRef(p_, In(0), In(1), In(2), Out());
      if (prelu_) ApplyPRelu(kernels(), In(4), Out(), p_.out_c, 0, 1LL * p_.batch * p_.out_h * p_.out_w, 0, p_.out_c);
      return;
    }
    // Chunks of whole row pairs (the AVX-512 kernel computes two output rows
    // at a time), two per thread; tiny layers stay on one.
    const int rows = p_.batch * p_.out_h;
    const int pairs = (rows + 1) / 2;
    const long long macs = 1LL * rows * p_.out_w * p_.out_c * p_.kernel_h * p_.kernel_w;
    const int chunks = macs < 65536 ? 1 : std::min(pairs, threads() * 2);
    auto chunk = [this, rows, pairs, chunks](int c, int) {
      const int begin = 2 * (pairs * c / chunks);
      const int end = std::min(rows, 2 * (pairs * (c + 1) / chunks));
      kernels().depthwise.rows(p_, In(0), In(1), In(2), Out(), begin, end);
      // The fused PRELU on the rows just written, still in cache.
      if (prelu_) {
        ApplyPRelu(kernels(), In(4), Out(), p_.out_c, 1LL * begin * p_.out_w, 1LL * end * p_.out_w, 0, p_.out_c);
      }
    };
    ParallelFor(chunks, chunk);
  }

 private:
  ConvParams p_;
  bool fast_ = false;
  bool prelu_ = false;
};

}  // namespace

std::unique_ptr<Execution> MakeDepthwiseConv2D(const CpuArgs& args) {
  return std::make_unique<DepthwiseConv2DOp>(args);
}

namespace {

const bool kRegistered = RegisterCpuOp(ir::OpType::kDepthwiseConv2D, MakeDepthwiseConv2D);

}  // namespace

}  // namespace rill::inference::cpu
