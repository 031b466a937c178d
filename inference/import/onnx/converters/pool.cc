// MaxPool, AveragePool and GlobalAveragePool on NHWC values; 1-D pools as
// 2-D ones over a height of 1, 3-D ones as POOL_3D (converters/volume.cc);
// GlobalMaxPool as REDUCE_MAX.
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/volume.h"
#include "inference/import/onnx/converters/window_1d.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

// A 1-D pool ([N, C, L]) as a 2-D one over [N, C, 1, L].
Status Pool1d(ConverterContext& c, const Value& x) {
  for (int64_t d : c.AttrInts("dilations")) {
    if (d != 1) return c.UnsupportedAttribute("dilations", "dilated pooling");
  }
  ir::OpAttrs a;
  RILL_INF_RETURN_IF_ERROR(Read1dWindow(c, &a));
  a.kernel_h = 1;
  a.kernel_w = static_cast<int>(c.AttrInts("kernel_shape")[0]);
  a.ceil_mode = c.AttrInt("ceil_mode", 0) != 0;
  const bool is_max = c.op_type() == "MaxPool";
  if (!is_max && c.AttrInt("count_include_pad", 0) != 0 && (a.pad_left || a.pad_right || a.padding == ir::Padding::kSame)) {
    return c.UnsupportedAttribute("count_include_pad", "count_include_pad=1 with padding");
  }
  if (c.node().output_size() > 1 && !c.node().output(1).empty()) return c.Unsupported("MaxPool indices output");
  RILL_INF_ASSIGN_OR_RETURN(int xi, As2d(c, x));
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(is_max ? OpType::kMaxPool2D : OpType::kAveragePool2D, {xi},
                                         c.out_name() + "/2d", a));
  return From2d(c, y);
}

Status Pool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const size_t spatial = c.AttrInts("kernel_shape").size();
  if (spatial == 1) return Pool1d(c, x);
  if (spatial == 3) return Pool3d(c, x);
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
  const int rank = static_cast<int>(c.ShapeOf(x.id).size());
  if (rank != 4) {
    // 1-D and 3-D (NCL, NCDHW): the mean over every axis after the channels.
    if (rank < 3) return c.Unsupported("GlobalAveragePool needs an input of rank >= 3");
    ir::OpAttrs a;
    a.keep_dims = true;
    std::vector<int> axes;
    for (int d = 2; d < rank; ++d) axes.push_back(d);
    const int axes_id = c.NewInt32Const(c.out_name() + "/axes", {rank - 2}, axes);
    RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kMean, {x.id, axes_id}, c.out_name(), a));
    c.Define(out, false);
    return Status::Ok();
  }
  RILL_INF_ASSIGN_OR_RETURN(int xi, c.ToNhwc(x));
  ir::OpAttrs a;
  a.keep_dims = true;
  const int axes = c.NewInt32Const(c.out_name() + "/axes", {2}, {1, 2});
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(OpType::kMean, {xi, axes}, c.out_name(), a));
  c.Define(out, true);
  return Status::Ok();
}

// The maximum over every axis after the channels (REDUCE_MAX, kept dims; in
// place of the layout for an NHWC value).
Status GlobalMaxPool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const int rank = static_cast<int>(c.ShapeOf(x.id).size());
  if (rank < 3) return c.Unsupported("GlobalMaxPool needs an input of rank >= 3");
  auto a = std::make_shared<ir::ReduceAttrs>();
  a->keep_dims = true;
  int xi = x.id;
  if (x.nhwc) {
    a->axes = {1, 2};
  } else {
    RILL_INF_ASSIGN_OR_RETURN(xi, c.ToNchw(x));
    for (int d = 2; d < rank; ++d) a->axes.push_back(d);
  }
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ReduceOp(ir::ReduceKind::kMax), {xi}, c.out_name(), {}, a));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"MaxPool", "AveragePool"}, Pool) &&
                         RegisterOnnxConverter({"GlobalAveragePool"}, GlobalAveragePool) &&
                         RegisterOnnxConverter({"GlobalMaxPool"}, GlobalMaxPool);

}  // namespace
}  // namespace rill::inference::onnx_import
