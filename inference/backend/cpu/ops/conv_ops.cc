// CONV_2D, DEPTHWISE_CONV_2D, transposed conv and FULLY_CONNECTED on the CPU.
#include "inference/backend/cpu/kernels/ref/conv2d.h"
#include "inference/backend/cpu/kernels/ref/depthwise_conv2d.h"
#include "inference/backend/cpu/kernels/ref/fully_connected.h"
#include "inference/backend/cpu/kernels/ref/transpose_conv2d.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/conv_geometry.h"

namespace rill::inference::cpu {
namespace {

class ConvOp : public CpuOp {
 public:
  enum class Kind { kConv, kDepthwise, kTranspose };
  ConvOp(const ExecutionArgs& args, Kind kind) : CpuOp(args), kind_(kind) {}

  std::string name() const override {
    switch (kind_) {
      case Kind::kConv: return "conv2d_ref";
      case Kind::kDepthwise: return "depthwise_conv2d_ref";
      case Kind::kTranspose: return "transpose_conv2d_ref";
    }
    return "conv_ref";
  }

  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    const Shape& x = InShape(0);
    const Shape& w = InShape(1);
    const Shape& y = OutShape();
    const ir::OpAttrs& a = attrs();
    p_ = ConvParams{};
    p_.batch = x[0];
    p_.in_h = x[1];
    p_.in_w = x[2];
    p_.in_c = x[3];
    p_.out_h = y[1];
    p_.out_w = y[2];
    p_.out_c = y[3];
    p_.kernel_h = w[1];
    p_.kernel_w = w[2];
    p_.stride_h = a.stride_h;
    p_.stride_w = a.stride_w;
    p_.dilation_h = kind_ == Kind::kTranspose ? 1 : a.dilation_h;
    p_.dilation_w = kind_ == Kind::kTranspose ? 1 : a.dilation_w;
    p_.activation = ToFused(a.activation);
    if (kind_ == Kind::kTranspose) {
      // Padding of the forward conv that maps the output back to the input.
      p_.pad_top = ir::WindowPadBefore(p_.out_h, p_.in_h, p_.kernel_h, p_.stride_h, 1, a.padding);
      p_.pad_left = ir::WindowPadBefore(p_.out_w, p_.in_w, p_.kernel_w, p_.stride_w, 1, a.padding);
    } else {
      p_.pad_top = ir::WindowPadBefore(p_.in_h, p_.out_h, p_.kernel_h, p_.stride_h, p_.dilation_h, a.padding);
      p_.pad_left = ir::WindowPadBefore(p_.in_w, p_.out_w, p_.kernel_w, p_.stride_w, p_.dilation_w, a.padding);
    }
    p_.depth_multiplier = kind_ == Kind::kDepthwise ? p_.out_c / p_.in_c : 1;
    return Status::Ok();
  }

  void Run() override {
    switch (kind_) {
      case Kind::kConv: Conv2DRef(p_, In(0), In(1), In(2), Out()); break;
      case Kind::kDepthwise: DepthwiseConv2DRef(p_, In(0), In(1), In(2), Out()); break;
      case Kind::kTranspose: TransposeConv2DRef(p_, In(0), In(1), In(2), Out()); break;
    }
  }

 private:
  Kind kind_;
  ConvParams p_;
};

class FullyConnectedOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "fully_connected_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    in_dim_ = InShape(1)[1];
    out_dim_ = InShape(1)[0];
    batch_ = static_cast<int>(NumElements(InShape(0)) / in_dim_);
    return Status::Ok();
  }
  void Run() override {
    FullyConnectedRef(batch_, in_dim_, out_dim_, ToFused(attrs().activation), In(0), In(1), In(2), Out());
  }

 private:
  int batch_ = 0, in_dim_ = 0, out_dim_ = 0;
};

}  // namespace

std::unique_ptr<Execution> MakeConv2D(const ExecutionArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kConv);
}
std::unique_ptr<Execution> MakeDepthwiseConv2D(const ExecutionArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kDepthwise);
}
std::unique_ptr<Execution> MakeTransposeConv2D(const ExecutionArgs& args) {
  return std::make_unique<ConvOp>(args, ConvOp::Kind::kTranspose);
}
std::unique_ptr<Execution> MakeFullyConnected(const ExecutionArgs& args) {
  return std::make_unique<FullyConnectedOp>(args);
}

}  // namespace rill::inference::cpu
