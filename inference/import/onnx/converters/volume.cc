// Conv, ConvTranspose, MaxPool and AveragePool over three spatial axes
// (NCDHW values): CONV_3D, CONV_TRANSPOSE_3D and POOL_3D with ONNX's
// attributes, auto_pad resolved to explicit pads from the input's sizes.
#include "inference/import/onnx/converters/volume.h"

#include <memory>
#include <string>
#include <vector>

#include "inference/ir/ops/volume_ops.h"

namespace rill::inference::onnx_import {
namespace {

// strides, dilations (when `dilation` is not null) and pads of a 3-D window
// op with kernel `k` over input sizes `in` (D, H, W).
Status ReadWindow3d(ConverterContext& c, const int* in, const int* k, int* stride, int* dilation, int* pad_begin,
                    int* pad_end) {
  const std::vector<int64_t> strides = c.AttrInts("strides"), dilations = c.AttrInts("dilations"),
                             pads = c.AttrInts("pads");
  if ((!strides.empty() && strides.size() != 3) || (!dilations.empty() && dilations.size() != 3) ||
      (!pads.empty() && pads.size() != 6)) {
    return c.UnsupportedAttribute("strides", "a 3-D op takes 3 strides, 3 dilations and 6 pads");
  }
  if (dilation == nullptr && !dilations.empty()) {
    for (int64_t d : dilations) {
      if (d != 1) return c.UnsupportedAttribute("dilations", "dilated pooling");
    }
  }
  for (int a = 0; a < 3; ++a) {
    stride[a] = strides.empty() ? 1 : static_cast<int>(strides[a]);
    const int d = dilations.empty() ? 1 : static_cast<int>(dilations[a]);
    if (dilation != nullptr) dilation[a] = d;
    if (stride[a] < 1 || stride[a] > (1 << 20) || d < 1 || d > (1 << 20)) {
      return c.UnsupportedAttribute("strides", "strides and dilations must be in [1, 2^20]");
    }
  }
  const std::string auto_pad = c.AttrString("auto_pad", "NOTSET");
  for (int a = 0; a < 3; ++a) {
    const int d = dilation != nullptr ? dilation[a] : 1;
    if (auto_pad == "NOTSET" || auto_pad.empty()) {
      pad_begin[a] = pads.empty() ? 0 : static_cast<int>(pads[a]);
      pad_end[a] = pads.empty() ? 0 : static_cast<int>(pads[a + 3]);
      if (pad_begin[a] < 0 || pad_end[a] < 0 || pad_begin[a] > (1 << 20) || pad_end[a] > (1 << 20)) {
        return c.UnsupportedAttribute("pads", "negative or huge pads");
      }
    } else if (auto_pad == "VALID") {
      pad_begin[a] = pad_end[a] = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const long long out = (static_cast<long long>(in[a]) + stride[a] - 1) / stride[a];
      const long long effective = static_cast<long long>(k[a] - 1) * d + 1;
      const long long total = std::max(0LL, (out - 1) * stride[a] + effective - in[a]);
      const int small = static_cast<int>(total / 2), large = static_cast<int>(total - total / 2);
      pad_begin[a] = auto_pad == "SAME_UPPER" ? small : large;
      pad_end[a] = auto_pad == "SAME_UPPER" ? large : small;
    } else {
      return c.UnsupportedAttribute("auto_pad", "auto_pad '" + auto_pad + "'");
    }
  }
  return Status::Ok();
}

}  // namespace

Status Conv3d(ConverterContext& c, const Value& x, int w_id) {
  const Shape xs = c.ShapeOf(x.id);
  const Shape ws = c.ShapeOf(w_id);  // O, I/g, kd, kh, kw
  if (xs.size() != 5) return c.Unsupported("a 3-D convolution needs a 5-D input, has " + ShapeToString(xs));
  auto a = std::make_shared<ir::Conv3dAttrs>();
  a->group = static_cast<int>(c.AttrInt("group", 1));
  const int in[3] = {xs[2], xs[3], xs[4]}, k[3] = {ws[2], ws[3], ws[4]};
  RILL_INF_RETURN_IF_ERROR(ReadWindow3d(c, in, k, a->stride, a->dilation, a->pad_begin, a->pad_end));
  if (a->group < 1 || static_cast<long long>(ws[1]) * a->group != xs[1] || ws[0] % a->group != 0) {
    return c.UnsupportedAttribute("group", "weights " + ShapeToString(ws) + " with group=" + std::to_string(a->group) +
                                               " do not match " + std::to_string(xs[1]) + " input channels");
  }
  std::vector<int> inputs = {x.id, w_id};
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(int b, c.ConstInput(2));
    inputs.push_back(b);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::Conv3dOp(), inputs, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status ConvTranspose3d(ConverterContext& c, const Value& x, int w_id) {
  const Shape xs = c.ShapeOf(x.id);
  const Shape ws = c.ShapeOf(w_id);  // C, O/g, kd, kh, kw
  if (xs.size() != 5) return c.Unsupported("a 3-D transposed convolution needs a 5-D input, has " + ShapeToString(xs));
  const std::string auto_pad = c.AttrString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && !auto_pad.empty()) return c.UnsupportedAttribute("auto_pad", "auto_pad on ConvTranspose");
  auto a = std::make_shared<ir::ConvTranspose3dAttrs>();
  a->group = static_cast<int>(c.AttrInt("group", 1));
  const int in[3] = {xs[2], xs[3], xs[4]}, k[3] = {ws[2], ws[3], ws[4]};
  RILL_INF_RETURN_IF_ERROR(ReadWindow3d(c, in, k, a->stride, a->dilation, a->pad_begin, a->pad_end));
  const std::vector<int64_t> out_pad = c.AttrInts("output_padding");
  if (!out_pad.empty() && out_pad.size() != 3) return c.UnsupportedAttribute("output_padding", "3 values for a 3-D op");
  for (size_t i = 0; i < out_pad.size(); ++i) a->output_padding[i] = static_cast<int>(out_pad[i]);
  if (a->group < 1 || ws[0] != xs[1] || xs[1] % a->group != 0) {
    return c.UnsupportedAttribute("group", "weights " + ShapeToString(ws) + " with group=" + std::to_string(a->group) +
                                               " do not match " + std::to_string(xs[1]) + " input channels");
  }
  std::vector<int> inputs = {x.id, w_id};
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(int b, c.ConstInput(2));
    inputs.push_back(b);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ConvTranspose3dOp(), inputs, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

Status Pool3d(ConverterContext& c, const Value& x) {
  const Shape xs = c.ShapeOf(x.id);
  if (xs.size() != 5) return c.Unsupported("a 3-D pool needs a 5-D input, has " + ShapeToString(xs));
  const std::vector<int64_t> kernel = c.AttrInts("kernel_shape");
  auto a = std::make_shared<ir::Pool3dAttrs>();
  a->max = c.op_type() == "MaxPool";
  for (int i = 0; i < 3; ++i) {
    if (kernel[i] < 1 || kernel[i] > (1 << 20)) return c.UnsupportedAttribute("kernel_shape", "kernel_shape out of range");
    a->kernel[i] = static_cast<int>(kernel[i]);
  }
  const int in[3] = {xs[2], xs[3], xs[4]};
  RILL_INF_RETURN_IF_ERROR(ReadWindow3d(c, in, a->kernel, a->stride, nullptr, a->pad_begin, a->pad_end));
  a->ceil_mode = c.AttrInt("ceil_mode", 0) != 0;
  a->count_include_pad = c.AttrInt("count_include_pad", 0) != 0;
  if (c.node().output_size() > 1 && !c.node().output(1).empty()) return c.Unsupported("MaxPool indices output");
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::Pool3dOp(), {x.id}, c.out_name(), {}, a));
  c.Define(out, false);
  return Status::Ok();
}

}  // namespace rill::inference::onnx_import
