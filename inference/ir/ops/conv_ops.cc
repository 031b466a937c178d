// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV_2D, FULLY_CONNECTED and the fused
// DEPTHWISE_BLOCK: descriptors and shape functions.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

// CONV_2D's optional fourth input is a residual fused by the optimizer:
// [N, OH, OW, C'] with C' <= the output channels, added to the first C'
// channels before the activation (see optimize::FuseResidualAdd). The
// optional fifth input of CONV_2D and DEPTHWISE_CONV_2D is the slope of a
// fused PRELU, one per output channel, applied last (optimize::FusePRelu).
Status Conv(ShapeContext& c, const OpAttrs& a, bool depthwise) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 5));
  if (depthwise && c.Has(3)) return c.Error("a depthwise conv takes no residual");
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 4));
  const Shape& x = c.In(0);
  const Shape& w = c.In(1);
  RILL_INF_RETURN_IF_ERROR(CheckWindow(c, a, w[1], w[2]));
  int out_c;
  if (depthwise) {
    if (w[0] != 1 || x[3] <= 0 || w[3] % x[3] != 0) {
      return c.Error("depthwise filter " + ShapeToString(w) + " does not match input " + ShapeToString(x));
    }
    out_c = w[3];
  } else {
    // Grouped when the filter covers a fraction of the input channels (as in
    // TFLite): groups = input channels / filter channels.
    if (!ConvGroupsFit(x[3], w[3], w[0])) {
      return c.Error("filter " + ShapeToString(w) + " does not match input channels of " + ShapeToString(x));
    }
    out_c = w[0];
  }
  if (c.Has(2) && NumElements(c.In(2)) != out_c) {
    return c.Error("bias " + ShapeToString(c.In(2)) + " does not match " + std::to_string(out_c) + " output channels");
  }
  int oh = 0, ow = 0;
  RILL_INF_RETURN_IF_ERROR(ConvWindowOutput(c, a, x, w, w[1], w[2], &oh, &ow));
  if (c.Has(3)) {
    RILL_INF_RETURN_IF_ERROR(c.NeedRank(3, 4));
    const Shape& r = c.In(3);
    if (r[0] != x[0] || r[1] != oh || r[2] != ow || r[3] <= 0 || r[3] > out_c) {
      return c.Error("residual " + ShapeToString(r) + " does not fit output " +
                     ShapeToString({x[0], oh, ow, out_c}));
    }
  }
  if (c.Has(4) && NumElements(c.In(4)) != out_c) {
    return c.Error("PRELU slope " + ShapeToString(c.In(4)) + " does not match " + std::to_string(out_c) +
                   " output channels");
  }
  return c.SetOut({x[0], oh, ow, out_c});
}

// DEPTHWISE_BLOCK (see OpType::kDepthwiseBlock for the inputs).
Status DepthwiseBlock(ShapeContext& c, const OpAttrs& a) {
  if (c.node().inputs.size() < 6 || c.node().inputs.size() > 9 || !c.Has(0) || !c.Has(3) || !c.Has(5) ||
      (c.Has(2) && !c.Has(1))) {
    return c.Error(
        "expects x, [expand filter, bias], depthwise filter, bias, project filter, bias[, residual[, PRELU slope]]");
  }
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(3, 4));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(5, 4));
  const Shape& x = c.In(0);
  int ce = x[3];
  if (c.Has(1)) {
    RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 4));
    const Shape& we = c.In(1);
    if (we[1] != 1 || we[2] != 1 || we[3] != x[3]) {
      return c.Error("expand filter " + ShapeToString(we) + " is not 1x1 over the " + std::to_string(x[3]) +
                     " input channels");
    }
    ce = we[0];
    if (c.Has(2) && NumElements(c.In(2)) != ce) return c.Error("expand bias does not match the filter");
  }
  const Shape& wd = c.In(3);
  if (wd[0] != 1 || wd[3] != ce) return c.Error("depthwise filter " + ShapeToString(wd) + " does not match " +
                                                std::to_string(ce) + " channels");
  if (c.Has(4) && NumElements(c.In(4)) != ce) return c.Error("depthwise bias does not match the filter");
  const Shape& wp = c.In(5);
  if (wp[1] != 1 || wp[2] != 1 || wp[3] != ce) {
    return c.Error("project filter " + ShapeToString(wp) + " is not 1x1 over " + std::to_string(ce) + " channels");
  }
  if (c.Has(6) && NumElements(c.In(6)) != wp[0]) return c.Error("project bias does not match the filter");
  // The optimizer folds only undilated depthwise convs into a block, and the
  // CPU's block kernels have no dilation: refused here so every backend agrees.
  if (a.dilation_h != 1 || a.dilation_w != 1) {
    return c.Error("dilation " + std::to_string(a.dilation_h) + "x" + std::to_string(a.dilation_w) +
                   ": a depthwise block's depthwise conv must be undilated");
  }
  RILL_INF_RETURN_IF_ERROR(CheckWindow(c, a, wd[1], wd[2]));
  int oh = 0, ow = 0;
  RILL_INF_RETURN_IF_ERROR(ConvWindowOutput(c, a, x, wd, wd[1], wd[2], &oh, &ow));
  const Shape out = {x[0], oh, ow, wp[0]};
  if (c.Has(7)) {
    RILL_INF_RETURN_IF_ERROR(c.NeedRank(7, 4));
    const Shape& r = c.In(7);
    if (r[0] != x[0] || r[1] != oh || r[2] != ow || r[3] <= 0 || r[3] > wp[0]) {
      return c.Error("residual " + ShapeToString(r) + " does not fit output " + ShapeToString(out));
    }
  }
  if (c.Has(8) && NumElements(c.In(8)) != wp[0]) return c.Error("PRELU slope does not match the project filter");
  return c.SetOut(out);
}

Status TransposeConv(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 4));
  const Shape& x = c.In(0);
  const Shape& w = c.In(1);
  if (!ConvGroupsFit(x[3], w[3], w[0])) {
    return c.Error("filter " + ShapeToString(w) + " does not match input " + ShapeToString(x));
  }
  if (c.Has(2) && NumElements(c.In(2)) != w[0]) return c.Error("bias does not match output channels");
  RILL_INF_RETURN_IF_ERROR(CheckWindow(c, a, w[1], w[2]));
  if (a.padding == Padding::kExplicit) {
    // pad_bottom/right may be negative: ONNX output_padding extends the end.
    const long long oh = static_cast<long long>(x[1] - 1) * a.stride_h + w[1] - a.pad_top - a.pad_bottom;
    const long long ow = static_cast<long long>(x[2] - 1) * a.stride_w + w[2] - a.pad_left - a.pad_right;
    if (a.pad_top < 0 || a.pad_left < 0 || a.pad_top > (1 << 20) || a.pad_left > (1 << 20) ||
        std::abs(a.pad_bottom) > (1 << 20) || std::abs(a.pad_right) > (1 << 20) || oh <= 0 || ow <= 0 ||
        oh > (1 << 30) || ow > (1 << 30)) {
      return c.Error("invalid transposed conv padding");
    }
    return c.SetOut({x[0], static_cast<int>(oh), static_cast<int>(ow), w[0]});
  }
  return c.SetOut({x[0], TransposeConvOutputSize(x[1], w[1], a.stride_h, a.padding),
                   TransposeConvOutputSize(x[2], w[2], a.stride_w, a.padding), w[0]});
}

Status FullyConnected(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(1, 2));
  const Shape& x = c.In(0);
  const Shape& w = c.In(1);
  const int64_t total = NumElements(x);
  if (x.empty() || w[1] <= 0 || total % w[1] != 0) {
    return c.Error("input " + ShapeToString(x) + " does not match weights " + ShapeToString(w));
  }
  if (c.Has(2) && NumElements(c.In(2)) != w[0]) return c.Error("bias does not match output units");
  if (a.keep_num_dims) {
    if (x.back() != w[1]) return c.Error("keep_num_dims needs the last input dim to equal weights' inner dim");
    Shape out = x;
    out.back() = w[0];
    return c.SetOut(out);
  }
  return c.SetOut({static_cast<int>(total / w[1]), w[0]});
}

const bool kRegistered = RegisterOps({
    {OpType::kConv2D, "CONV_2D", [](ShapeContext& c) { return Conv(c, c.attrs(), false); }},
    {OpType::kDepthwiseConv2D, "DEPTHWISE_CONV_2D", [](ShapeContext& c) { return Conv(c, c.attrs(), true); }},
    {OpType::kTransposeConv2D, "TRANSPOSE_CONV_2D", [](ShapeContext& c) { return TransposeConv(c, c.attrs()); }},
    {OpType::kFullyConnected, "FULLY_CONNECTED", [](ShapeContext& c) { return FullyConnected(c, c.attrs()); }},
    {OpType::kDepthwiseBlock, "DEPTHWISE_BLOCK", [](ShapeContext& c) { return DepthwiseBlock(c, c.attrs()); }},
});

}  // namespace
}  // namespace rill::inference::ir
