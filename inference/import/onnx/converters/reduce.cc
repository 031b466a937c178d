// ReduceMean and Softmax: reductions over axes, moved to NHWC's numbering
// when the value stays NHWC. Softmax before opset 13 (over the 2-D view from
// its axis) gets a RESHAPE on each side. LogSoftmax, ReduceL1,
// ReduceSumSquare, ReduceLogSum and ReduceLogSumExp lowered to REDUCE_MAX /
// REDUCE_SUM, SUB, EXP, LOG, ABS and MUL (the log-sum-exps shifted by the
// maximum, as ONNX Runtime computes them).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/axis_view.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/math_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status ReduceMean(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  std::vector<int64_t> axes = c.AttrInts("axes");
  if (axes.empty() && c.HasInput(1)) {  // an input from opset 18
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
    axes = c.ConstInts(id);
  }
  const bool keep = c.AttrInt("keepdims", 1) != 0;
  const int rank = static_cast<int>(c.ShapeOf(x.id).size());
  ir::OpAttrs a;
  a.keep_dims = keep;
  std::vector<int> ax;
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) ax.push_back(i);
  } else {
    for (int64_t v : axes) ax.push_back(static_cast<int>(v < 0 ? v + rank : v));
  }
  int xi;
  bool nhwc = false;
  // Without keepdims the output's rank drops, and so does NHWC's meaning.
  if (x.nhwc && keep) {
    xi = x.id;
    for (int& v : ax) {
      if (v < 0 || v > 3) return c.UnsupportedAttribute("axes", "axis out of range");
      v = NhwcAxis(v);
    }
    nhwc = true;
  } else {
    RILL_INF_ASSIGN_OR_RETURN(xi, c.ToNchw(x));
  }
  const int axes_id = c.NewInt32Const(c.out_name() + "/axes", {static_cast<int>(ax.size())}, ax);
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kMean, {xi, axes_id}, c.out_name(), a));
  c.Define(out, nhwc);
  return Status::Ok();
}

Status Softmax(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const Shape s = c.OnnxShape(x);
  const int rank = static_cast<int>(s.size());
  int axis = static_cast<int>(c.AttrInt("axis", c.opset() >= 13 ? -1 : 1));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
  bool coerced = false;
  if (c.opset() < 13) {
    // Before opset 13, softmax flattens from `axis`: [outer, inner] rows,
    // a RESHAPE on each side unless the rest is 1s.
    for (int d = axis + 1; d < rank; ++d) coerced = coerced || s[d] != 1;
  }
  if (coerced) {
    RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNchw(x));
    int inner = 1;
    for (int d = axis; d < rank; ++d) inner *= s[d];
    ir::OpAttrs flat, back, soft;
    flat.new_shape = {-1, inner};
    back.new_shape = std::vector<int>(s.begin(), s.end());
    back.new_shape[0] = -1;  // batch left free for resizes
    soft.axis = 1;
    RILL_INF_ASSIGN_OR_RETURN(int r, c.Emit(OpType::kReshape, {xi}, c.out_name() + "/2d", flat));
    RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kSoftmax, {r}, c.out_name() + "/softmax", soft));
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kReshape, {y}, c.out_name(), back));
    c.Define(out, false);
    return Status::Ok();
  }
  ir::OpAttrs a;
  a.axis = x.nhwc ? NhwcAxis(axis) : axis;
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kSoftmax, {x.id}, c.out_name(), a));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

// ---- LogSoftmax and the reductions made of others --------------------------

StatusOr<int> Reduce(ConverterContext& c, ir::ReduceKind kind, int x, const std::vector<int>& axes, bool keep,
                     const std::string& name) {
  auto a = std::make_shared<ir::ReduceAttrs>();
  a->axes = axes;
  a->keep_dims = keep;
  return c.Emit(ir::ReduceOp(kind), {x}, name, {}, a);
}

StatusOr<int> Unary(ConverterContext& c, ir::UnaryFn fn, int x, const std::string& name) {
  return c.Emit(ir::UnaryMathOp(fn), {x}, name, {}, std::make_shared<ir::UnaryMathAttrs>());
}

// log(sum(exp(x - m))) over `axes`, m the maximum (kept dims): *shifted
// gets x - m; the sum's dims kept or not by `keep`.
StatusOr<int> LogSumExpShifted(ConverterContext& c, int x, const std::vector<int>& axes, bool keep, int* shifted) {
  const std::string base = c.out_name();
  RILL_INF_ASSIGN_OR_RETURN(int m, Reduce(c, ir::ReduceKind::kMax, x, axes, true, base + "/max"));
  RILL_INF_ASSIGN_OR_RETURN(*shifted, c.Emit(OpType::kSub, {x, m}, base + "/shifted"));
  RILL_INF_ASSIGN_OR_RETURN(int e, Unary(c, ir::UnaryFn::kExp, *shifted, base + "/exp"));
  RILL_INF_ASSIGN_OR_RETURN(int sum, Reduce(c, ir::ReduceKind::kSum, e, axes, keep, base + "/sum"));
  return Unary(c, ir::UnaryFn::kLog, sum, base + "/log");
}

// x - max - log(sum(exp(x - max))) over `axis` (before opset 13 over the 2-D
// view from it, as Softmax).
Status LogSoftmax(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(AxisView v, SoftmaxAxisView(c));
  int shifted = -1;
  RILL_INF_ASSIGN_OR_RETURN(int log, LogSumExpShifted(c, v.x, {v.axis}, true, &shifted));
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kSub, {shifted, log}, AxisViewOutName(c, v)));
  return DefineFromAxisView(c, v, y);
}

// ReduceL1 (|x| summed), ReduceSumSquare (x * x summed), ReduceLogSum
// (log of the sum), ReduceLogSumExp (stably, as LogSoftmax), on the value in
// ONNX's layout; axes from the attribute or (opset 18) the second input.
Status ComposedReduce(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const Shape s = c.ShapeOf(x);
  const int rank = static_cast<int>(s.size());
  std::vector<int64_t> axes = c.AttrInts("axes");
  if (c.HasInput(1)) {
    RILL_INF_ASSIGN_OR_RETURN(int id, c.ConstInput(1));
    axes = c.ConstInts(id);
  }
  const bool keep = c.AttrInt("keepdims", 1) != 0;
  if (axes.empty() && c.AttrInt("noop_with_empty_axes", 0) != 0) {
    c.Define(xv);
    return Status::Ok();
  }
  std::vector<int> ax;
  for (int64_t v : axes) {
    const int a = static_cast<int>(v < 0 ? v + rank : v);
    if (a < 0 || a >= rank) return c.UnsupportedAttribute("axes", "axis " + std::to_string(v) + " out of range");
    if (std::find(ax.begin(), ax.end(), a) != ax.end()) return c.UnsupportedAttribute("axes", "repeated axis");
    ax.push_back(a);
  }
  if (ax.empty()) {
    for (int d = 0; d < rank; ++d) ax.push_back(d);
  }
  std::sort(ax.begin(), ax.end());
  const std::string& op = c.op_type();
  const std::string base = c.out_name();
  int y = -1;
  if (op == "ReduceLogSumExp") {
    int shifted = -1;
    RILL_INF_ASSIGN_OR_RETURN(int log, LogSumExpShifted(c, x, ax, keep, &shifted));
    // The maximum again, with the output's dims (kept or not).
    RILL_INF_ASSIGN_OR_RETURN(int max, Reduce(c, ir::ReduceKind::kMax, x, ax, keep, base + "/max_out"));
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kAdd, {log, max}, base));
  } else if (op == "ReduceLogSum") {
    RILL_INF_ASSIGN_OR_RETURN(int sum, Reduce(c, ir::ReduceKind::kSum, x, ax, keep, base + "/sum"));
    RILL_INF_ASSIGN_OR_RETURN(y, Unary(c, ir::UnaryFn::kLog, sum, base));
  } else {
    int summed = -1;
    if (op == "ReduceL1") {
      RILL_INF_ASSIGN_OR_RETURN(summed, Unary(c, ir::UnaryFn::kAbs, x, base + "/abs"));
    } else {  // ReduceSumSquare
      RILL_INF_ASSIGN_OR_RETURN(summed, c.Emit(OpType::kMul, {x, x}, base + "/square"));
    }
    RILL_INF_ASSIGN_OR_RETURN(y, Reduce(c, ir::ReduceKind::kSum, summed, ax, keep, base));
  }
  c.Define(y, false);
  return Status::Ok();
}

// MeanVarianceNormalization: (x - mean) / sqrt(mean((x - mean)^2)) over
// `axes` (default 0, 2, 3), without an epsilon (as ONNX's definition).
Status MeanVarianceNormalization(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const int rank = static_cast<int>(c.ShapeOf(x).size());
  std::vector<int64_t> axes = c.AttrInts("axes");
  if (c.FindAttr("axes") == nullptr) axes = {0, 2, 3};
  std::vector<int> ax;
  for (int64_t v : axes) {
    const int a = static_cast<int>(v < 0 ? v + rank : v);
    if (a < 0 || a >= rank) return c.UnsupportedAttribute("axes", "axis " + std::to_string(v) + " out of range");
    ax.push_back(a);
  }
  std::sort(ax.begin(), ax.end());
  const std::string base = c.out_name();
  RILL_INF_ASSIGN_OR_RETURN(int mean, Reduce(c, ir::ReduceKind::kSum, x, ax, true, base + "/sum"));
  float count = 1.0f;
  for (int a : ax) count *= static_cast<float>(c.ShapeOf(x)[a]);
  const int inv = c.NewFloatConst(base + "/inv_count", {}, {1.0f / count});
  RILL_INF_ASSIGN_OR_RETURN(int m, c.Emit(OpType::kMul, {mean, inv}, base + "/mean"));
  RILL_INF_ASSIGN_OR_RETURN(int centred, c.Emit(OpType::kSub, {x, m}, base + "/centred"));
  RILL_INF_ASSIGN_OR_RETURN(int sq, c.Emit(OpType::kMul, {centred, centred}, base + "/squared"));
  RILL_INF_ASSIGN_OR_RETURN(int var_sum, Reduce(c, ir::ReduceKind::kSum, sq, ax, true, base + "/var_sum"));
  RILL_INF_ASSIGN_OR_RETURN(int var, c.Emit(OpType::kMul, {var_sum, inv}, base + "/variance"));
  RILL_INF_ASSIGN_OR_RETURN(int sd, Unary(c, ir::UnaryFn::kSqrt, var, base + "/sd"));
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kDiv, {centred, sd}, base));
  c.Define(y, false);
  return Status::Ok();
}

// LpNormalization: x / ||x||_p along `axis` (p 1 or 2), as ONNX Runtime
// divides (a zero norm gives its IEEE quotient).
Status LpNormalization(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const int rank = static_cast<int>(c.ShapeOf(x).size());
  int axis = static_cast<int>(c.AttrInt("axis", -1));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return c.UnsupportedAttribute("axis", "axis out of range");
  const int64_t p = c.AttrInt("p", 2);
  if (p != 1 && p != 2) return c.UnsupportedAttribute("p", "p " + std::to_string(p) + " (1 and 2 are)");
  const std::string base = c.out_name();
  int norm = -1;
  if (p == 2) {
    RILL_INF_ASSIGN_OR_RETURN(norm, Reduce(c, ir::ReduceKind::kL2, x, {axis}, true, base + "/norm"));
  } else {
    RILL_INF_ASSIGN_OR_RETURN(int abs, Unary(c, ir::UnaryFn::kAbs, x, base + "/abs"));
    RILL_INF_ASSIGN_OR_RETURN(norm, Reduce(c, ir::ReduceKind::kSum, abs, {axis}, true, base + "/norm"));
  }
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kDiv, {x, norm}, base));
  c.Define(y, false);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"MeanVarianceNormalization"}, MeanVarianceNormalization) &&
    RegisterOnnxConverter({"LpNormalization"}, LpNormalization) &&
    RegisterOnnxConverter({"ReduceMean"}, ReduceMean) && RegisterOnnxConverter({"Softmax"}, Softmax) &&
    RegisterOnnxConverter({"LogSoftmax"}, LogSoftmax) &&
    RegisterOnnxConverter({"ReduceL1", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}, ComposedReduce);

}  // namespace

StatusOr<AxisView> SoftmaxAxisView(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  AxisView v;
  RILL_INF_ASSIGN_OR_RETURN(v.x, c.ToNchw(xv));
  v.shape = c.ShapeOf(v.x);
  v.rank = static_cast<int>(v.shape.size());
  int axis = static_cast<int>(c.AttrInt("axis", c.opset() >= 13 ? -1 : 1));
  if (axis < 0) axis += v.rank;
  if (axis < 0 || axis >= v.rank) return c.UnsupportedAttribute("axis", "axis out of range");
  v.axis = axis;
  v.length = v.shape[axis];
  for (int d = axis + 1; c.opset() < 13 && d < v.rank; ++d) v.coerced = v.coerced || v.shape[d] != 1;
  if (v.coerced) {
    int inner = 1;
    for (int d = axis; d < v.rank; ++d) inner *= v.shape[d];
    ir::OpAttrs flat;
    flat.new_shape = {-1, inner};
    RILL_INF_ASSIGN_OR_RETURN(v.x, c.Emit(OpType::kReshape, {v.x}, c.out_name() + "/2d", flat));
    v.axis = 1;
    v.rank = 2;
    v.length = inner;
  }
  return v;
}

std::string AxisViewOutName(ConverterContext& c, const AxisView& v) {
  return v.coerced ? c.out_name() + "/2d_out" : c.out_name();
}

Status DefineFromAxisView(ConverterContext& c, const AxisView& v, int y) {
  if (v.coerced) {
    ir::OpAttrs back;
    back.new_shape = std::vector<int>(v.shape.begin(), v.shape.end());
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kReshape, {y}, c.out_name(), back));
  }
  c.Define(y, false);
  return Status::Ok();
}

}  // namespace rill::inference::onnx_import
