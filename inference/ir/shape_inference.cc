// Shape inference for every op of the IR. Each op checks what it needs of its
// inputs (rank, matching channels, constant operands) and errors naming the
// node rather than letting a kernel read out of bounds later.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/graph.h"
#include "inference/ir/slice_geometry.h"

namespace rill::inference::ir {
namespace {

// Kernels index elements with int: a tensor has at most INT32_MAX of them.
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

class ShapeContext {
 public:
  ShapeContext(const Graph& g, const Node& node, std::vector<Shape>* shapes)
      : g_(g), node_(node), shapes_(shapes) {}

  Status Error(const std::string& what) const { return InvalidArgumentError(g_.NodeContext(node_) + what); }
  const Node& node() const { return node_; }

  Status NeedInputs(size_t min, size_t max) const {
    if (node_.inputs.size() < min || node_.inputs.size() > max) {
      return Error("expects " + std::to_string(min) + (min == max ? "" : ".." + std::to_string(max)) +
                   " inputs, has " + std::to_string(node_.inputs.size()));
    }
    for (size_t i = 0; i < min; ++i) {
      if (node_.inputs[i] < 0) return Error("input " + std::to_string(i) + " is missing");
    }
    return Status::Ok();
  }
  bool Has(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] >= 0; }
  const Shape& In(size_t i) const { return (*shapes_)[node_.inputs[i]]; }
  const TensorInfo& InTensor(size_t i) const { return g_.tensors[node_.inputs[i]]; }
  Status NeedRank(size_t i, size_t rank) const {
    if (In(i).size() != rank) {
      return Error("input " + std::to_string(i) + " '" + InTensor(i).name + "' must have rank " +
                   std::to_string(rank) + ", has shape " + ShapeToString(In(i)));
    }
    return Status::Ok();
  }
  Status SetOut(Shape s) {
    int64_t n = 1;
    for (int d : s) {
      if (d <= 0) return Error("inferred output shape " + ShapeToString(s) + " has a non-positive dimension");
      n *= d;
      if (n > kMaxElements) return Error("inferred output shape " + ShapeToString(s) + " is too large");
    }
    (*shapes_)[node_.outputs[0]] = std::move(s);
    return Status::Ok();
  }

  const Graph& g_;
  const Node& node_;
  std::vector<Shape>* shapes_;
};

constexpr int kMaxWindowParam = 1 << 16;

bool InRange(int v) { return v >= 1 && v <= kMaxWindowParam; }

Status CheckWindow(ShapeContext& c, const OpAttrs& a, int kernel_h, int kernel_w) {
  if (!InRange(a.stride_h) || !InRange(a.stride_w) || !InRange(a.dilation_h) || !InRange(a.dilation_w) ||
      !InRange(kernel_h) || !InRange(kernel_w)) {
    return c.Error("invalid window: kernel " + std::to_string(kernel_h) + "x" + std::to_string(kernel_w) +
                   ", stride " + std::to_string(a.stride_h) + "x" + std::to_string(a.stride_w) + ", dilation " +
                   std::to_string(a.dilation_h) + "x" + std::to_string(a.dilation_w));
  }
  return Status::Ok();
}

Status CheckExplicitPads(ShapeContext& c, const OpAttrs& a) {
  if (a.padding != Padding::kExplicit) return Status::Ok();
  for (int p : {a.pad_top, a.pad_left, a.pad_bottom, a.pad_right}) {
    if (p < 0 || p > (1 << 20)) return c.Error("invalid padding " + std::to_string(p));
  }
  return Status::Ok();
}

// Output height and width of a conv window (kernel kh x kw) over x, or an
// error naming the window when it does not fit.
Status ConvWindowOutput(ShapeContext& c, const OpAttrs& a, const Shape& x, const Shape& w, int kh, int kw, int* oh,
                        int* ow) {
  RILL_INF_RETURN_IF_ERROR(CheckExplicitPads(c, a));
  *oh = a.padding == Padding::kExplicit
            ? ExplicitWindowOutputSize(x[1], kh, a.stride_h, a.dilation_h, a.pad_top, a.pad_bottom, false)
            : WindowOutputSize(x[1], kh, a.stride_h, a.dilation_h, a.padding);
  *ow = a.padding == Padding::kExplicit
            ? ExplicitWindowOutputSize(x[2], kw, a.stride_w, a.dilation_w, a.pad_left, a.pad_right, false)
            : WindowOutputSize(x[2], kw, a.stride_w, a.dilation_w, a.padding);
  if (*oh <= 0 || *ow <= 0) return c.Error("window " + ShapeToString(w) + " does not fit input " + ShapeToString(x));
  return Status::Ok();
}

// CONV_2D's optional fourth input is a residual fused by the optimizer:
// [N, OH, OW, C'] with C' <= the output channels, added to the first C'
// channels before the activation (see optimize::FuseResidualAdd).
Status Conv(ShapeContext& c, const OpAttrs& a, bool depthwise) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, depthwise ? 3 : 4));
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
  return c.SetOut({x[0], oh, ow, out_c});
}

// DEPTHWISE_BLOCK (see OpType::kDepthwiseBlock for the inputs).
Status DepthwiseBlock(ShapeContext& c, const OpAttrs& a) {
  if (c.node().inputs.size() < 6 || c.node().inputs.size() > 8 || !c.Has(0) || !c.Has(3) || !c.Has(5) ||
      (c.Has(2) && !c.Has(1))) {
    return c.Error("expects x, [expand filter, bias], depthwise filter, bias, project filter, bias[, residual]");
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

Status Broadcast(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  const Shape& a = c.In(0);
  const Shape& b = c.In(1);
  const size_t rank = std::max(a.size(), b.size());
  if (rank > 6) return c.Error("broadcasting supports rank <= 6");
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return c.Error("shapes " + ShapeToString(a) + " and " + ShapeToString(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return c.SetOut(out);
}

Status Pool(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  const Shape& x = c.In(0);
  RILL_INF_RETURN_IF_ERROR(CheckWindow(c, a, a.kernel_h, a.kernel_w));
  RILL_INF_RETURN_IF_ERROR(CheckExplicitPads(c, a));
  const int oh = a.padding == Padding::kExplicit
                     ? ExplicitWindowOutputSize(x[1], a.kernel_h, a.stride_h, 1, a.pad_top, a.pad_bottom, a.ceil_mode)
                     : WindowOutputSize(x[1], a.kernel_h, a.stride_h, 1, a.padding);
  const int ow = a.padding == Padding::kExplicit
                     ? ExplicitWindowOutputSize(x[2], a.kernel_w, a.stride_w, 1, a.pad_left, a.pad_right, a.ceil_mode)
                     : WindowOutputSize(x[2], a.kernel_w, a.stride_w, 1, a.padding);
  if (oh <= 0 || ow <= 0) return c.Error("pool window does not fit input " + ShapeToString(x));
  return c.SetOut({x[0], oh, ow, x[3]});
}

Status Pad(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  std::vector<int> pads;
  RILL_INF_RETURN_IF_ERROR(ReadConstInts(c.g_, c.node_, 1, &pads));
  const Shape& x = c.In(0);
  if (pads.size() != 2 * x.size()) return c.Error("paddings must be [rank, 2] for input " + ShapeToString(x));
  Shape out = x;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] > (1 << 30)) return c.Error("input too large");
    if (pads[2 * i] < 0 || pads[2 * i + 1] < 0 || pads[2 * i] > (1 << 20) || pads[2 * i + 1] > (1 << 20)) {
      return c.Error("invalid padding " + std::to_string(pads[2 * i]) + "," + std::to_string(pads[2 * i + 1]));
    }
    out[i] += pads[2 * i] + pads[2 * i + 1];
  }
  return c.SetOut(out);
}

Status Mean(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  std::vector<int> axes;
  RILL_INF_RETURN_IF_ERROR(ReadConstInts(c.g_, c.node_, 1, &axes));
  const Shape& x = c.In(0);
  const int rank = static_cast<int>(x.size());
  std::vector<bool> reduce(rank, false);
  for (int ax : axes) {
    if (ax < -rank || ax >= rank) return c.Error("axis " + std::to_string(ax) + " out of range for " + ShapeToString(x));
    reduce[(ax + rank) % rank] = true;
  }
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (!reduce[i]) out.push_back(x[i]);
    else if (a.keep_dims) out.push_back(1);
  }
  if (out.empty()) out.push_back(1);
  return c.SetOut(out);
}

Status Resize(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  std::vector<int> size;
  RILL_INF_RETURN_IF_ERROR(ReadConstInts(c.g_, c.node_, 1, &size));
  if (size.size() != 2) return c.Error("size must hold 2 values");
  const Shape& x = c.In(0);
  if (a.resize_from_scales && a.scale_h > 0.0f && a.scale_w > 0.0f) {
    const long long h = static_cast<long long>(a.scale_h * static_cast<float>(x[1]));
    const long long w = static_cast<long long>(a.scale_w * static_cast<float>(x[2]));
    if (h < 1 || w < 1 || h > (1 << 24) || w > (1 << 24)) {
      return c.Error("scales " + std::to_string(a.scale_h) + " x " + std::to_string(a.scale_w) +
                     " give no valid output size for input " + ShapeToString(x));
    }
    size = {static_cast<int>(h), static_cast<int>(w)};
  }
  if (a.resize_aspect != ResizeAspectPolicy::kStretch) {
    const int64_t in[4] = {x[0], x[3], x[1], x[2]};  // NCHW, as the sizes
    int64_t out[4];
    float scale = 1.0f;
    AspectResize(a.resize_aspect, a.resize_sizes, in, out, &scale);
    if (out[0] != in[0] || out[1] != in[1]) {
      return c.Error("keep_aspect_ratio_policy scale " + std::to_string(scale) + " changes N or C of input " +
                     ShapeToString(x));
    }
    if (out[2] < 1 || out[3] < 1 || out[2] > (1 << 24) || out[3] > (1 << 24)) {
      return c.Error("keep_aspect_ratio_policy gives no valid output size for input " + ShapeToString(x));
    }
    size = {static_cast<int>(out[2]), static_cast<int>(out[3])};
  }
  return c.SetOut({x[0], size[0], size[1], x[3]});
}

Status Reshape(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 2));
  std::vector<int> target = a.new_shape;
  if (c.Has(1)) RILL_INF_RETURN_IF_ERROR(ReadConstInts(c.g_, c.node_, 1, &target));
  const int64_t total = NumElements(c.In(0));
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (infer >= 0) return c.Error("more than one -1 in new shape");
      infer = static_cast<int>(i);
    } else if (target[i] <= 0) {
      return c.Error("invalid new shape " + ShapeToString(target));
    } else {
      known *= target[i];
      if (known > kMaxElements) return c.Error("new shape too large");
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0) return c.Error("cannot infer -1 in " + ShapeToString(target));
    target[infer] = static_cast<int>(total / known);
  }
  if (NumElements(target) != total) {
    return c.Error("cannot reshape " + ShapeToString(c.In(0)) + " to " + ShapeToString(target));
  }
  return c.SetOut(target);
}

Status Concat(ShapeContext& c, const OpAttrs& a) {
  if (c.node_.inputs.empty()) return c.Error("has no inputs");
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(c.node_.inputs.size(), c.node_.inputs.size()));
  Shape out = c.In(0);
  const int rank = static_cast<int>(out.size());
  if (a.axis < -rank || a.axis >= rank) return c.Error("axis out of range");
  const int axis = (a.axis + rank) % rank;
  for (size_t i = 1; i < c.node_.inputs.size(); ++i) {
    const Shape& s = c.In(i);
    if (static_cast<int>(s.size()) != rank) return c.Error("inputs differ in rank");
    for (int d = 0; d < rank; ++d) {
      if (d == axis) {
        if (static_cast<long long>(out[d]) + s[d] > (1LL << 30)) return c.Error("output too large");
        out[d] += s[d];
      }
      else if (s[d] != out[d]) return c.Error("input " + ShapeToString(s) + " does not match " + ShapeToString(c.In(0)));
    }
  }
  return c.SetOut(out);
}

Status DepthToSpace(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  const Shape& x = c.In(0);
  const int b = a.block_size;
  if (b <= 0 || b > 1024 || x[3] % (b * b) != 0) return c.Error("block size " + std::to_string(b) + " does not divide channels");
  if (static_cast<long long>(x[1]) * b > (1LL << 30) || static_cast<long long>(x[2]) * b > (1LL << 30)) {
    return c.Error("output too large");
  }
  return c.SetOut({x[0], x[1] * b, x[2] * b, x[3] / (b * b)});
}

Status Transpose(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const Shape& x = c.In(0);
  if (a.perm.size() != x.size() || x.size() > 6) return c.Error("perm does not match rank of " + ShapeToString(x));
  std::vector<bool> seen(x.size(), false);
  Shape out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int p = a.perm[i];
    if (p < 0 || p >= static_cast<int>(x.size()) || seen[p]) return c.Error("perm is not a permutation");
    seen[p] = true;
    out[i] = x[p];
  }
  return c.SetOut(out);
}

Status Slice(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const Shape& x = c.In(0);
  if (x.size() > 6 || a.slice_start.size() != x.size() || a.slice_end.size() != x.size() ||
      a.slice_step.size() != x.size()) {
    return c.Error("starts/ends/steps do not match rank of " + ShapeToString(x));
  }
  Shape out(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (a.slice_step[d] == 0) return c.Error("step 0 on axis " + std::to_string(d));
    int first = 0;
    SliceAxis(x[d], a.slice_start[d], a.slice_end[d], a.slice_step[d], &first, &out[d]);
  }
  return c.SetOut(out);
}

Status Softmax(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const int rank = static_cast<int>(c.In(0).size());
  if (rank == 0 || a.axis < -rank || a.axis >= rank) return c.Error("axis out of range");
  return c.SetOut(c.In(0));
}

Status Elementwise(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  return c.SetOut(c.In(0));
}

}  // namespace

Status Graph::InferShapes(std::vector<Shape>* shapes) const {
  if (shapes->size() != tensors.size()) return InternalError(source + ": shape table size mismatch");
  for (const Node& node : nodes) RILL_INF_RETURN_IF_ERROR(InferNodeShapes(node, shapes));
  return Status::Ok();
}

Status Graph::InferNodeShapes(const Node& node, std::vector<Shape>* shapes) const {
  {
    ShapeContext c(*this, node, shapes);
    if (node.outputs.size() != 1) return c.Error("expects exactly one output");
    const OpAttrs& a = node.attrs;
    Status s;
    switch (node.type) {
      case OpType::kConv2D: s = Conv(c, a, false); break;
      case OpType::kDepthwiseConv2D: s = Conv(c, a, true); break;
      case OpType::kTransposeConv2D: s = TransposeConv(c, a); break;
      case OpType::kFullyConnected: s = FullyConnected(c, a); break;
      case OpType::kAdd:
      case OpType::kMul:
      case OpType::kSub:
      case OpType::kDiv:
      case OpType::kPRelu: s = Broadcast(c); break;
      case OpType::kClamp:
      case OpType::kLeakyRelu:
      case OpType::kHardSigmoid:
      case OpType::kSilu:
      case OpType::kRelu:
      case OpType::kRelu6:
      case OpType::kHardSwish:
      case OpType::kLogistic:
      case OpType::kDequantize:
      case OpType::kDensify: s = Elementwise(c); break;
      case OpType::kPad: s = Pad(c); break;
      case OpType::kMaxPool2D:
      case OpType::kAveragePool2D: s = Pool(c, a); break;
      case OpType::kMean: s = Mean(c, a); break;
      case OpType::kResizeBilinear:
      case OpType::kResizeNearest:
      case OpType::kResizeBicubic: s = Resize(c, a); break;
      case OpType::kReshape: s = Reshape(c, a); break;
      case OpType::kConcatenation: s = Concat(c, a); break;
      case OpType::kDepthToSpace: s = DepthToSpace(c, a); break;
      case OpType::kSoftmax: s = Softmax(c, a); break;
      case OpType::kTranspose: s = Transpose(c, a); break;
      case OpType::kSlice: s = Slice(c, a); break;
      case OpType::kDepthwiseBlock: s = DepthwiseBlock(c, a); break;
    }
    RILL_INF_RETURN_IF_ERROR(s);
  }
  return Status::Ok();
}

}  // namespace rill::inference::ir
