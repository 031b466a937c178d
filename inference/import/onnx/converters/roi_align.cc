// RoiAlign (opset 10: output_half_pixel only; opset 16: the
// coordinate_transformation_mode attribute, half_pixel by default):
// ROI_ALIGN on the input in the layout it comes in (a conv's NHWC output
// as is: no transpose of a feature map per level), the rois and batch
// indices as they come. Its output [R, C, out_h, out_w] is a plain
// channels-first value. MaxRoiPool: MAX_ROI_POOL (ir/ops/max_roi_pool_ops.h)
// on the input as NHWC, its output NHWC.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/max_roi_pool_ops.h"
#include "inference/ir/ops/roi_align_ops.h"

namespace rill::inference::onnx_import {
namespace {

Status RoiAlign(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value rois, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(Value batch_indices, c.Input(2));
  if (c.ShapeOf(x.id).size() != 4) return c.Unsupported("only 4-D RoiAlign input");
  auto a = std::make_shared<ir::RoiAlignAttrs>();
  const std::string mode = c.AttrString("mode", "avg");
  if (mode == "avg") a->max_mode = false;
  else if (mode == "max") a->max_mode = true;
  else return c.UnsupportedAttribute("mode", "mode '" + mode + "'");
  const std::string transform =
      c.AttrString("coordinate_transformation_mode", c.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform == "half_pixel") a->half_pixel = true;
  else if (transform == "output_half_pixel") a->half_pixel = false;
  else return c.UnsupportedAttribute("coordinate_transformation_mode", "coordinate_transformation_mode '" + transform + "'");
  const int64_t out_h = c.AttrInt("output_height", 1), out_w = c.AttrInt("output_width", 1);
  const int64_t ratio = c.AttrInt("sampling_ratio", 0);
  if (out_h < 1 || out_w < 1 || out_h > (1 << 16) || out_w > (1 << 16)) {
    return c.UnsupportedAttribute("output_height", "output size " + std::to_string(out_h) + "x" + std::to_string(out_w));
  }
  if (ratio < 0 || ratio > (1 << 16)) return c.UnsupportedAttribute("sampling_ratio", "sampling_ratio " + std::to_string(ratio));
  a->out_h = static_cast<int>(out_h);
  a->out_w = static_cast<int>(out_w);
  a->sampling_ratio = static_cast<int>(ratio);
  a->spatial_scale = c.AttrFloat("spatial_scale", 1.0f);
  a->nhwc = x.nhwc;
  int xn = x.id;
  if (!x.nhwc) {
    RILL_INF_ASSIGN_OR_RETURN(xn, c.ToNchw(x));
  }
  RILL_INF_ASSIGN_OR_RETURN(int rn, c.ToNchw(rois));
  RILL_INF_ASSIGN_OR_RETURN(int bn, c.ToNchw(batch_indices));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::RoiAlignOp(), {xn, rn, bn}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status MaxRoiPool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value rois, c.Input(1));
  if (c.OnnxShape(x).size() != 4) return c.Unsupported("only 4-D MaxRoiPool input");
  const std::vector<int64_t> pooled = c.AttrInts("pooled_shape");
  if (pooled.size() != 2) return c.Invalid("pooled_shape must have 2 values");
  if (pooled[0] < 1 || pooled[1] < 1 || pooled[0] > (1 << 16) || pooled[1] > (1 << 16)) {
    return c.UnsupportedAttribute("pooled_shape", "pooled_shape " + std::to_string(pooled[0]) + "x" +
                                                      std::to_string(pooled[1]));
  }
  auto a = std::make_shared<ir::MaxRoiPoolAttrs>();
  a->pooled_h = static_cast<int>(pooled[0]);
  a->pooled_w = static_cast<int>(pooled[1]);
  a->spatial_scale = c.AttrFloat("spatial_scale", 1.0f);
  RILL_INF_ASSIGN_OR_RETURN(int xn, c.ToNhwc(x));
  int rn = rois.id;
  if (c.IsConst(rn) && c.tensor(rn).dtype != DataType::kFloat32) {
    const Shape shape = c.ShapeOf(rn);  // a copy: NewFloatConst grows the shapes
    rn = c.NewFloatConst(c.tensor(rn).name + "/f32", shape, c.ConstFloats(rn));
  } else {
    RILL_INF_ASSIGN_OR_RETURN(rn, c.ToNchw(rois));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::MaxRoiPoolOp(), {xn, rn}, c.out_name(), {}, a));
  c.Define(out, true);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"RoiAlign"}, RoiAlign) && RegisterOnnxConverter({"MaxRoiPool"}, MaxRoiPool);

}  // namespace
}  // namespace rill::inference::onnx_import
