// GridSample (opset 16, 4-D): GRID_SAMPLE on the channels-first input.
// Opset 20's names for the modes (linear, cubic) are taken too.
#include <memory>
#include <string>

#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/grid_sample_ops.h"

namespace rill::inference::onnx_import {
namespace {

Status GridSample(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value grid, c.Input(1));
  if (c.ShapeOf(x.id).size() != 4) return c.Unsupported("only 4-D GridSample");
  auto a = std::make_shared<ir::GridSampleAttrs>();
  const std::string mode = c.AttrString("mode", "bilinear");
  if (mode == "bilinear" || mode == "linear") a->mode = ir::GridSampleAttrs::Mode::kBilinear;
  else if (mode == "nearest") a->mode = ir::GridSampleAttrs::Mode::kNearest;
  else if (mode == "bicubic" || mode == "cubic") a->mode = ir::GridSampleAttrs::Mode::kBicubic;
  else return c.UnsupportedAttribute("mode", "mode '" + mode + "'");
  const std::string padding = c.AttrString("padding_mode", "zeros");
  if (padding == "zeros") a->padding = ir::GridSampleAttrs::PaddingMode::kZeros;
  else if (padding == "border") a->padding = ir::GridSampleAttrs::PaddingMode::kBorder;
  else if (padding == "reflection") a->padding = ir::GridSampleAttrs::PaddingMode::kReflection;
  else return c.UnsupportedAttribute("padding_mode", "padding_mode '" + padding + "'");
  a->align_corners = c.AttrInt("align_corners", 0) != 0;
  RILL_INF_ASSIGN_OR_RETURN(int xn, c.ToNchw(x));
  // The grid is [N, Ho, Wo, 2] as ONNX lays it out: a plain 4-D value.
  RILL_INF_ASSIGN_OR_RETURN(int gn, c.ToNchw(grid));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::GridSampleOp(), {xn, gn}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"GridSample"}, GridSample);

}  // namespace
}  // namespace rill::inference::onnx_import
