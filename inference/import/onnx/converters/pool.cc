// MaxPool, AveragePool and GlobalAveragePool on NHWC values.
#include <string>
#include <vector>

#include "inference/import/onnx/onnx_converter.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

Status Pool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(c.ReadPadding(&a));
  RILL_INF_RETURN_IF_ERROR(c.ReadStridesDilations(&a));
  if (a.dilation_h != 1 || a.dilation_w != 1) return c.UnsupportedAttribute("dilations", "dilated pooling");
  const std::vector<int64_t> k = c.AttrInts("kernel_shape");
  if (k.size() != 2) return c.UnsupportedAttribute("kernel_shape", "kernel_shape must have 2 values");
  a.kernel_h = static_cast<int>(k[0]);
  a.kernel_w = static_cast<int>(k[1]);
  a.ceil_mode = c.AttrInt("ceil_mode", 0) != 0;
  const bool is_max = c.op_type() == "MaxPool";
  if (!is_max && c.AttrInt("count_include_pad", 0) != 0 &&
      (a.pad_top || a.pad_left || a.pad_bottom || a.pad_right || a.padding == ir::Padding::kSame)) {
    return c.UnsupportedAttribute("count_include_pad", "count_include_pad=1 with padding");
  }
  if (c.node().output_size() > 1 && !c.node().output(1).empty()) return c.Unsupported("MaxPool indices output");
  RILL_INF_ASSIGN_OR_RETURN(int out,
                            c.Emit(is_max ? OpType::kMaxPool2D : OpType::kAveragePool2D, {xi}, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

Status GlobalAveragePool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  ir::OpAttrs a;
  a.keep_dims = true;
  const int axes = c.NewInt32Const(c.out_name() + "/axes", {2}, {1, 2});
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kMean, {xi, axes}, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"MaxPool", "AveragePool"}, Pool) &&
                         RegisterOnnxConverter({"GlobalAveragePool"}, GlobalAveragePool);

}  // namespace
}  // namespace rill::inference::onnx_import
