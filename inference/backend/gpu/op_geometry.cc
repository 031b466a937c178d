// The GPU backends' host-side op geometry (op_geometry.h).
#include "inference/backend/gpu/op_geometry.h"

#include <algorithm>

#include "inference/backend/cpu/kernels/ref/conv_params.h"
#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"
#include "inference/backend/cpu/kernels/ref/resize_coordinate.h"
#include "inference/backend/cpu/kernels/ref/resize_nearest.h"
#include "inference/backend/cpu/kernels/ref/resize_separable.h"
#include "inference/ir/conv_geometry.h"
#include "inference/ir/slice_geometry.h"

namespace rill::inference::gpu {

GpuOp GpuOpOf(ir::OpType type) {
  using ir::OpType;
  switch (type) {
    case OpType::kConv2D: return GpuOp::kConv2D;
    case OpType::kDepthwiseConv2D: return GpuOp::kDepthwiseConv2D;
    case OpType::kTransposeConv2D: return GpuOp::kTransposeConv2D;
    case OpType::kFullyConnected: return GpuOp::kFullyConnected;
    case OpType::kDepthwiseBlock: return GpuOp::kDepthwiseBlock;
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
    case OpType::kPRelu: return GpuOp::kBinary;
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kHardSwish:
    case OpType::kLogistic:
    case OpType::kLeakyRelu:
    case OpType::kClamp:
    case OpType::kHardSigmoid:
    case OpType::kSilu: return GpuOp::kUnary;
    case OpType::kMaxPool2D:
    case OpType::kAveragePool2D: return GpuOp::kPool;
    case OpType::kMean: return GpuOp::kMean;
    case OpType::kTranspose:
    case OpType::kSlice:
    case OpType::kPad:
    case OpType::kReshape: return GpuOp::kView;
    case OpType::kConcatenation: return GpuOp::kConcatenation;
    case OpType::kSoftmax: return GpuOp::kSoftmax;
    case OpType::kResizeBilinear:
    case OpType::kResizeBicubic:
    case OpType::kResizeNearest: return GpuOp::kResize;
    case OpType::kDepthToSpace: return GpuOp::kDepthToSpace;
    default: return GpuOp::kNone;
  }
}

std::vector<int> Strides(const Shape& s) {
  std::vector<int> strides(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * s[d + 1];
  return strides;
}

std::vector<int> Pad6(const int* dims, const std::vector<const int*>& strides, int rank) {
  std::vector<int> v;
  for (int d = 0; d < 6; ++d) v.push_back(d < 6 - rank ? 1 : dims[d - (6 - rank)]);
  for (const int* s : strides) {
    for (int d = 0; d < 6; ++d) v.push_back(d < 6 - rank ? 0 : s[d - (6 - rank)]);
  }
  return v;
}

cpu::ConvParams WindowGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& y, int kh, int kw) {
  cpu::ConvParams p = cpu::ConvShapeParams(x, {1, kh, kw, 1}, y, a);
  cpu::SetWindowPadding(a, &p);
  return p;
}

cpu::ConvParams Conv2DGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
  cpu::ConvParams p = WindowGeometry(a, x, y, w[1], w[2]);
  p.groups = ir::ConvGroups(p.in_c, w[3]);
  return p;
}

cpu::ConvParams DepthwiseGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
  cpu::ConvParams p = WindowGeometry(a, x, y, w[1], w[2]);
  p.depth_multiplier = p.out_c / p.in_c;
  return p;
}

cpu::ConvParams TransposeConvGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& w, const Shape& y) {
  cpu::ConvParams p = cpu::ConvShapeParams(x, w, y, a);
  p.dilation_h = p.dilation_w = 1;
  p.groups = ir::ConvGroups(p.in_c, w[3]);
  cpu::SetTransposeConvPadding(a, &p);
  return p;
}

cpu::ConvParams PoolGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& y) {
  ir::OpAttrs window = a;
  window.dilation_h = window.dilation_w = 1;
  return WindowGeometry(window, x, y, a.kernel_h, a.kernel_w);
}

cpu::ConvParams PointwiseGeometry(int batch, int h, int w, int in_c, int out_c) {
  cpu::ConvParams p;
  p.batch = batch;
  p.in_h = p.out_h = h;
  p.in_w = p.out_w = w;
  p.in_c = in_c;
  p.out_c = out_c;
  return p;
}

bool Nc4Depthwise(const cpu::ConvParams& p) { return p.depth_multiplier == 1 && p.in_c == p.out_c; }

bool Pointwise(const cpu::ConvParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.groups == 1 && p.in_h == p.out_h && p.in_w == p.out_w;
}

bool Winograd23(const cpu::ConvParams& p) {
  return p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 &&
         p.dilation_w == 1 && p.groups == 1;
}

bool WinogradPays(const cpu::ConvParams& p) {
  return Winograd23(p) && static_cast<long>(p.out_h) * p.out_w >= kWinogradMinPixels;
}

bool Nc4Pointwise(const cpu::ConvParams& p) {
  return Pointwise(p) && p.in_c <= kNc4MaxPointwiseInC && p.out_c <= kNc4MaxPointwiseOutC;
}

long GemmTiles(const cpu::ConvParams& p, int tile_m, int tile_n) {
  return static_cast<long>((p.out_c + tile_n - 1) / tile_n) *
         ((static_cast<long>(p.batch) * p.out_h * p.out_w + tile_m - 1) / tile_m);
}

void PlanConv(int tile_m, int tile_n, int compute_units, bool may_split, ConvPlan* c, int split_min_k) {
  const cpu::ConvParams& p = c->p;
  c->tiled = p.groups == 1;
  c->splits = 1;
  const int k = p.kernel_h * p.kernel_w * p.in_c;
  c->k_chunk = k;
  if (!c->tiled) return;
  const long tiles = GemmTiles(p, tile_m, tile_n);
  const long want = 2L * compute_units;
  if (may_split && tiles < want && k >= split_min_k) {
    const int splits = static_cast<int>(std::max<long>(1, std::min<long>({(want + tiles - 1) / tiles, k / 128, 32})));
    c->k_chunk = ((k + splits - 1) / splits + 15) / 16 * 16;
    c->splits = (k + c->k_chunk - 1) / c->k_chunk;
  }
}

DepthwiseBlockGeometry MakeDepthwiseBlockGeometry(const ir::OpAttrs& a, const Shape& x, const Shape& wd,
                                                  const Shape& wp, const Shape& y, bool has_expand) {
  DepthwiseBlockGeometry g;
  const int mid_c = wd[3];
  g.expand.p = PointwiseGeometry(x[0], x[1], x[2], x[3], mid_c);
  g.expand.act = Act(a.expand_activation);
  g.depthwise = WindowGeometry(a, {x[0], x[1], x[2], mid_c}, {y[0], y[1], y[2], mid_c}, wd[1], wd[2]);
  g.depthwise.depth_multiplier = 1;
  g.depthwise_act = Act(a.depthwise_activation);
  g.project.p = PointwiseGeometry(y[0], y[1], y[2], mid_c, wp[0]);
  g.project.act = Act(a.activation);
  g.expand_elements = has_expand ? static_cast<size_t>(x[0]) * x[1] * x[2] * mid_c : 0;
  g.mid_elements = static_cast<size_t>(y[0]) * y[1] * y[2] * mid_c;
  return g;
}

FullyConnectedGeometry MakeFullyConnectedGeometry(const Shape& x, const Shape& w) {
  FullyConnectedGeometry g;
  g.units = w[0];
  g.in_dim = w[1];
  g.rows = static_cast<int>(NumElements(x) / g.in_dim);
  return g;
}

int BinaryOpCode(ir::OpType type) {
  switch (type) {
    case ir::OpType::kAdd: return kBinaryAdd;
    case ir::OpType::kSub: return kBinarySub;
    case ir::OpType::kMul: return kBinaryMul;
    case ir::OpType::kDiv: return kBinaryDiv;
    default: return kBinaryPRelu;
  }
}

bool MakeBroadcastGeometry(const Shape& a, const Shape& b, BroadcastGeometry* g) {
  cpu::BroadcastParams p;
  if (!cpu::MakeBroadcastParams(a, b, &p) || p.rank > 6) return false;
  g->count = static_cast<int>(p.out_size);
  g->shape = Pad6(p.out_dims, {p.a_strides, p.b_strides}, p.rank);
  return true;
}

UnaryGeometry MakeUnaryGeometry(ir::OpType type, const ir::OpAttrs& a, const Shape& y) {
  UnaryGeometry g;
  g.alpha = a.alpha;
  g.beta = a.beta;
  switch (type) {
    case ir::OpType::kRelu: g.op = 0; break;
    case ir::OpType::kRelu6: g.op = 1; break;
    case ir::OpType::kHardSwish: g.op = 2; break;
    case ir::OpType::kLogistic: g.op = 3; break;
    case ir::OpType::kLeakyRelu: g.op = 4; break;
    case ir::OpType::kClamp:
      g.op = 5;
      g.alpha = a.clamp_min;
      g.beta = a.clamp_max;
      break;
    case ir::OpType::kHardSigmoid: g.op = 6; break;
    default: g.op = 7; break;  // SILU
  }
  g.count = static_cast<int>(NumElements(y));
  return g;
}

MeanGeometry MakeMeanGeometry(const Shape& x, const std::vector<int>& axes, const Shape& y) {
  MeanGeometry g;
  const int rank = static_cast<int>(x.size());
  std::vector<bool> reduce(rank, false);
  for (int ax : axes) reduce[(ax % rank + rank) % rank] = true;
  const std::vector<int> strides = Strides(x);
  std::vector<int> kept_dims, kept_strides, red_dims, red_strides;
  for (int d = 0; d < rank; ++d) {
    (reduce[d] ? red_dims : kept_dims).push_back(x[d]);
    (reduce[d] ? red_strides : kept_strides).push_back(strides[d]);
    if (reduce[d]) g.reduced *= x[d];
  }
  g.shape = Pad6(kept_dims.data(), {kept_strides.data()}, static_cast<int>(kept_dims.size()));
  const std::vector<int> r = Pad6(red_dims.data(), {red_strides.data()}, static_cast<int>(red_dims.size()));
  g.shape.insert(g.shape.end(), r.begin(), r.end());
  g.count = static_cast<int>(NumElements(y));
  return g;
}

Status MakeViewGeometry(const ir::Graph& graph, const ir::Node& node, const Shape& x, const Shape& y,
                        ViewGeometry* v) {
  const int rank = static_cast<int>(y.size());
  const std::vector<int> in_strides = Strides(x);
  std::vector<int> strides(rank, 0), before(rank, 0);
  *v = ViewGeometry{};
  const ir::OpAttrs& a = node.attrs;
  switch (node.type) {
    case ir::OpType::kTranspose:
      v->name = "transpose";
      for (int d = 0; d < rank; ++d) strides[d] = in_strides[a.perm[d]];
      break;
    case ir::OpType::kSlice:
      v->name = "slice";
      for (int d = 0; d < rank; ++d) {
        int first = 0, size = 0;
        ir::SliceAxis(x[d], a.slice_start[d], a.slice_end[d], a.slice_step[d], &first, &size);
        strides[d] = in_strides[d] * a.slice_step[d];
        v->start += first * in_strides[d];
      }
      break;
    case ir::OpType::kPad: {
      v->name = "pad";
      std::vector<int> pads;
      RILL_INF_RETURN_IF_ERROR(ir::ReadConstInts(graph, node, 1, &pads));
      for (int d = 0; d < rank; ++d) {
        strides[d] = in_strides[d];
        before[d] = pads[2 * d];
      }
      v->pad = 1;
      break;
    }
    default:  // RESHAPE that the memory planner could not turn into a view
      v->name = "reshape_copy";
      break;
  }
  v->shape.assign(24, 0);
  for (int d = 0; d < 6; ++d) v->shape[d] = v->shape[18 + d] = 1;
  if (node.type == ir::OpType::kReshape) {
    v->shape[5] = static_cast<int>(NumElements(y));
    v->shape[11] = 1;
  } else {
    for (int d = 0; d < rank; ++d) {
      const int k = 6 - rank + d;
      v->shape[k] = y[d];
      v->shape[6 + k] = strides[d];
      v->shape[12 + k] = before[d];
      v->shape[18 + k] = v->pad ? x[d] : 1;
    }
  }
  v->count = static_cast<int>(NumElements(y));
  return Status::Ok();
}

ConcatGeometry MakeConcatGeometry(int axis, const std::vector<Shape>& inputs, const Shape& y) {
  ConcatGeometry g;
  const int rank = static_cast<int>(y.size());
  axis = (axis % rank + rank) % rank;
  for (int d = 0; d < axis; ++d) g.outer *= y[d];
  g.stride = static_cast<int>(NumElements(y) / std::max(g.outer, 1));
  int offset = 0;
  for (const Shape& s : inputs) {
    g.chunks.push_back(static_cast<int>(NumElements(s) / std::max(g.outer, 1)));
    g.offsets.push_back(offset);
    offset += g.chunks.back();
  }
  return g;
}

SoftmaxGeometry MakeSoftmaxGeometry(int axis, const Shape& x) {
  SoftmaxGeometry g;
  const int rank = static_cast<int>(x.size());
  axis = (axis % rank + rank) % rank;
  g.axis_size = x[axis];
  for (int d = axis + 1; d < rank; ++d) g.inner *= x[d];
  g.count = static_cast<int>(NumElements(x) / std::max(g.axis_size, 1));
  return g;
}

namespace {

// A bilinear or nearest resize's parameters: sizes, the coordinate
// transform and TFLite's flags.
template <class P>
P ResizeParamsOf(const ir::OpAttrs& a, const Shape& x, const Shape& y) {
  P p;
  cpu::SetNhwcSizes(x, y, &p);
  cpu::SetResizeCoordinates(a, x, &p);
  p.align_corners = a.align_corners;
  p.half_pixel_centers = a.half_pixel_centers;
  return p;
}

}  // namespace

ResizeTables MakeResizeTaps(ir::OpType type, const ir::OpAttrs& a, const Shape& x, const Shape& y) {
  ResizeTables t;
  cpu::SetNhwcSizes(x, y, &t);
  if (type == ir::OpType::kResizeBilinear) {
    t.name = "resize_bilinear";
    const cpu::ResizeParams p = ResizeParamsOf<cpu::ResizeParams>(a, x, y);
    t.outside = p.extrapolation_value;
    t.taps = 2;
    auto fill = [&](const cpu::ResizeAxis& axis, int n, std::vector<int>* index, std::vector<float>* weight) {
      for (int i = 0; i < n; ++i) {
        const cpu::BilinearTap tap = cpu::BilinearSourceTap(p, axis, i);
        index->push_back(tap.outside ? -1 : tap.lo);
        index->push_back(tap.outside ? -1 : tap.hi);
        weight->push_back(tap.w_lo);
        weight->push_back(tap.w_hi);
      }
    };
    fill(cpu::ResizeAxisH(p), p.out_h, &t.rows, &t.row_weights);
    fill(cpu::ResizeAxisW(p), p.out_w, &t.cols, &t.col_weights);
  } else {
    t.name = "resize_nearest";
    cpu::ResizeNearestParams p = ResizeParamsOf<cpu::ResizeNearestParams>(a, x, y);
    p.rounding = a.nearest_rounding;
    t.outside = p.extrapolation_value;
    t.taps = 1;
    for (int i = 0; i < p.out_h; ++i) t.rows.push_back(cpu::NearestSourceIndex(p, cpu::ResizeAxisH(p), i));
    for (int i = 0; i < p.out_w; ++i) t.cols.push_back(cpu::NearestSourceIndex(p, cpu::ResizeAxisW(p), i));
    t.row_weights.assign(t.rows.size(), 1.0f);
    t.col_weights.assign(t.cols.size(), 1.0f);
  }
  return t;
}

ResizeTables MakeSeparableResizeTaps(ir::OpType type, const ir::OpAttrs& a, const Shape& x, const Shape& y) {
  ResizeTables t;
  cpu::SetNhwcSizes(x, y, &t);
  const bool bicubic = type == ir::OpType::kResizeBicubic;
  cpu::ResizeSeparableParams p;
  cpu::SetNhwcSizes(x, y, &p);
  p.filter = bicubic ? (a.antialias ? cpu::ResizeFilter::kAntialiasCubic : cpu::ResizeFilter::kCubic)
                     : cpu::ResizeFilter::kAntialiasLinear;
  cpu::SetResizeCoordinates(a, x, &p);
  p.cubic_coeff_a = a.cubic_coeff_a;
  p.exclude_outside = a.exclude_outside;
  cpu::ResizeTaps rt, ct;
  cpu::ComputeResizeSeparableTaps(p, true, &rt);
  cpu::ComputeResizeSeparableTaps(p, false, &ct);
  for (int i = 0; i < p.out_h; ++i) {
    if (rt.outside[i]) rt.index[static_cast<size_t>(i) * rt.taps] = -1;
  }
  for (int i = 0; i < p.out_w; ++i) {
    if (ct.outside[i]) ct.index[static_cast<size_t>(i) * ct.taps] = -1;
  }
  t.name = bicubic ? (a.antialias ? "resize_antialias_cubic" : "resize_bicubic") : "resize_antialias_linear";
  t.taps = rt.taps;
  t.col_taps = ct.taps;
  t.outside = p.extrapolation_value;
  t.rows = std::move(rt.index);
  t.cols = std::move(ct.index);
  t.row_weights = std::move(rt.weight);
  t.col_weights = std::move(ct.weight);
  t.divisor = std::move(rt.divisor);
  return t;
}

}  // namespace rill::inference::gpu
