// The data-dependent ops (inference/ir/ops/dynamic_ops.h) on the CPU: their
// reference kernels (kernels/ref/dynamic.h). The session runs them in the
// dynamic region (runtime/dynamic_region.h), preparing them at every run
// with the sizes of that run; NON_ZERO and NON_MAX_SUPPRESSION report their
// output's actual shape (DataDependentOutput).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "inference/backend/cpu/kernels/ref/dynamic.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/dynamic_ops.h"

namespace rill::inference::cpu {
namespace {

class NonZeroOp : public CpuOp, public DataDependentOutput {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "non_zero_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(1));
    actual_ = OutShape();
    return Status::Ok();
  }
  void Compute() override {
    const Shape& x = InShape(0);
    const long long count = CountNonZeroRef(In(0), NumElements(x));
    NonZeroRef(x, In(0), count, Out());
    actual_[1] = static_cast<int>(count);
  }
  const Shape& ActualOutputShape() const override { return actual_; }

 private:
  Shape actual_;
};

class GatherNdOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "gather_nd_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(2));
    const auto* a = args_.node->attrs_as<ir::GatherNdAttrs>();
    if (a == nullptr) return Error("missing GatherNdAttrs");
    batch_dims_ = a->batch_dims;
    return Status::Ok();
  }
  void Compute() override { GatherNdRef(InShape(0), In(0), InShape(1), In(1), batch_dims_, Out()); }

 private:
  int batch_dims_ = 0;
};

class NonMaxSuppressionOp : public CpuOp, public DataDependentOutput {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "non_max_suppression_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(5));
    const auto* a = args_.node->attrs_as<ir::NmsAttrs>();
    if (a == nullptr) return Error("missing NmsAttrs");
    p_ = NmsParams{};
    p_.center_point_box = a->center_point_box;
    p_.batches = InShape(0)[0];
    p_.boxes = InShape(0)[1];
    p_.classes = InShape(1)[1];
    order_.resize(p_.boxes);
    selected_.resize(p_.boxes);
    corners_.resize(5 * static_cast<size_t>(p_.boxes));
    actual_ = OutShape();
    return Status::Ok();
  }
  void Compute() override {
    // The optional scalars, read at every run (they may be activations).
    // torchvision exports INT64_MAX ("all"), 2^63 in float: clamp before
    // converting.
    const double max_per_class = HasInput(2) && NumElements(InShape(2)) > 0 ? In(2)[0] : 0.0;
    p_.max_per_class = static_cast<long long>(std::clamp(max_per_class, 0.0, 1e15));
    p_.iou_threshold = HasInput(3) && NumElements(InShape(3)) > 0 ? In(3)[0] : 0.0f;
    p_.has_score_threshold = HasInput(4) && NumElements(InShape(4)) > 0;
    p_.score_threshold = p_.has_score_threshold ? In(4)[0] : 0.0f;
    const long long n = NonMaxSuppressionRef(p_, In(0), In(1), order_.data(), selected_.data(), corners_.data(), Out());
    actual_[0] = static_cast<int>(n);
  }
  const Shape& ActualOutputShape() const override { return actual_; }

 private:
  NmsParams p_;
  std::vector<int> order_, selected_;
  std::vector<float> corners_;
  Shape actual_;
};

class ConstantOfShapeOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "constant_of_shape_ref"; }
  Status Prepare() override {
    const auto* a = args_.node->attrs_as<ir::FillAttrs>();
    if (a == nullptr) return Error("missing FillAttrs");
    value_ = a->value;
    return Status::Ok();
  }
  void Compute() override { std::fill(Out(), Out() + NumElements(OutShape()), value_); }

 private:
  float value_ = 0.0f;
};

class IfOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "if_ref"; }
  Status Prepare() override { return NeedFloatInputs(3); }
  void Compute() override {
    const float* x = In(In(0)[0] != 0.0f ? 1 : 2);
    std::copy(x, x + NumElements(OutShape()), Out());
  }
};

// SCATTER_ELEMENTS and SCATTER_ND: data copied to the output (unless they
// share a buffer), then the updates written by the kind's reference kernel.
template <bool kNd>
class ScatterOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return kNd ? "scatter_nd_ref" : "scatter_elements_ref"; }
  Status Prepare() override {
    RILL_INF_RETURN_IF_ERROR(NeedFloatInputs(3));
    a_ = args_.node->attrs_as<ir::ScatterAttrs>();
    if (a_ == nullptr) return Error("missing ScatterAttrs");
    return Status::Ok();
  }
  void Compute() override {
    const long long n = NumElements(InShape(0));
    if (Out() != In(0)) std::copy(In(0), In(0) + n, Out());
    const int reduction = static_cast<int>(a_->reduction);
    if (kNd) {
      ScatterNdRef(InShape(0), InShape(1), In(1), In(2), reduction, Out());
    } else {
      ScatterElementsRef(InShape(0), InShape(1), In(1), In(2), a_->axis, reduction, Out());
    }
  }

 private:
  const ir::ScatterAttrs* a_ = nullptr;
};

class ShapeOfOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "shape_ref"; }
  Status Prepare() override { return Status::Ok(); }
  void Compute() override {
    const Shape& x = InShape(0);
    for (size_t d = 0; d < x.size(); ++d) Out()[d] = static_cast<float>(x[d]);
  }
};

class RangeOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "range_ref"; }
  Status Prepare() override { return NeedFloatInputs(3); }
  void Compute() override {
    // Accumulated in float, as ONNX Runtime does.
    float v = In(0)[0];
    const float delta = In(2)[0];
    float* out = Out();
    const int n = OutShape()[0];
    for (int i = 0; i < n; ++i, v += delta) out[i] = v;
  }
};

template <class T>
std::unique_ptr<Execution> Make(const CpuArgs& args) {
  return std::make_unique<T>(args);
}

const bool kRegistered = [] {
  RegisterCpuOp(ir::NonZeroOp(), Make<NonZeroOp>);
  RegisterCpuOp(ir::GatherNdOp(), Make<GatherNdOp>);
  RegisterCpuOp(ir::ConstantOfShapeOp(), Make<ConstantOfShapeOp>);
  RegisterCpuOp(ir::NonMaxSuppressionOp(), Make<NonMaxSuppressionOp>);
  RegisterCpuOp(ir::ShapeOfOp(), Make<ShapeOfOp>);
  RegisterCpuOp(ir::IfOp(), Make<IfOp>);
  RegisterCpuOp(ir::ScatterElementsOp(), Make<ScatterOp<false>>);
  RegisterCpuOp(ir::ScatterNdOp(), Make<ScatterOp<true>>);
  RegisterCpuOp(ir::RangeOp(), Make<RangeOp>);
  return true;
}();

}  // namespace
}  // namespace rill::inference::cpu
