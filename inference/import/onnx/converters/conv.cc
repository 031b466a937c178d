// Conv and ConvTranspose: NHWC input, OIHW weights reordered to the engine's
// OHWI filters at import. 1-D ones run as 2-D ones over a height of 1; 3-D
// ones are CONV_3D and CONV_TRANSPOSE_3D (converters/volume.cc).
#include <string>
#include <vector>

#include "inference/import/onnx/converters/volume.h"
#include "inference/import/onnx/converters/window_1d.h"
#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// CONV_2D (or DEPTHWISE_CONV_2D when every group has one input channel) of
// the NHWC value `xi` with ONNX's OIHW filter `w` of shape `ws`.
StatusOr<int> EmitConv2d(ConverterContext& c, int xi, const std::vector<float>& w, const Shape& ws, int group,
                         ir::OpAttrs a, const std::string& w_name, int bias, const std::string& out_name) {
  const int in_c = c.ShapeOf(xi)[3];
  const int o = ws[0], ipg = ws[1], kh = ws[2], kw = ws[3];
  if (group < 1 || static_cast<long long>(ipg) * group != in_c || o % group != 0) {
    return c.UnsupportedAttribute("group", "weights " + ShapeToString(ws) + " with group=" + std::to_string(group) +
                                               " do not match " + std::to_string(in_c) + " input channels");
  }
  std::vector<float> f(w.size());
  OpType type;
  Shape fshape;
  if (group == 1 || ipg > 1) {
    // Grouped convs (ResNeXt, ShuffleNet) stay one CONV_2D: its filter's
    // ipg input channels of in_c make the groups.
    type = OpType::kConv2D;
    fshape = {o, kh, kw, ipg};
    for (int oc = 0; oc < o; ++oc)
      for (int ic = 0; ic < ipg; ++ic)
        for (int y = 0; y < kh; ++y)
          for (int xx = 0; xx < kw; ++xx)
            f[((static_cast<size_t>(oc) * kh + y) * kw + xx) * ipg + ic] =
                w[((static_cast<size_t>(oc) * ipg + ic) * kh + y) * kw + xx];
  } else {  // group == in_c: depthwise
    type = OpType::kDepthwiseConv2D;
    fshape = {1, kh, kw, o};
    a.depth_multiplier = o / group;
    for (int oc = 0; oc < o; ++oc)
      for (int y = 0; y < kh; ++y)
        for (int xx = 0; xx < kw; ++xx)
          f[(static_cast<size_t>(y) * kw + xx) * o + oc] = w[(static_cast<size_t>(oc) * kh + y) * kw + xx];
  }
  std::vector<int> inputs = {xi, c.NewFloatConst(w_name + "/ohwi", fshape, f)};
  if (bias >= 0) inputs.push_back(bias);
  return c.Emit(type, inputs, out_name, a);
}

// A 1-D convolution ([N, C, L]) as a 2-D one over [N, C, 1, L].
Status Conv1d(ConverterContext& c, const Value& x, int w_id) {
  const Shape ws = c.ShapeOf(w_id);  // O, I/g, k
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(Read1dWindow(c, &a));
  const std::vector<int64_t> dilations = c.AttrInts("dilations");
  if (dilations.size() > 1) return c.UnsupportedAttribute("dilations", "a 1-D op takes 1 dilation");
  a.dilation_w = dilations.empty() ? 1 : static_cast<int>(dilations[0]);
  RILL_INF_ASSIGN_OR_RETURN(int xi, As2d(c, x));
  int bias = -1;
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(bias, c.ConstInput(2));
  }
  RILL_INF_ASSIGN_OR_RETURN(int y, EmitConv2d(c, xi, c.ConstFloats(w_id), {ws[0], ws[1], 1, ws[2]},
                                              static_cast<int>(c.AttrInt("group", 1)), a, c.tensor(w_id).name, bias,
                                              c.out_name() + "/2d"));
  return From2d(c, y);
}

Status Conv(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int w_id, c.ConstInput(1));
  const Shape ws = c.ShapeOf(w_id);  // O, I/g, kh, kw
  if (ws.size() == 3) return Conv1d(c, x, w_id);
  if (ws.size() == 5) return Conv3d(c, x, w_id);
  if (ws.size() != 4) return c.Unsupported("a convolution over " + std::to_string(ws.size() - 2) + " axes");
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(c.ReadPadding(&a));
  RILL_INF_RETURN_IF_ERROR(c.ReadStridesDilations(&a));
  int bias = -1;
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(bias, c.ConstInput(2));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, EmitConv2d(c, xi, c.ConstFloats(w_id), ws, static_cast<int>(c.AttrInt("group", 1)),
                                                a, c.tensor(w_id).name, bias, c.out_name()));
  c.Define(out, true);
  return Status::Ok();
}

// TRANSPOSE_CONV_2D of the NHWC value `xi` with ONNX's (C, M/group, kh, kw)
// filter `w` of shape `ws`; `a` carries strides and explicit pads (the
// output padding already taken off the end pads).
StatusOr<int> EmitConvTranspose2d(ConverterContext& c, int xi, const std::vector<float>& w, const Shape& ws,
                                  int group, const ir::OpAttrs& a, const std::string& w_name, int bias,
                                  const std::string& out_name) {
  // Weights (C, M/group, kh, kw) -> [M, kh, kw, C/group]: output channel
  // g * M/group + m reads input channels g * C/group + j.
  const int ci = ws[0], cog = ws[1], kh = ws[2], kw = ws[3];
  if (group < 1 || ci != c.ShapeOf(xi)[3] || ci % group != 0 || static_cast<long long>(cog) * group > (1 << 24)) {
    return c.UnsupportedAttribute("group", "weights " + ShapeToString(ws) + " with group=" + std::to_string(group) +
                                               " do not match " + std::to_string(c.ShapeOf(xi)[3]) + " input channels");
  }
  const int cig = ci / group, co = cog * group;
  std::vector<float> f(w.size());
  for (int ic = 0; ic < ci; ++ic)
    for (int m = 0; m < cog; ++m)
      for (int y = 0; y < kh; ++y)
        for (int xx = 0; xx < kw; ++xx) {
          const size_t oc = static_cast<size_t>(ic / cig) * cog + m;
          f[((oc * kh + y) * kw + xx) * cig + ic % cig] = w[((static_cast<size_t>(ic) * cog + m) * kh + y) * kw + xx];
        }
  std::vector<int> inputs = {xi, c.NewFloatConst(w_name + "/ohwi", {co, kh, kw, cig}, f)};
  if (bias >= 0) inputs.push_back(bias);
  return c.Emit(OpType::kTransposeConv2D, inputs, out_name, a);
}

// A 1-D transposed convolution ([N, C, L]) as a 2-D one over [N, C, 1, L].
Status ConvTranspose1d(ConverterContext& c, const Value& x, int w_id) {
  const Shape ws = c.ShapeOf(w_id);  // C, M/g, k
  const std::string auto_pad = c.AttrString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && !auto_pad.empty()) return c.UnsupportedAttribute("auto_pad", "auto_pad on ConvTranspose");
  for (int64_t d : c.AttrInts("dilations")) {
    if (d != 1) return c.UnsupportedAttribute("dilations", "dilated ConvTranspose");
  }
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(Read1dWindow(c, &a));
  const std::vector<int64_t> out_pad = c.AttrInts("output_padding");
  if (out_pad.size() > 1) return c.UnsupportedAttribute("output_padding", "a 1-D op takes 1 output_padding");
  if (!out_pad.empty()) a.pad_right -= static_cast<int>(out_pad[0]);
  RILL_INF_ASSIGN_OR_RETURN(int xi, As2d(c, x));
  int bias = -1;
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(bias, c.ConstInput(2));
  }
  RILL_INF_ASSIGN_OR_RETURN(int y, EmitConvTranspose2d(c, xi, c.ConstFloats(w_id), {ws[0], ws[1], 1, ws[2]},
                                                       static_cast<int>(c.AttrInt("group", 1)), a,
                                                       c.tensor(w_id).name, bias, c.out_name() + "/2d"));
  return From2d(c, y);
}

Status ConvTranspose(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int w_id, c.ConstInput(1));
  const Shape ws = c.ShapeOf(w_id);  // I, O/g, kh, kw
  if (!c.AttrInts("output_shape").empty()) return c.UnsupportedAttribute("output_shape", "output_shape attribute");
  if (ws.size() == 3) return ConvTranspose1d(c, x, w_id);
  if (ws.size() == 5) return ConvTranspose3d(c, x, w_id);
  if (ws.size() != 4) return c.Unsupported("a transposed convolution over " + std::to_string(ws.size() - 2) + " axes");
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(c.ReadPadding(&a));
  RILL_INF_RETURN_IF_ERROR(c.ReadStridesDilations(&a));
  if (a.dilation_h != 1 || a.dilation_w != 1) return c.UnsupportedAttribute("dilations", "dilated ConvTranspose");
  if (a.padding != ir::Padding::kExplicit) return c.UnsupportedAttribute("auto_pad", "auto_pad on ConvTranspose");
  const std::vector<int64_t> out_pad = c.AttrInts("output_padding");
  if (out_pad.size() == 2) {
    a.pad_bottom -= static_cast<int>(out_pad[0]);
    a.pad_right -= static_cast<int>(out_pad[1]);
  }
  int bias = -1;
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(bias, c.ConstInput(2));
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, EmitConvTranspose2d(c, xi, c.ConstFloats(w_id), ws,
                                                         static_cast<int>(c.AttrInt("group", 1)), a,
                                                         c.tensor(w_id).name, bias, c.out_name()));
  c.Define(out, true);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"Conv"}, Conv) && RegisterOnnxConverter({"ConvTranspose"}, ConvTranspose);

}  // namespace
}  // namespace rill::inference::onnx_import
