// MaxPool, AveragePool and GlobalAveragePool on NHWC values; 1-D pools as
// 2-D ones over a height of 1, 3-D ones as POOL_3D (converters/volume.cc);
// GlobalMaxPool as REDUCE_MAX. LpPool (1-D and 2-D) lowered: |x|^p (ABS
// and POW; MUL for p = 2), summed over each window by a depthwise conv with
// a filter of ones (the padding adds zeros, as ONNX Runtime's sum over the
// window's elements inside the input), then ^(1/p) (SQRT for p = 2);
// GlobalLpPool with REDUCE_SUM over every axis after the channels.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/volume.h"
#include "inference/import/onnx/converters/window_1d.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/math_ops.h"
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
// The axes a global pool reduces (every one after the channels, kept) and
// the value it reads: an NHWC value as is, else its NCHW form.
StatusOr<std::shared_ptr<ir::ReduceAttrs>> GlobalAxes(ConverterContext& c, const Value& x, const char* op, int* xi) {
  const int rank = static_cast<int>(c.ShapeOf(x.id).size());
  if (rank < 3) return c.Unsupported(std::string(op) + " needs an input of rank >= 3");
  auto a = std::make_shared<ir::ReduceAttrs>();
  a->keep_dims = true;
  *xi = x.id;
  if (x.nhwc) {
    a->axes = {1, 2};
  } else {
    RILL_INF_ASSIGN_OR_RETURN(*xi, c.ToNchw(x));
    for (int d = 2; d < rank; ++d) a->axes.push_back(d);
  }
  return a;
}

Status GlobalMaxPool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  int xi = -1;
  RILL_INF_ASSIGN_OR_RETURN(std::shared_ptr<ir::ReduceAttrs> a, GlobalAxes(c, x, "GlobalMaxPool", &xi));
  RILL_INF_ASSIGN_OR_RETURN(int out, c.Emit(ir::ReduceOp(ir::ReduceKind::kMax), {xi}, c.out_name(), {}, a));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

// |x|^p (MUL for p = 2) and its p-th root (SQRT for p = 2), the two ends of
// LpPool and GlobalLpPool.
StatusOr<int> LpPowers(ConverterContext& c, int x, int64_t p, const std::string& base) {
  if (p == 2) return c.Emit(OpType::kMul, {x, x}, base + "/squares");
  RILL_INF_ASSIGN_OR_RETURN(int abs, c.Emit(ir::UnaryMathOp(ir::UnaryFn::kAbs), {x}, base + "/abs", {},
                                            std::make_shared<ir::UnaryMathAttrs>()));
  if (p == 1) return abs;
  const int e = c.NewFloatConst(base + "/p", {}, {static_cast<float>(p)});
  return c.Emit(ir::NaryMathOp(ir::NaryFn::kPow), {abs, e}, base + "/powers");
}

StatusOr<int> LpRoot(ConverterContext& c, int sums, int64_t p, const std::string& base, const std::string& name) {
  if (p == 1) return sums;
  if (p == 2) {
    return c.Emit(ir::UnaryMathOp(ir::UnaryFn::kSqrt), {sums}, name, {}, std::make_shared<ir::UnaryMathAttrs>());
  }
  const int e = c.NewFloatConst(base + "/inverse_p", {}, {1.0f / static_cast<float>(p)});
  return c.Emit(ir::NaryMathOp(ir::NaryFn::kPow), {sums, e}, name);
}

// The extra padding at the end that makes an explicitly padded window's
// output ceil((in + pads - span) / stride) + 1 (less one where that window
// would start in the end padding), as ONNX Runtime's ceil_mode.
int CeilModeExtra(int in, int pad_begin, int pad_end, int kernel, int stride, int dilation) {
  const int span = dilation * (kernel - 1) + 1;
  const int room = in + pad_begin + pad_end - span;
  if (room < 0) return 0;
  int out = (room + stride - 1) / stride + 1;
  if ((out - 1) * stride >= in + pad_begin) --out;
  return std::max(0, (out - 1) * stride + span - (in + pad_begin + pad_end));
}

Status LpPool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const std::vector<int64_t> k = c.AttrInts("kernel_shape");
  const int64_t p = c.AttrInt("p", 2);
  if (p < 1 || p > 64) return c.UnsupportedAttribute("p", "p must be in 1..64");
  const bool ceil_mode = c.AttrInt("ceil_mode", 0) != 0;
  ir::OpAttrs a;
  a.depth_multiplier = 1;
  int xi = -1, channels = 0;
  const bool one_d = k.size() == 1;
  if (one_d) {
    RILL_INF_RETURN_IF_ERROR(Read1dWindow(c, &a));
    const std::vector<int64_t> dil = c.AttrInts("dilations");
    if (dil.size() > 1) return c.UnsupportedAttribute("dilations", "dilations of a 1-D op take 1 value");
    a.dilation_w = dil.empty() ? 1 : static_cast<int>(dil[0]);
    RILL_INF_ASSIGN_OR_RETURN(xi, As2d(c, x));
  } else if (k.size() == 2) {
    RILL_INF_RETURN_IF_ERROR(c.ReadPadding(&a));
    RILL_INF_RETURN_IF_ERROR(c.ReadStridesDilations(&a));
    RILL_INF_ASSIGN_OR_RETURN(xi, c.ToNhwc(x));
  } else {
    return c.UnsupportedAttribute("kernel_shape", "LpPool over 1 or 2 spatial axes");
  }
  const int kh = one_d ? 1 : static_cast<int>(k[0]), kw = static_cast<int>(k.back());
  if (kh < 1 || kw < 1 || kh > 4096 || kw > 4096) return c.UnsupportedAttribute("kernel_shape", "kernel out of range");
  const Shape xs = c.ShapeOf(xi);  // NHWC
  channels = xs[3];
  if (ceil_mode) {
    if (a.padding != ir::Padding::kExplicit) return c.UnsupportedAttribute("ceil_mode", "ceil_mode with auto_pad");
    a.pad_bottom += CeilModeExtra(xs[1], a.pad_top, a.pad_bottom, kh, a.stride_h, a.dilation_h);
    a.pad_right += CeilModeExtra(xs[2], a.pad_left, a.pad_right, kw, a.stride_w, a.dilation_w);
  }
  const std::string base = c.out_name();
  RILL_INF_ASSIGN_OR_RETURN(int powered, LpPowers(c, xi, p, base));
  const int ones = c.NewFloatConst(base + "/ones", {1, kh, kw, channels},
                                   std::vector<float>(static_cast<size_t>(kh) * kw * channels, 1.0f));
  const std::string root_name = one_d ? base + "/2d" : base;
  const std::string sum_name = p == 1 ? root_name : base + "/sums";
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(OpType::kDepthwiseConv2D, {powered, ones}, sum_name, a));
  RILL_INF_ASSIGN_OR_RETURN(y, LpRoot(c, y, p, base, root_name));
  if (one_d) return From2d(c, y);
  c.Define(y, true);
  return Status::Ok();
}

Status GlobalLpPool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value x, c.Input(0));
  const int64_t p = c.AttrInt("p", 2);
  if (p < 1 || p > 64) return c.UnsupportedAttribute("p", "p must be in 1..64");
  int xi = -1;
  RILL_INF_ASSIGN_OR_RETURN(std::shared_ptr<ir::ReduceAttrs> a, GlobalAxes(c, x, "GlobalLpPool", &xi));
  const std::string base = c.out_name();
  RILL_INF_ASSIGN_OR_RETURN(int powered, LpPowers(c, xi, p, base));
  RILL_INF_ASSIGN_OR_RETURN(
      int sums, c.Emit(ir::ReduceOp(ir::ReduceKind::kSum), {powered}, p == 1 ? base : base + "/sums", {}, a));
  RILL_INF_ASSIGN_OR_RETURN(int out, LpRoot(c, sums, p, base, base));
  c.Define(out, x.nhwc);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"MaxPool", "AveragePool"}, Pool) &&
                         RegisterOnnxConverter({"GlobalAveragePool"}, GlobalAveragePool) &&
                         RegisterOnnxConverter({"GlobalMaxPool"}, GlobalMaxPool) &&
                         RegisterOnnxConverter({"LpPool"}, LpPool) &&
                         RegisterOnnxConverter({"GlobalLpPool"}, GlobalLpPool);

}  // namespace
}  // namespace rill::inference::onnx_import
