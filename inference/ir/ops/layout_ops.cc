// Data movement ops (PAD, the RESIZE_* family, RESHAPE, CONCATENATION,
// DEPTH_TO_SPACE, TRANSPOSE, SLICE) and SOFTMAX: descriptors and shape functions.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/resize_geometry.h"
#include "inference/ir/slice_geometry.h"
#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {
namespace {

Status Pad(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 3));
  std::vector<int> pads;
  RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, &pads));
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

Status Resize(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  RILL_INF_RETURN_IF_ERROR(c.NeedRank(0, 4));
  std::vector<int> size;
  const Shape& x = c.In(0);
  if (c.InTensor(1).is_constant()) {
    RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, &size));
  } else {
    // ONNX Resize to sizes computed at run time: all four (NCHW), N and C
    // the input's, read in the dynamic region.
    std::vector<int64_t> v;
    bool known = false;
    RILL_INF_RETURN_IF_ERROR(c.Ints(1, &v, &known));
    if (!known) return c.SetOut({x[0], kDynamicDim, kDynamicDim, x[3]});
    if (v.size() != 4) return c.Error("sizes known only at run time must hold 4 values (NCHW)");
    if (v[0] != x[0] || v[1] != x[3]) {
      return c.Error("sizes " + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", ... change N or C of input " +
                     ShapeToString(x));
    }
    for (int k = 2; k < 4; ++k) {
      if (v[k] < 1 || v[k] > (1 << 24)) return c.Error("size " + std::to_string(v[k]) + " out of range");
      size.push_back(static_cast<int>(v[k]));
    }
  }
  if (size.size() != 2) return c.Error("size must hold 2 values");
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

// A shape input that is not a constant (ONNX Reshape to a shape computed at
// run time) is read at run time, with ONNX's 0 (copy the input's dim);
// before the run the output has its rank and the dims its plan values
// know (TensorInfo::plan_values), the rest kDynamicDim.
Status RuntimeReshape(ShapeContext& c) {
  std::vector<int64_t> v;
  bool known = false;
  RILL_INF_RETURN_IF_ERROR(c.Ints(1, &v, &known));
  const Shape& in = c.In(0);
  if (!known) {
    if (c.In(1).size() != 1 || c.In(1)[0] == kDynamicDim) return c.Error("the new shape's length must be known");
    Shape out(c.In(1)[0], kDynamicDim), dims;
    if (c.ShapeOperandDims(1, &dims) && dims.size() == out.size()) {
      for (size_t d = 0; d < out.size(); ++d) {
        if (dims[d] > 0) out[d] = dims[d];
      }
    }
    return c.SetOut(out);
  }
  Shape target;
  int infer = -1;
  int64_t known_elements = 1;
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t d = v[i];
    if (d == 0) {
      if (i >= in.size()) return c.Error("0 in the new shape beyond the input's rank");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return c.Error("more than one -1 in the new shape");
      infer = static_cast<int>(i);
      target.push_back(0);
      continue;
    }
    if (d < 0 || d > kMaxElements) return c.Error("invalid new shape value " + std::to_string(d));
    target.push_back(static_cast<int>(d));
    known_elements *= d;
  }
  const int64_t total = NumElements(in);
  if (infer >= 0) {
    if (known_elements == 0 || total % known_elements != 0) return c.Error("cannot infer -1 of the new shape");
    target[infer] = static_cast<int>(total / known_elements);
  }
  if (NumElements(target) != total) {
    return c.Error("cannot reshape " + ShapeToString(in) + " to " + ShapeToString(target));
  }
  return c.SetOut(target);
}

Status Reshape(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 2));
  if (a.flatten_axis >= 0) {
    const Shape& in = c.In(0);
    if (a.flatten_axis > static_cast<int>(in.size())) return c.Error("flatten axis out of range");
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < static_cast<int>(in.size()); ++d) (d < a.flatten_axis ? outer : inner) *= in[d];
    if (outer > kMaxElements || inner > kMaxElements) return c.Error("too large");
    return c.SetOut({static_cast<int>(outer), static_cast<int>(inner)});
  }
  if (!a.new_shape_from.empty()) {
    const Shape& in = c.In(0);
    if (a.new_shape_from.size() != a.new_shape.size()) return c.Error("new_shape_from does not match new_shape");
    Shape out(a.new_shape.size());
    for (size_t d = 0; d < out.size(); ++d) {
      const int from = a.new_shape_from[d];
      if (from >= static_cast<int>(in.size())) return c.Error("new_shape_from out of range");
      out[d] = from >= 0 ? in[from] : a.new_shape[d];
    }
    if (NumElements(out) != NumElements(in)) {
      return c.Error("cannot reshape " + ShapeToString(in) + " to " + ShapeToString(out));
    }
    return c.SetOut(out);
  }
  std::vector<int> target = a.new_shape;
  if (c.Has(1) && !c.InTensor(1).is_constant()) return RuntimeReshape(c);
  if (c.Has(1)) RILL_INF_RETURN_IF_ERROR(c.ConstInts(1, &target));
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
  if (c.node().inputs.empty()) return c.Error("has no inputs");
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(c.node().inputs.size(), c.node().inputs.size()));
  Shape out = c.In(0);
  const int rank = static_cast<int>(out.size());
  if (a.axis < -rank || a.axis >= rank) return c.Error("axis out of range");
  const int axis = (a.axis + rank) % rank;
  for (size_t i = 1; i < c.node().inputs.size(); ++i) {
    const Shape& s = c.In(i);
    if (static_cast<int>(s.size()) != rank) return c.Error("inputs differ in rank");
    for (int d = 0; d < rank; ++d) {
      // Before the run a size known only at run time (kDynamicDim) takes
      // the other input's, checked at run time (Graph::InferNodeShapes asks
      // when its sample sizes cannot match a known one).
      if (d == axis) {
        if (out[d] == kDynamicDim || s[d] == kDynamicDim) {
          out[d] = kDynamicDim;
          continue;
        }
        if (static_cast<long long>(out[d]) + s[d] > (1LL << 30)) return c.Error("output too large");
        out[d] += s[d];
      } else if (s[d] != out[d]) {
        if (s[d] == kDynamicDim) continue;
        if (out[d] == kDynamicDim) {
          out[d] = s[d];
          continue;
        }
        return c.Error("input " + ShapeToString(s) + " does not match " + ShapeToString(c.In(0)));
      }
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

// Starts / ends as inputs 1 / 2 (computed at run time): before the run the
// axes they bound are kDynamicDim.
Status Slice(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 3));
  const Shape& x = c.In(0);
  if (x.size() > 6 || a.slice_start.size() != x.size() || a.slice_end.size() != x.size() ||
      a.slice_step.size() != x.size()) {
    return c.Error("starts/ends/steps do not match rank of " + ShapeToString(x));
  }
  std::vector<long long> bounds[2];
  bool have[2] = {false, false}, unknown = false;
  for (int k = 0; k < 2; ++k) {
    if (!c.Has(1 + k)) continue;
    std::vector<int64_t> v;
    bool known = false;
    RILL_INF_RETURN_IF_ERROR(c.Ints(1 + k, &v, &known));
    unknown = unknown || !known;
    bounds[k].assign(v.begin(), v.end());
    have[k] = true;
  }
  std::vector<long long> start, end;
  if (!SliceBounds(a.slice_start, a.slice_end, a.slice_runtime_axes, have[0] && !unknown ? &bounds[0] : nullptr,
                   have[1] && !unknown ? &bounds[1] : nullptr, &start, &end)) {
    return c.Error("run-time starts / ends do not match the sliced axes");
  }
  Shape out(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (a.slice_step[d] == 0) return c.Error("step 0 on axis " + std::to_string(d));
    int first = 0;
    SliceAxis(x[d], start[d], end[d], a.slice_step[d], &first, &out[d]);
  }
  if (unknown) {
    for (int d : a.slice_runtime_axes) out[d] = kDynamicDim;
  }
  return c.SetOut(out);
}

Status Softmax(ShapeContext& c, const OpAttrs& a) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  const int rank = static_cast<int>(c.In(0).size());
  if (rank == 0 || a.axis < -rank || a.axis >= rank) return c.Error("axis out of range");
  return c.SetOut(c.In(0));
}

const bool kRegistered = RegisterOps({
    {OpType::kPad, "PAD", Pad},
    {OpType::kResizeBilinear, "RESIZE_BILINEAR", [](ShapeContext& c) { return Resize(c, c.attrs()); }},
    {OpType::kResizeNearest, "RESIZE_NEAREST_NEIGHBOR", [](ShapeContext& c) { return Resize(c, c.attrs()); }},
    {OpType::kResizeBicubic, "RESIZE_BICUBIC", [](ShapeContext& c) { return Resize(c, c.attrs()); }},
    {OpType::kReshape, "RESHAPE", [](ShapeContext& c) { return Reshape(c, c.attrs()); }},
    {OpType::kConcatenation, "CONCATENATION", [](ShapeContext& c) { return Concat(c, c.attrs()); }},
    {OpType::kDepthToSpace, "DEPTH_TO_SPACE", [](ShapeContext& c) { return DepthToSpace(c, c.attrs()); }},
    {OpType::kTranspose, "TRANSPOSE", [](ShapeContext& c) { return Transpose(c, c.attrs()); }},
    {OpType::kSlice, "SLICE", [](ShapeContext& c) { return Slice(c, c.attrs()); }},
    {OpType::kSoftmax, "SOFTMAX", [](ShapeContext& c) { return Softmax(c, c.attrs()); }},
});

}  // namespace
}  // namespace rill::inference::ir
