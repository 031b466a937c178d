// Descriptors and shape functions of the data-dependent ops
// (dynamic_ops.h).
#include "inference/ir/ops/dynamic_ops.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status NonZeroShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const Shape& x = c.In(0);
  const int rank = static_cast<int>(x.size());
  // At run time the bound (every element non-zero); the execution reports
  // the count.
  return c.SetOut({std::max(rank, 1), c.at_run() ? static_cast<int>(NumElements(x)) : kDynamicDim});
}

Status GatherNdShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  const auto* a = c.node().attrs_as<GatherNdAttrs>();
  if (a == nullptr) return c.Error("missing GatherNdAttrs");
  const Shape& data = c.In(0);
  const Shape& idx = c.In(1);
  if (idx.empty()) return c.Error("indices must have rank >= 1");
  const int b = a->batch_dims, q = idx.back();
  if (q == kDynamicDim) return c.Error("the last dim of indices must be known before the run");
  if (b < 0 || b >= static_cast<int>(std::min(data.size(), idx.size()))) return c.Error("batch_dims out of range");
  if (q < 1 || b + q > static_cast<int>(data.size())) {
    return c.Error("indices " + ShapeToString(idx) + " index too many dims of data " + ShapeToString(data));
  }
  for (int d = 0; d < b; ++d) {
    if (data[d] != idx[d]) return c.Error("batch dims of data and indices differ");
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), data.begin() + b + q, data.end());
  return c.SetOut(out);
}

Status NmsShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 5));
  if (c.node().attrs_as<NmsAttrs>() == nullptr) return c.Error("missing NmsAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 3));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 3));
  const Shape& boxes = c.In(0);
  const Shape& scores = c.In(1);
  if (boxes[2] != 4 || boxes[0] != scores[0] || boxes[1] != scores[2]) {
    return c.Error("boxes " + ShapeToString(boxes) + " and scores " + ShapeToString(scores) +
                   " must be [B, N, 4] and [B, C, N]");
  }
  if (!c.at_run()) return c.SetOut({kDynamicDim, 3});
  int64_t per_class = 0;
  if (c.Has(2)) {
    std::vector<int64_t> v;
    bool known = false;
    RILL_INF_RETURN_IF_ERROR(c.Ints(2, &v, &known));
    if (v.size() > 1) return c.Error("max_output_boxes_per_class must hold one value");
    if (!v.empty()) per_class = std::max<int64_t>(0, v[0]);
  }
  const int64_t bound = int64_t{boxes[0]} * scores[1] * std::min<int64_t>(boxes[1], per_class);
  if (bound > kMaxElements / 3) return c.Error("too many boxes");
  return c.SetOut({static_cast<int>(bound), 3});
}

Status ConstantOfShapeShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  if (c.node().attrs_as<FillAttrs>() == nullptr) return c.Error("missing FillAttrs");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 1));
  const int rank = c.In(0)[0];
  if (rank == kDynamicDim) return c.Error("the shape's length must be known before the run");
  std::vector<int64_t> v;
  bool known = false;
  RILL_INF_RETURN_IF_ERROR(c.Ints(0, &v, &known));
  if (!known) {
    // The shape of a SHAPE's input (torch's full_like): its dims known
    // before the run stay known.
    Shape dims;
    if (c.ShapeOperandDims(0, &dims) && static_cast<int>(dims.size()) == rank) return c.SetOut(dims);
    return c.SetOut(Shape(rank, kDynamicDim));
  }
  Shape out;
  for (int64_t d : v) {
    if (d < 0 || d > kMaxElements) return c.Error("dimension " + std::to_string(d) + " out of range");
    out.push_back(static_cast<int>(d));
  }
  return c.SetOut(out);
}

// The IR needs a rank before the run: branches of different ranks (torch
// exports squeeze of a run-time dim as If(dim == 1, Squeeze, Identity)) are
// planned with the larger one, the other branch's value aligned with
// leading dims as numpy aligns ranks, and those leading dims known only at
// run time: the output is then the region's, and at run time it takes the
// taken branch's own shape (a scalar stays a scalar, as in ONNX Runtime);
// the nodes after it infer their shapes from it.
Shape AlignRank(Shape s, size_t rank) {
  while (s.size() < rank) s.insert(s.begin(), kDynamicDim);
  return s;
}

Status IfShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 3));
  const size_t rank = std::max(c.In(1).size(), c.In(2).size());
  std::vector<int64_t> cond;
  bool known = false;
  RILL_INF_RETURN_IF_ERROR(c.Ints(0, &cond, &known));
  if (known) {
    if (cond.size() != 1) return c.Error("the condition must hold one value");
    if (c.at_run()) return c.SetOut(c.In(cond[0] != 0 ? 1 : 2));
    Shape out = c.In(cond[0] != 0 ? 1 : 2);
    while (out.size() < rank) out.insert(out.begin(), 1);
    return c.SetOut(out);
  }
  const Shape a = AlignRank(c.In(1), rank);
  const Shape b = AlignRank(c.In(2), rank);
  Shape out = a;
  for (size_t d = 0; d < out.size(); ++d) {
    if (a[d] != b[d]) out[d] = kDynamicDim;
  }
  return c.SetOut(out);
}

Status ScatterElementsShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 3));
  const auto* a = c.node().attrs_as<ScatterAttrs>();
  if (a == nullptr) return c.Error("missing ScatterAttrs");
  const Shape& data = c.In(0);
  const Shape& idx = c.In(1);
  if (idx.size() != data.size() || c.In(2).size() != data.size()) {
    return c.Error("indices and updates must have the rank of data " + ShapeToString(data));
  }
  if (a->axis < 0 || a->axis >= static_cast<int>(data.size())) return c.Error("axis out of range");
  // Their sizes may come from shape arithmetic known only at run time: checked
  // then.
  if (c.at_run()) {
    if (idx != c.In(2)) return c.Error("indices " + ShapeToString(idx) + " and updates " + ShapeToString(c.In(2)) + " differ");
    for (size_t d = 0; d < data.size(); ++d) {
      if (static_cast<int>(d) != a->axis && idx[d] > data[d]) return c.Error("indices larger than data off the axis");
    }
  }
  return c.SetOut(data);
}

Status ScatterNdShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 3));
  if (c.node().attrs_as<ScatterAttrs>() == nullptr) return c.Error("missing ScatterAttrs");
  const Shape& data = c.In(0);
  const Shape& idx = c.In(1);
  const Shape& updates = c.In(2);
  if (idx.empty()) return c.Error("indices must have rank >= 1");
  const int q = idx.back();
  if (q == kDynamicDim) return c.Error("the last dim of indices must be known before the run");
  if (q < 1 || q > static_cast<int>(data.size())) {
    return c.Error("indices " + ShapeToString(idx) + " index too many dims of data " + ShapeToString(data));
  }
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), data.begin() + q, data.end());
  if (updates.size() != want.size()) {
    return c.Error("updates " + ShapeToString(updates) + " must have shape " + ShapeToString(want));
  }
  for (size_t d = 0; d < want.size(); ++d) {
    // Sizes known only at run time are checked then.
    if (updates[d] != want[d] && updates[d] != kDynamicDim && want[d] != kDynamicDim) {
      return c.Error("updates " + ShapeToString(updates) + " must have shape " + ShapeToString(want));
    }
  }
  return c.SetOut(data);
}

Status ShapeOfShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  return c.SetOut({static_cast<int>(c.In(0).size())});
}

// ONNX Range's count, as ONNX Runtime computes it: ceil((limit - start) /
// delta) in double, the difference taken in the inputs' type (float32 at
// run time), none when negative.
Status RangeShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 3));
  double v[3];
  bool all_float = true;
  for (int i = 0; i < 3; ++i) {
    if (NumElements(c.In(i)) != 1 && !HasDynamicDim(c.In(i))) {
      return c.Error("input " + std::to_string(i) + " must be a scalar, has shape " + ShapeToString(c.In(i)));
    }
    std::vector<double> x;
    bool known = false;
    RILL_INF_RETURN_IF_ERROR(c.Floats(i, &x, &known));
    if (!known) return c.SetOut({kDynamicDim});
    if (x.size() != 1) return c.Error("input " + std::to_string(i) + " must be a scalar");
    v[i] = x[0];
    all_float = all_float && (!c.InTensor(i).is_constant() || c.InTensor(i).dtype == DataType::kFloat32);
  }
  if (v[2] == 0.0) return c.Error("delta is 0");
  const double diff =
      all_float ? static_cast<double>(static_cast<float>(v[1]) - static_cast<float>(v[0])) : v[1] - v[0];
  const double n = std::ceil(diff / v[2]);
  if (!(n <= static_cast<double>(kMaxElements))) return c.Error("Range of " + std::to_string(n) + " values");
  return c.SetOut({static_cast<int>(std::max(0.0, n))});
}

Status LoopShape(ShapeContext& c) {
  const auto* a = c.node().attrs_as<LoopAttrs>();
  if (a == nullptr || a->body == nullptr) return c.Error("missing LoopAttrs");
  if (a->output_shapes.size() != c.node().outputs.size()) return c.Error("output count differs from LoopAttrs'");
  if (c.node().inputs.size() != a->body->inputs.size()) {
    return c.Error("input count differs from its body's");
  }
  c.MarkRunTime();
  for (size_t k = 0; k < a->output_shapes.size(); ++k) RILL_INF_RETURN_IF_ERROR(c.SetOut(k, a->output_shapes[k]));
  return Status::Ok();
}

}  // namespace

OpType LoopOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "LOOP", LoopShape});
  return t;
}
OpType RangeOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "RANGE", RangeShape});
  return t;
}
OpType NonZeroOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "NON_ZERO", NonZeroShape});
  return t;
}
OpType ConstantOfShapeOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "CONSTANT_OF_SHAPE", ConstantOfShapeShape});
  return t;
}
OpType GatherNdOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "GATHER_ND", GatherNdShape});
  return t;
}
OpType NonMaxSuppressionOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "NON_MAX_SUPPRESSION", NmsShape});
  return t;
}
OpType ScatterElementsOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "SCATTER_ELEMENTS", ScatterElementsShape});
  return t;
}
OpType IfOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "IF", IfShape});
  return t;
}
OpType ScatterNdOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "SCATTER_ND", ScatterNdShape});
  return t;
}
OpType ShapeOfOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "SHAPE", ShapeOfShape});
  return t;
}

namespace {
const bool kRegistered = [] {
  NonZeroOp();
  ConstantOfShapeOp();
  GatherNdOp();
  NonMaxSuppressionOp();
  ShapeOfOp();
  IfOp();
  ScatterElementsOp();
  ScatterNdOp();
  RangeOp();
  LoopOp();
  return true;
}();
}  // namespace

}  // namespace rill::inference::ir
