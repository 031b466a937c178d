// DeformConv (opset 19, 2-D) lowered at import, with no op of its own: each
// kernel tap's sampling point (its place in the window plus the offset
// computed at run time) becomes a GRID_SAMPLE grid (bilinear, zeros outside,
// which is DeformConv's interpolation: a corner outside the image adds 0),
// one sampling per offset group; the samples are scaled by the mask and
// multiplied by the weights as one BATCH_MATMUL per conv group (the im2col
// form of the conv), then the bias is added.
//
//   offset [N, G*K*2, oH, oW] -> [N, G, K, oH, oW, (dy, dx)] + the taps'
//   places -> normalized, (x, y) -> grid [N*G, K*oH, oW, 2];
//   x [N*G, C/G, H, W] sampled -> [N*G, C/G, K*oH, oW] (* mask) ->
//   columns [N, group, C/group*K, oH*oW]; weights [1, group, oC/group,
//   C/group*K] x columns -> [N, oC, oH, oW].
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/grid_sample_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status DeformConv(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value wv, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(Value ov, c.Input(2));
  if (!c.IsConst(wv.id)) return c.Unsupported("weights computed at run time (constant weights are supported)");
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  RILL_INF_ASSIGN_OR_RETURN(int offset, c.ToNchw(ov));
  const Shape xs = c.ShapeOf(x), ws = c.ShapeOf(wv.id), os = c.ShapeOf(offset);
  if (xs.size() != 4 || ws.size() != 4) return c.Unsupported("only 2-D DeformConv (4-D input and weights)");
  if (ir::HasDynamicDim(xs) || ir::HasDynamicDim(os)) {
    return c.Unsupported("DeformConv of values whose sizes are known only at run time");
  }
  const int n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
  const int oc = ws[0], kh = ws[2], kw = ws[3], k = kh * kw;
  const int64_t group = c.AttrInt("group", 1), og = c.AttrInt("offset_group", 1);
  if (group < 1 || og < 1 || ch % group != 0 || oc % group != 0 || ch % og != 0) {
    return c.Invalid("group and offset_group must divide the channels");
  }
  if (ws[1] != ch / group) return c.Invalid("weights " + ShapeToString(ws) + " do not fit the input's channels");
  const std::vector<int64_t> ks = c.AttrInts("kernel_shape");
  if (!ks.empty() && (ks.size() != 2 || ks[0] != kh || ks[1] != kw)) {
    return c.Invalid("kernel_shape differs from the weights'");
  }
  std::vector<int64_t> strides = c.AttrInts("strides"), dil = c.AttrInts("dilations"), pads = c.AttrInts("pads");
  if (strides.empty()) strides = {1, 1};
  if (dil.empty()) dil = {1, 1};
  if (pads.empty()) pads = {0, 0, 0, 0};
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4) {
    return c.Invalid("strides, dilations and pads must have 2, 2 and 4 values");
  }
  for (int64_t v : {strides[0], strides[1], dil[0], dil[1]}) {
    if (v < 1 || v > (1 << 20)) return c.Invalid("strides and dilations must be positive");
  }
  for (int64_t p : pads) {
    if (p < 0 || p > (1 << 20)) return c.Invalid("pads must be non-negative");
  }
  const int64_t room_h = h + pads[0] + pads[2] - (dil[0] * (kh - 1) + 1);
  const int64_t room_w = w + pads[1] + pads[3] - (dil[1] * (kw - 1) + 1);
  if (room_h < 0 || room_w < 0) return c.Invalid("kernel larger than the padded input");
  const int oh = static_cast<int>(room_h / strides[0] + 1), ow = static_cast<int>(room_w / strides[1] + 1);
  const int g = static_cast<int>(og);
  if (os != Shape{n, g * k * 2, oh, ow}) {
    return c.Invalid("offset " + ShapeToString(os) + " must be " + ShapeToString({n, g * k * 2, oh, ow}));
  }
  const std::string base = c.out_name();
  // The taps' places (y, x) in the input, [1, 1, K, oH, oW, 2].
  std::vector<float> places(static_cast<size_t>(k) * oh * ow * 2);
  for (int i = 0; i < kh; ++i) {
    for (int j = 0; j < kw; ++j) {
      for (int y = 0; y < oh; ++y) {
        for (int xx = 0; xx < ow; ++xx) {
          float* p = &places[((static_cast<size_t>(i * kw + j) * oh + y) * ow + xx) * 2];
          p[0] = static_cast<float>(y * strides[0] - pads[0] + i * dil[0]);
          p[1] = static_cast<float>(xx * strides[1] - pads[1] + j * dil[1]);
        }
      }
    }
  }
  RILL_INF_ASSIGN_OR_RETURN(int off6, EmitReshape(c, offset, {n, g, k, 2, oh, ow}, base + "/offsets"));
  ir::OpAttrs t;
  t.perm = {0, 1, 2, 4, 5, 3};
  RILL_INF_ASSIGN_OR_RETURN(int offl, c.Emit(OpType::kTranspose, {off6}, base + "/offsets_last", t));
  const int places_id = c.NewFloatConst(base + "/places", {1, 1, k, oh, ow, 2}, places);
  RILL_INF_ASSIGN_OR_RETURN(int pts, c.Emit(OpType::kAdd, {offl, places_id}, base + "/points"));
  // Normalized for GRID_SAMPLE without align_corners: (2 p + 1) / size - 1.
  const int scale = c.NewFloatConst(base + "/scale", {2}, {2.0f / static_cast<float>(h), 2.0f / static_cast<float>(w)});
  const int shift = c.NewFloatConst(base + "/shift", {2}, {1.0f / static_cast<float>(h) - 1.0f,
                                                             1.0f / static_cast<float>(w) - 1.0f});
  RILL_INF_ASSIGN_OR_RETURN(int scaled, c.Emit(OpType::kMul, {pts, scale}, base + "/scaled"));
  RILL_INF_ASSIGN_OR_RETURN(int norm, c.Emit(OpType::kAdd, {scaled, shift}, base + "/normalized"));
  auto ga = std::make_shared<ir::AxisAttrs>();  // (y, x) -> (x, y)
  ga->axis = 5;
  const int swap = c.NewIntConst(base + "/xy", {1, 0});
  RILL_INF_ASSIGN_OR_RETURN(int xy, c.Emit(ir::GatherOp(), {norm, swap}, base + "/xy_points", {}, ga));
  RILL_INF_ASSIGN_OR_RETURN(int grid, EmitReshape(c, xy, {n * g, k * oh, ow, 2}, base + "/grid"));
  RILL_INF_ASSIGN_OR_RETURN(int xg, EmitReshape(c, x, {n * g, ch / g, h, w}, base + "/offset_groups"));
  auto gs = std::make_shared<ir::GridSampleAttrs>();
  RILL_INF_ASSIGN_OR_RETURN(int sampled, c.Emit(ir::GridSampleOp(), {xg, grid}, base + "/sampled", {}, gs));
  if (c.HasInput(4)) {
    RILL_INF_ASSIGN_OR_RETURN(Value mv, c.Input(4));
    RILL_INF_ASSIGN_OR_RETURN(int mask, c.ToNchw(mv));
    if (c.ShapeOf(mask) != Shape{n, g * k, oh, ow}) {
      return c.Invalid("mask must be [N, offset_group * kH * kW, oH, oW]");
    }
    RILL_INF_ASSIGN_OR_RETURN(int m, EmitReshape(c, mask, {n * g, 1, k * oh, ow}, base + "/mask"));
    RILL_INF_ASSIGN_OR_RETURN(sampled, c.Emit(OpType::kMul, {sampled, m}, base + "/masked"));
  }
  const int gr = static_cast<int>(group), per_in = ch / gr * k, per_out = oc / gr;
  RILL_INF_ASSIGN_OR_RETURN(int cols, EmitReshape(c, sampled, {n, gr, per_in, oh * ow}, base + "/columns"));
  const int weights = c.NewFloatConst(base + "/weights", {1, gr, per_out, per_in}, c.ConstFloats(wv.id));
  auto mm = std::make_shared<ir::BatchMatMulAttrs>();
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(ir::BatchMatMulOp(), {weights, cols}, base + "/products", {}, mm));
  const bool bias = c.HasInput(3);
  RILL_INF_ASSIGN_OR_RETURN(y, EmitReshape(c, y, {n, oc, oh, ow}, bias ? base + "/unbiased" : base));
  if (bias) {
    RILL_INF_ASSIGN_OR_RETURN(Value bv, c.Input(3));
    if (!c.IsConst(bv.id)) return c.Unsupported("a bias computed at run time (a constant is supported)");
    const std::vector<float> b = c.ConstFloats(bv.id);
    if (static_cast<int>(b.size()) != oc) return c.Invalid("bias must hold one value per output channel");
    const int bias_id = c.NewFloatConst(base + "/bias", {1, oc, 1, 1}, b);
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kAdd, {y, bias_id}, base));
  }
  c.Define(y, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"DeformConv"}, DeformConv);

}  // namespace
}  // namespace rill::inference::onnx_import
