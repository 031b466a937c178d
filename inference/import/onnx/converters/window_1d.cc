#include "inference/import/onnx/converters/window_1d.h"

#include <string>
#include <vector>

namespace rill::inference::onnx_import {

Status Read1dWindow(ConverterContext& c, ir::OpAttrs* a) {
  const std::vector<int64_t> strides = c.AttrInts("strides"), pads = c.AttrInts("pads");
  if (strides.size() > 1 || (!pads.empty() && pads.size() != 2)) {
    return c.UnsupportedAttribute("strides", "strides and pads of a 1-D op take 1 and 2 values");
  }
  a->stride_w = strides.empty() ? 1 : static_cast<int>(strides[0]);
  if (a->stride_w < 1 || a->stride_w > (1 << 20)) return c.UnsupportedAttribute("strides", "strides out of range");
  a->padding = ir::Padding::kExplicit;
  const std::string auto_pad = c.AttrString("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    a->padding = ir::Padding::kValid;
  } else if (auto_pad == "SAME_UPPER") {
    a->padding = ir::Padding::kSame;
  } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
    if (!pads.empty()) {
      if (pads[0] < 0 || pads[1] < 0 || pads[0] > (1 << 20) || pads[1] > (1 << 20)) {
        return c.UnsupportedAttribute("pads", "negative or huge pads");
      }
      a->pad_left = static_cast<int>(pads[0]);
      a->pad_right = static_cast<int>(pads[1]);
    }
  } else {
    return c.UnsupportedAttribute("auto_pad", "auto_pad '" + auto_pad + "'");
  }
  return Status::Ok();
}

StatusOr<int> As2d(ConverterContext& c, const Value& x) {
  const Shape xs = c.ShapeOf(x.id);
  if (xs.size() != 3) return c.Unsupported("a 1-D op needs a 3-D input, has " + ShapeToString(xs));
  ir::OpAttrs to4;
  to4.new_shape = {xs[0], xs[1], 1, xs[2]};
  RILL_INF_ASSIGN_OR_RETURN(int x4, c.Emit(ir::OpType::kReshape, {x.id}, c.out_name() + "/as_2d", to4));
  return c.ToNhwc(Value{x4, false});
}

Status From2d(ConverterContext& c, int y) {
  RILL_INF_ASSIGN_OR_RETURN(int yn, c.ToNchw(Value{y, true}));
  const Shape ys = c.ShapeOf(yn);  // N, C', 1, L'
  ir::OpAttrs to3;
  to3.new_shape = {ys[0], ys[1], ys[3]};
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::OpType::kReshape, {yn}, c.out_name(), to3));
  c.Define(out, false);
  return Status::Ok();
}

}  // namespace rill::inference::onnx_import
