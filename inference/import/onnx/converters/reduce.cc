// ReduceMean and Softmax: reductions over axes, moved to NHWC's numbering
// when the value stays NHWC. Softmax before opset 13 (over the 2-D view from
// its axis) gets a RESHAPE on each side.
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

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

const bool kRegistered =
    RegisterOnnxConverter({"ReduceMean"}, ReduceMean) && RegisterOnnxConverter({"Softmax"}, Softmax);

}  // namespace
}  // namespace rill::inference::onnx_import
