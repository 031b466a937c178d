// Descriptors and shape functions of CONV_3D, CONV_TRANSPOSE_3D and POOL_3D
// (volume_ops.h).
#include "inference/ir/ops/volume_ops.h"

#include <algorithm>
#include <string>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status CheckAxes(ShapeContext& c, const int* stride, const int* pad_begin, const int* pad_end, const int* dilation) {
  for (int a = 0; a < 3; ++a) {
    if (stride[a] <= 0 || (dilation != nullptr && dilation[a] <= 0) || pad_begin[a] < 0 || pad_end[a] < 0 ||
        pad_begin[a] > (1 << 20) || pad_end[a] > (1 << 20)) {
      return c.Error("invalid stride, dilation or padding on axis " + std::to_string(a));
    }
  }
  return Status::Ok();
}

Status Conv3dShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  const auto* a = c.node().attrs_as<Conv3dAttrs>();
  if (a == nullptr) return c.Error("missing Conv3dAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 5));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 5));
  RILL_INF_RETURN_IF_ERROR(CheckAxes(c, a->stride, a->pad_begin, a->pad_end, a->dilation));
  const Shape& x = c.In(0);
  const Shape& w = c.In(1);
  if (a->group < 1 || x[1] != w[1] * a->group || w[0] % a->group != 0) {
    return c.Error("filter " + ShapeToString(w) + " with group " + std::to_string(a->group) +
                   " does not match input " + ShapeToString(x));
  }
  if (c.Has(2) && NumElements(c.In(2)) != w[0]) return c.Error("bias does not match the output channels");
  Shape out = {x[0], w[0], 0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    out[2 + k] = ExplicitWindowOutputSize(x[2 + k], w[2 + k], a->stride[k], a->dilation[k], a->pad_begin[k],
                                          a->pad_end[k], false);
    if (out[2 + k] <= 0) return c.Error("the window does not fit input " + ShapeToString(x));
  }
  return c.SetOut(out);
}

Status ConvTranspose3dShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  const auto* a = c.node().attrs_as<ConvTranspose3dAttrs>();
  if (a == nullptr) return c.Error("missing ConvTranspose3dAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 5));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 5));
  RILL_INF_RETURN_IF_ERROR(CheckAxes(c, a->stride, a->pad_begin, a->pad_end, a->dilation));
  const Shape& x = c.In(0);
  const Shape& w = c.In(1);
  if (a->group < 1 || w[0] != x[1] || x[1] % a->group != 0) {
    return c.Error("filter " + ShapeToString(w) + " with group " + std::to_string(a->group) +
                   " does not match input " + ShapeToString(x));
  }
  const int out_c = w[1] * a->group;
  if (c.Has(2) && NumElements(c.In(2)) != out_c) return c.Error("bias does not match the output channels");
  Shape out = {x[0], out_c, 0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (a->output_padding[k] < 0 || a->output_padding[k] >= std::max(a->stride[k], a->dilation[k])) {
      return c.Error("output_padding must be below the stride or the dilation");
    }
    const long long size = static_cast<long long>(x[2 + k] - 1) * a->stride[k] - a->pad_begin[k] - a->pad_end[k] +
                           static_cast<long long>(a->dilation[k]) * (w[2 + k] - 1) + 1 + a->output_padding[k];
    if (size <= 0 || size > (1 << 24)) return c.Error("the output size along axis " + std::to_string(k) + " is out of range");
    out[2 + k] = static_cast<int>(size);
  }
  return c.SetOut(out);
}

Status Pool3dShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const auto* a = c.node().attrs_as<Pool3dAttrs>();
  if (a == nullptr) return c.Error("missing Pool3dAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 5));
  RILL_INF_RETURN_IF_ERROR(CheckAxes(c, a->stride, a->pad_begin, a->pad_end, nullptr));
  const Shape& x = c.In(0);
  Shape out = {x[0], x[1], 0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (a->kernel[k] <= 0) return c.Error("kernel_shape must be positive");
    out[2 + k] = ExplicitWindowOutputSize(x[2 + k], a->kernel[k], a->stride[k], 1, a->pad_begin[k], a->pad_end[k],
                                          a->ceil_mode);
    if (out[2 + k] <= 0) return c.Error("the window does not fit input " + ShapeToString(x));
  }
  return c.SetOut(out);
}

}  // namespace

OpType Conv3dOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "CONV_3D", Conv3dShape});
  return t;
}

OpType ConvTranspose3dOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "CONV_TRANSPOSE_3D", ConvTranspose3dShape});
  return t;
}

OpType Pool3dOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "POOL_3D", Pool3dShape});
  return t;
}

namespace {
const bool kRegistered =
    Conv3dOp() != OpType::kAdd && ConvTranspose3dOp() != OpType::kAdd && Pool3dOp() != OpType::kAdd;
}  // namespace

}  // namespace rill::inference::ir
