// Conv and ConvTranspose: NHWC input, OIHW weights reordered to the engine's
// OHWI filters at import.
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status Conv(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int w_id, c.ConstInput(1));
  const Shape ws = c.ShapeOf(w_id);  // O, I/g, kh, kw
  if (ws.size() != 4) return c.Unsupported("only 2-D convolutions");
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  const int in_c = c.ShapeOf(xi)[3];
  const int group = static_cast<int>(c.AttrInt("group", 1));
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(c.ReadPadding(&a));
  RILL_INF_RETURN_IF_ERROR(c.ReadStridesDilations(&a));
  const int o = ws[0], ipg = ws[1], kh = ws[2], kw = ws[3];
  if (group < 1 || static_cast<long long>(ipg) * group != in_c || o % group != 0) {
    return c.UnsupportedAttribute("group", "weights " + ShapeToString(ws) + " with group=" + std::to_string(group) +
                                               " do not match " + std::to_string(in_c) + " input channels");
  }
  const std::vector<float> w = c.ConstFloats(w_id);
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
  std::vector<int> inputs = {xi, c.NewFloatConst(c.tensor(w_id).name + "/ohwi", fshape, f)};
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(int b, c.ConstInput(2));
    inputs.push_back(b);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(type, inputs, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

Status ConvTranspose(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int w_id, c.ConstInput(1));
  const Shape ws = c.ShapeOf(w_id);  // I, O/g, kh, kw
  if (ws.size() != 4) return c.Unsupported("only 2-D transposed convolutions");
  if (!c.AttrInts("output_shape").empty()) return c.UnsupportedAttribute("output_shape", "output_shape attribute");
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
  // Weights (C, M/group, kh, kw) -> [M, kh, kw, C/group]: output channel
  // g * M/group + m reads input channels g * C/group + j.
  const int ci = ws[0], cog = ws[1], kh = ws[2], kw = ws[3];
  const int group = static_cast<int>(c.AttrInt("group", 1));
  if (group < 1 || ci != c.ShapeOf(xi)[3] || ci % group != 0 || static_cast<long long>(cog) * group > (1 << 24)) {
    return c.UnsupportedAttribute("group", "weights " + ShapeToString(ws) + " with group=" + std::to_string(group) +
                                               " do not match " + std::to_string(c.ShapeOf(xi)[3]) + " input channels");
  }
  const int cig = ci / group, co = cog * group;
  const std::vector<float> w = c.ConstFloats(w_id);
  std::vector<float> f(w.size());
  for (int ic = 0; ic < ci; ++ic)
    for (int m = 0; m < cog; ++m)
      for (int y = 0; y < kh; ++y)
        for (int xx = 0; xx < kw; ++xx) {
          const size_t oc = static_cast<size_t>(ic / cig) * cog + m;
          f[((oc * kh + y) * kw + xx) * cig + ic % cig] = w[((static_cast<size_t>(ic) * cog + m) * kh + y) * kw + xx];
        }
  std::vector<int> inputs = {xi, c.NewFloatConst(c.tensor(w_id).name + "/ohwi", {co, kh, kw, cig}, f)};
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(int b, c.ConstInput(2));
    inputs.push_back(b);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kTransposeConv2D, inputs, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

const bool kRegistered =
    RegisterOnnxConverter({"Conv"}, Conv) && RegisterOnnxConverter({"ConvTranspose"}, ConvTranspose);

}  // namespace
}  // namespace rill::inference::onnx_import
