// Ops whose output sizes depend on data (inference/ir/ops/dynamic_ops.h):
// NonZero, GatherND, NonMaxSuppression, If, ScatterElements, and Shape and ConstantOfShape of
// values known only at run time (constant_ops.cc and tensor.cc fold the
// others). Their outputs
// and everything downstream whose sizes follow run in the session's dynamic
// region (docs/design.md, "Data-dependent sizes"). Integer operands that are
// constants become float32 constants: run-time values are float32.
#include <algorithm>
#include <memory>
#include <string>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/dynamic_ops.h"

namespace rill::inference::onnx_import {
namespace {

// A run-time operand in ONNX's layout, constants as float32.
StatusOr<int> FloatOperand(ConverterContext& c, const Value& v) {
  if (c.IsConst(v.id) && c.tensor(v.id).dtype != DataType::kFloat32) {
    return c.NewFloatConst(c.tensor(v.id).name + "/f32", c.ShapeOf(v.id), c.ConstFloats(v.id));
  }
  return c.ToNchw(v);
}

Status NonZero(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  if (c.IsConst(x.id)) return c.Unsupported("NonZero of a constant");
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::NonZeroOp(), {xi}, c.out_name()));
  c.Define(out, false);
  return Status::Ok();
}

Status GatherND(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value data, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value indices, c.Input(1));
  if (c.IsConst(data.id) && c.IsConst(indices.id)) return c.Unsupported("GatherND of constants");
  auto a = std::make_shared<ir::GatherNdAttrs>();
  const int64_t batch_dims = c.AttrInt("batch_dims", 0);
  if (batch_dims < 0 || batch_dims > 6) return c.UnsupportedAttribute("batch_dims", "batch_dims out of range");
  a->batch_dims = static_cast<int>(batch_dims);
  RILL_INF_ASSIGN_OR_RETURN(int d, FloatOperand(c, data));
  RILL_INF_ASSIGN_OR_RETURN(int i, FloatOperand(c, indices));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GatherNdOp(), {d, i}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status NonMaxSuppression(ConverterContext& c) {
  auto a = std::make_shared<ir::NmsAttrs>();
  const int64_t center = c.AttrInt("center_point_box", 0);
  if (center != 0 && center != 1) return c.UnsupportedAttribute("center_point_box", "center_point_box must be 0 or 1");
  a->center_point_box = center == 1;
  std::vector<int> ins;
  for (int k = 0; k < 5; ++k) {
    if (!c.HasInput(k)) {
      if (k < 2) return c.Invalid("missing input " + std::to_string(k));
      ins.push_back(-1);
      continue;
    }
    RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(k));
    RILL_INF_ASSIGN_OR_RETURN(int id, FloatOperand(c, v));
    ins.push_back(id);
  }
  while (!ins.empty() && ins.back() < 0) ins.pop_back();
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::NonMaxSuppressionOp(), ins, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status ScatterElements(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value data, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value indices, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(Value updates, c.Input(2));
  if (c.IsConst(data.id) && c.IsConst(indices.id) && c.IsConst(updates.id)) {
    return c.Unsupported("ScatterElements of constants");
  }
  auto a = std::make_shared<ir::ScatterAttrs>();
  RILL_INF_ASSIGN_OR_RETURN(a->reduction, ReadScatterReduction(c));
  const int rank = static_cast<int>(c.OnnxShape(data).size());
  int64_t axis = c.AttrInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
  a->axis = static_cast<int>(axis);
  RILL_INF_ASSIGN_OR_RETURN(int d, FloatOperand(c, data));
  RILL_INF_ASSIGN_OR_RETURN(int i, FloatOperand(c, indices));
  RILL_INF_ASSIGN_OR_RETURN(int u, FloatOperand(c, updates));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ScatterElementsOp(), {d, i, u}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

// If: a constant condition inlines the branch it picks; otherwise both
// branches are converted, each node guarded by the condition (ir::Guard),
// and an IF per output picks the taken branch's value at run time.
Status If(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value cond, c.Input(0));
  const onnx::AttributeProto* then_branch = c.FindAttr("then_branch");
  const onnx::AttributeProto* else_branch = c.FindAttr("else_branch");
  if (then_branch == nullptr || else_branch == nullptr || !then_branch->has_g() || !else_branch->has_g()) {
    return c.Invalid("needs then_branch and else_branch");
  }
  const onnx::NodeProto& node = c.node();
  if (c.IsConst(cond.id)) {
    const std::vector<float> v = c.ConstFloats(cond.id);
    if (v.size() != 1) return c.Invalid("the condition must hold one value");
    std::vector<Value> outs;
    RILL_INF_RETURN_IF_ERROR(c.ConvertBranch(v[0] != 0.0f ? then_branch->g() : else_branch->g(), nullptr, &outs));
    if (static_cast<int>(outs.size()) != node.output_size()) return c.Invalid("branch outputs differ from the If's");
    for (size_t i = 0; i < outs.size(); ++i) c.Define(outs[i], static_cast<int>(i));
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int ci, FloatOperand(c, cond));
  if (NumElements(c.ShapeOf(ci)) != 1) return c.Invalid("the condition must hold one value");
  std::vector<Value> then_outs, else_outs;
  const ir::Guard then_guard{ci, true}, else_guard{ci, false};
  RILL_INF_RETURN_IF_ERROR(c.ConvertBranch(then_branch->g(), &then_guard, &then_outs));
  RILL_INF_RETURN_IF_ERROR(c.ConvertBranch(else_branch->g(), &else_guard, &else_outs));
  if (static_cast<int>(then_outs.size()) != node.output_size() || then_outs.size() != else_outs.size()) {
    return c.Invalid("branch outputs differ from the If's");
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::IfOp(), {ci, then_outs[i].id, else_outs[i].id}, node.output(i)));
    c.Define(out, false, i);
  }
  return Status::Ok();
}

}  // namespace

// Shape of a value with sizes known only at run time (constant_ops.cc).
Status ConvertShapeAtRun(ConverterContext& c, const Value& x) {
  if (c.AttrInt("start", 0) != 0 || c.FindAttr("end") != nullptr) {
    return c.Unsupported("Shape with start / end of a value whose sizes are known only at run time");
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ShapeOfOp(), {xi}, c.out_name()));
  const Shape dims = c.ShapeOf(xi);
  c.NoteShapeValues(out, dims);  // TensorInfo::plan_values: the dims known before the run
  if (!std::all_of(dims.begin(), dims.end(), [](int d) { return d == ir::kDynamicDim; })) {
    c.NoteShapeFold();  // those are the import-time input shapes'
  }
  c.Define(out, false);
  return Status::Ok();
}

Status ConvertConstantOfShapeAtRun(ConverterContext& c, const Value& shape) {
  auto a = std::make_shared<ir::FillAttrs>();
  if (const onnx::AttributeProto* attr = c.FindAttr("value")) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstantFromProto(attr->t(), c.out_name() + "/value"));
    const std::vector<float> v = c.ConstFloats(id);
    if (v.size() != 1) return c.Invalid("value must hold one element");
    a->value = v[0];
  }
  RILL_INF_ASSIGN_OR_RETURN(int s, c.ToNchw(shape));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ConstantOfShapeOp(), {s}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

namespace {
const bool kRegistered = RegisterOnnxConverter({"NonZero"}, NonZero) && RegisterOnnxConverter({"GatherND"}, GatherND) &&
                         RegisterOnnxConverter({"NonMaxSuppression"}, NonMaxSuppression) && RegisterOnnxConverter({"If"}, If) &&
                         RegisterOnnxConverter({"ScatterElements"}, ScatterElements);
}  // namespace

StatusOr<ir::ScatterAttrs::Reduction> ReadScatterReduction(ConverterContext& c) {
  const std::string reduction = c.AttrString("reduction", "none");
  using R = ir::ScatterAttrs::Reduction;
  if (reduction == "none") return R::kNone;
  if (reduction == "add") return R::kAdd;
  if (reduction == "mul") return R::kMul;
  if (reduction == "max") return R::kMax;
  if (reduction == "min") return R::kMin;
  return c.UnsupportedAttribute("reduction", "reduction '" + reduction + "'");
}

}  // namespace rill::inference::onnx_import
