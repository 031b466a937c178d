// Descriptors and shape functions of MediaPipe's custom ops (mediapipe_ops.h).
#include "inference/ir/ops/mediapipe_ops.h"

#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

// A [M, 4, 4] matrix input applying to a batch of n: M is 1 or n.
Status CheckMatrix(ShapeContext& c, size_t input, int n) {
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(input, 3));
  const Shape& m = c.In(input);
  if (m[1] != 4 || m[2] != 4 || (m[0] != 1 && m[0] != n)) {
    return c.Error("matrix input '" + c.InTensor(input).name + "' must be [1 or " + std::to_string(n) +
                   ", 4, 4], has shape " + ShapeToString(m));
  }
  return Status::Ok();
}

Status Landmarks2TransformMatrixShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const auto* a = c.node().attrs_as<Landmarks2TransformMatrixAttrs>();
  if (a == nullptr) return c.Error("missing Landmarks2TransformMatrixAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 3));
  const Shape& x = c.In(0);
  if (x[2] != 3) return c.Error("landmarks must be [N, L, 3], have shape " + ShapeToString(x));
  const int count = x[1];
  auto check = [&](int index, const char* what) {
    return index >= 0 && index < count
               ? Status::Ok()
               : c.Error(std::string(what) + " " + std::to_string(index) + " is not a landmark index (" +
                         std::to_string(count) + " landmarks)");
  };
  RILL_INF_RETURN_IF_ERROR(check(a->left_rotation_idx, "left_rotation_idx"));
  RILL_INF_RETURN_IF_ERROR(check(a->right_rotation_idx, "right_rotation_idx"));
  if (a->subset_idxs.empty()) return c.Error("subset_idxs is empty");
  for (const auto& [i, j] : a->subset_idxs) {
    RILL_INF_RETURN_IF_ERROR(check(i, "subset_idxs value"));
    RILL_INF_RETURN_IF_ERROR(check(j, "subset_idxs value"));
  }
  if (a->output_height <= 0 || a->output_width <= 0) return c.Error("output size must be positive");
  return c.SetOut({x[0], 4, 4});
}

Status TransformLandmarksShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 3));
  const Shape& x = c.In(0);
  if (x[2] != 2 && x[2] != 3) return c.Error("landmarks must be [N, L, 2 or 3], have shape " + ShapeToString(x));
  RILL_INF_RETURN_IF_ERROR(CheckMatrix(c, 1, x[0]));
  return c.SetOut(x);
}

Status TransformTensorBilinearShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  const auto* a = c.node().attrs_as<TransformTensorBilinearAttrs>();
  if (a == nullptr) return c.Error("missing TransformTensorBilinearAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  const Shape& x = c.In(0);
  RILL_INF_RETURN_IF_ERROR(CheckMatrix(c, 1, x[0]));
  if (a->output_height <= 0 || a->output_width <= 0) return c.Error("output size must be positive");
  return c.SetOut({x[0], a->output_height, a->output_width, x[3]});
}

}  // namespace

OpType Landmarks2TransformMatrixOp() {
  static const OpType type =
      RegisterOp({OpType::kRegisteredOp, "LANDMARKS_TO_TRANSFORM_MATRIX", Landmarks2TransformMatrixShape});
  return type;
}

OpType TransformLandmarksOp() {
  static const OpType type = RegisterOp({OpType::kRegisteredOp, "TRANSFORM_LANDMARKS", TransformLandmarksShape});
  return type;
}

OpType TransformTensorBilinearOp() {
  static const OpType type =
      RegisterOp({OpType::kRegisteredOp, "TRANSFORM_TENSOR_BILINEAR", TransformTensorBilinearShape});
  return type;
}

namespace {
// Registered at start-up too, so that the registry lists them (rill model
// info, FindOpByName) before any model uses them.
const bool kRegistered = (Landmarks2TransformMatrixOp(), TransformLandmarksOp(), TransformTensorBilinearOp(), true);
}  // namespace

}  // namespace rill::inference::ir
