// MediaPipe's custom ops (inference/ir/ops/mediapipe_ops.h) on the CPU: the
// reference kernels serve as the CPU kernels (a 4x4 matrix per image, a few
// hundred landmarks, a 16x16 warp), the warp split by output rows over the
// threads.
#include <memory>
#include <string>

#include "inference/backend/cpu/kernels/ref/mediapipe_transforms.h"
#include "inference/backend/cpu/ops/cpu_op.h"
#include "inference/ir/ops/mediapipe_ops.h"

namespace rill::inference::cpu {
namespace {

// The matrix of image b: [1 or N, 4, 4].
const float* MatrixOf(const float* m, const Shape& shape, int b) { return shape[0] == 1 ? m : m + 16 * b; }

class Landmarks2TransformMatrixOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "landmarks_to_transform_matrix_ref"; }
  Status Prepare() override {
    attrs_ = args_.node->attrs_as<ir::Landmarks2TransformMatrixAttrs>();
    if (attrs_ == nullptr) return Error("missing Landmarks2TransformMatrixAttrs");
    return NeedFloatInputs(1);
  }
  void Compute() override {
    const Shape& x = InShape(0);
    for (int b = 0; b < x[0]; ++b) {
      Landmarks2TransformMatrixRef(*attrs_, In(0) + static_cast<size_t>(b) * x[1] * 3, Out() + 16 * b);
    }
  }

 private:
  const ir::Landmarks2TransformMatrixAttrs* attrs_ = nullptr;
};

class TransformLandmarksOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "transform_landmarks_ref"; }
  Status Prepare() override { return NeedFloatInputs(2); }
  void Compute() override {
    const Shape& x = InShape(0);
    const size_t per_image = static_cast<size_t>(x[1]) * x[2];
    for (int b = 0; b < x[0]; ++b) {
      TransformLandmarksRef(MatrixOf(In(1), InShape(1), b), x[1], x[2], In(0) + b * per_image,
                            Out() + b * per_image);
    }
  }
};

class TransformTensorBilinearOp : public CpuOp {
 public:
  using CpuOp::CpuOp;
  std::string name() const override { return "transform_tensor_bilinear_ref"; }
  Status Prepare() override {
    const Shape& x = InShape(0);
    const Shape& y = OutShape();
    p_.in_h = x[1];
    p_.in_w = x[2];
    p_.channels = x[3];
    p_.out_h = y[1];
    p_.out_w = y[2];
    return NeedFloatInputs(2);
  }
  void Compute() override {
    const int batch = InShape(0)[0];
    const size_t in_image = static_cast<size_t>(p_.in_h) * p_.in_w * p_.channels;
    const size_t out_image = static_cast<size_t>(p_.out_h) * p_.out_w * p_.channels;
    // One task per (image, band of rows); a row's pixels are computed the
    // same way whichever thread takes it.
    const int bands = p_.out_h;
    auto task = [&](int t, int) {
      const int b = t / bands, row = t % bands;
      TransformTensorBilinearRef(p_, MatrixOf(In(1), InShape(1), b), In(0) + b * in_image, Out() + b * out_image,
                                 row, row + 1);
    };
    if (out_image * batch < static_cast<size_t>(kMinParallelElements)) {
      for (int t = 0; t < batch * bands; ++t) task(t, 0);
    } else {
      ParallelFor(batch * bands, task);
    }
  }

 private:
  TransformTensorParams p_;
};

std::unique_ptr<Execution> MakeLandmarks2TransformMatrix(const CpuArgs& args) {
  return std::make_unique<Landmarks2TransformMatrixOp>(args);
}
std::unique_ptr<Execution> MakeTransformLandmarks(const CpuArgs& args) {
  return std::make_unique<TransformLandmarksOp>(args);
}
std::unique_ptr<Execution> MakeTransformTensorBilinear(const CpuArgs& args) {
  return std::make_unique<TransformTensorBilinearOp>(args);
}

const bool kRegistered =
    RegisterCpuOp(ir::Landmarks2TransformMatrixOp(), MakeLandmarks2TransformMatrix) &&
    RegisterCpuOp(ir::TransformLandmarksOp(), MakeTransformLandmarks) &&
    RegisterCpuOp(ir::TransformTensorBilinearOp(), MakeTransformTensorBilinear);

}  // namespace
}  // namespace rill::inference::cpu
