// Image-geometry ops lowered to existing ones at import:
// - CenterCropPad: a SLICE (axes longer than the target, centred, the
//   extra element at the end) then a zero PAD (axes shorter, likewise).
// - Col2Im: SCATTER_ELEMENTS with reduction add of every column element
//   onto its image position (a constant index map; elements that land in
//   the padding go to one extra slot, sliced off), any number of spatial
//   axes.
// - AffineGrid (2-D and 3-D, align_corners): BATCH_MATMUL of the constant
//   base grid [1, H*W, 3] (or [1, D*H*W, 4]: x, y[, z], 1) by theta
//   transposed, reshaped to [N, H, W, 2] (or [N, D, H, W, 3]).
// - MaxUnpool: SCATTER_ELEMENTS of the values onto zeros of the output's
//   size at their (flat, whole-tensor) indices, as ONNX Runtime writes
//   them; the output shape from kernel_shape / strides / pads, or the
//   output_shape input.
// The index maps and base grids are computed from the import-time shapes
// (an ONNX graph is specialized to them; docs/design.md 3.3).
#include <memory>
#include <string>
#include <vector>

#include "inference/import/onnx/converters/tensor.h"
#include "inference/import/onnx/onnx_converter.h"
#include "inference/ir/ops/dynamic_ops.h"
#include "inference/ir/ops/tensor_ops.h"

namespace rill::inference::onnx_import {
namespace {

using ir::OpType;

StatusOr<std::vector<int64_t>> ConstInts(ConverterContext& c, int input, const char* what) {
  RILL_INF_ASSIGN_OR_RETURN(Value v, c.Input(input));
  if (!c.IsConst(v.id)) return c.Unsupported(std::string(what) + " computed at run time (a constant is supported)");
  return c.ConstInts(v.id);
}

Status CenterCropPad(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> target, ConstInts(c, 1, "shape"));
  const Shape s = c.ShapeOf(x);
  if (ir::HasDynamicDim(s)) return c.Unsupported("CenterCropPad of a value whose sizes are known only at run time");
  const int rank = static_cast<int>(s.size());
  std::vector<int64_t> axes = c.AttrInts("axes");
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (axes.size() != target.size()) return c.Invalid("shape must hold one size per axis");
  ir::OpAttrs sl;
  sl.slice_start.assign(rank, 0);
  sl.slice_end.assign(rank, 0);
  sl.slice_step.assign(rank, 1);
  for (int d = 0; d < rank; ++d) sl.slice_end[d] = s[d];
  std::vector<int> pads(2 * rank, 0);
  bool crop = false, pad = false;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[a]) return c.UnsupportedAttribute("axes", "axes out of range or repeated");
    seen[a] = true;
    const int64_t want = target[i], have = s[a];
    if (want < 0 || want > (1 << 30)) return c.Invalid("target size " + std::to_string(want) + " out of range");
    if (want < have) {  // crop: start at (have - want) / 2
      sl.slice_start[a] = (have - want) / 2;
      sl.slice_end[a] = sl.slice_start[a] + want;
      crop = true;
    } else if (want > have) {  // pad: (want - have) / 2 before
      pads[2 * a] = static_cast<int>((want - have) / 2);
      pads[2 * a + 1] = static_cast<int>(want - have - pads[2 * a]);
      pad = true;
    }
  }
  const std::string base = c.out_name();
  int y = x;
  if (crop) {
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kSlice, {y}, pad ? base + "/crop" : base, sl));
  }
  if (pad) {
    const int paddings = c.NewInt32Const(base + "/paddings", {rank, 2}, pads);
    const int fill = c.NewFloatConst(base + "/value", {}, {0.0f});
    RILL_INF_ASSIGN_OR_RETURN(y, c.Emit(OpType::kPad, {y, paddings, fill}, base));
  }
  c.Define(y, false);  // no crop and no pad: the input itself
  return Status::Ok();
}

Status Col2Im(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> image, ConstInts(c, 1, "image_shape"));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> block, ConstInts(c, 2, "block_shape"));
  const Shape s = c.ShapeOf(x);
  const size_t nd = image.size();
  if (s.size() != 3 || ir::HasDynamicDim(s)) return c.Invalid("input must be [N, C * prod(block_shape), L]");
  if (nd == 0 || block.size() != nd) return c.Invalid("image_shape and block_shape must have one value per axis");
  std::vector<int64_t> dil = c.AttrInts("dilations"), strides = c.AttrInts("strides"), pads = c.AttrInts("pads");
  if (dil.empty()) dil.assign(nd, 1);
  if (strides.empty()) strides.assign(nd, 1);
  if (pads.empty()) pads.assign(2 * nd, 0);
  if (dil.size() != nd || strides.size() != nd || pads.size() != 2 * nd) {
    return c.Invalid("dilations, strides and pads must match image_shape's length");
  }
  int64_t k_total = 1, l_total = 1, hw = 1;
  std::vector<int64_t> out_blocks(nd);
  for (size_t d = 0; d < nd; ++d) {
    if (image[d] < 1 || block[d] < 1 || dil[d] < 1 || strides[d] < 1 || pads[d] < 0 || pads[d + nd] < 0) {
      return c.Invalid("image_shape, block_shape, dilations and strides must be positive, pads non-negative");
    }
    const int64_t span = dil[d] * (block[d] - 1) + 1;
    const int64_t room = image[d] + pads[d] + pads[d + nd] - span;
    if (room < 0) return c.Invalid("block larger than the padded image");
    out_blocks[d] = room / strides[d] + 1;
    k_total *= block[d];
    l_total *= out_blocks[d];
    hw *= image[d];
  }
  if (k_total * l_total * s[0] * s[1] > (int64_t{1} << 31) || hw * s[0] * s[1] > (int64_t{1} << 31)) {
    return c.Unsupported("Col2Im larger than 2^31 elements");
  }
  if (s[1] % k_total != 0) return c.Invalid("input's dim 1 must be a multiple of prod(block_shape)");
  if (s[2] != l_total) {
    return c.Invalid("input has " + std::to_string(s[2]) + " blocks, the image and block shapes give " +
                     std::to_string(l_total));
  }
  const int n = s[0], ch = static_cast<int>(s[1] / k_total);
  // The image position (or hw, the dump slot) of each (kernel offset, block).
  std::vector<float> map(static_cast<size_t>(k_total * l_total));
  std::vector<int64_t> kc(nd), lc(nd);  // the kernel offset's and the block's coordinates
  for (int64_t k = 0; k < k_total; ++k) {
    for (int64_t l = 0; l < l_total; ++l) {
      int64_t kr = k, lr = l, pos = 0;
      bool inside = true;
      for (size_t d = nd; d-- > 0;) {
        kc[d] = kr % block[d];
        kr /= block[d];
        lc[d] = lr % out_blocks[d];
        lr /= out_blocks[d];
      }
      for (size_t d = 0; d < nd; ++d) {
        const int64_t p = lc[d] * strides[d] + kc[d] * dil[d] - pads[d];
        inside = inside && p >= 0 && p < image[d];
        pos = pos * image[d] + p;
      }
      map[static_cast<size_t>(k * l_total + l)] = static_cast<float>(inside ? pos : hw);
    }
  }
  const int kl = static_cast<int>(k_total * l_total);
  std::vector<float> idx(static_cast<size_t>(n) * ch * kl);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = map[i % kl];
  const std::string base = c.out_name();
  const int idx_id = c.NewFloatConst(base + "/positions", {n, ch, kl}, idx);
  const int zeros = c.NewFloatConst(base + "/zeros", {n, ch, static_cast<int>(hw) + 1},
                                    std::vector<float>(static_cast<size_t>(n) * ch * (hw + 1), 0.0f));
  RILL_INF_ASSIGN_OR_RETURN(int cols, EmitReshape(c, x, {n, ch, kl}, base + "/columns"));
  auto sa = std::make_shared<ir::ScatterAttrs>();
  sa->axis = 2;
  sa->reduction = ir::ScatterAttrs::Reduction::kAdd;
  RILL_INF_ASSIGN_OR_RETURN(int sum, c.Emit(ir::ScatterElementsOp(), {zeros, idx_id, cols}, base + "/sums", {}, sa));
  ir::OpAttrs sl;
  sl.slice_start = {0, 0, 0};
  sl.slice_end = {n, ch, hw};
  sl.slice_step = {1, 1, 1};
  RILL_INF_ASSIGN_OR_RETURN(int img, c.Emit(OpType::kSlice, {sum}, base + "/image", sl));
  Shape out = {n, ch};
  for (int64_t v : image) out.push_back(static_cast<int>(v));
  RILL_INF_ASSIGN_OR_RETURN(int y, EmitReshape(c, img, out, base));
  c.Define(y, false);
  return Status::Ok();
}

// The normalized coordinates of `size` positions in [-1, 1]: pixel centres,
// or (align_corners) the first and last positions at -1 and 1.
std::vector<float> GridLine(int size, bool align_corners) {
  std::vector<float> v(size);
  for (int i = 0; i < size; ++i) {
    if (align_corners) {
      v[i] = size == 1 ? 0.0f : -1.0f + 2.0f * static_cast<float>(i) / static_cast<float>(size - 1);
    } else {
      v[i] = (2.0f * static_cast<float>(i) + 1.0f) / static_cast<float>(size) - 1.0f;
    }
  }
  return v;
}

Status AffineGrid(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value tv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(int theta, c.ToNchw(tv));
  RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> size, ConstInts(c, 1, "size"));
  const bool align = c.AttrInt("align_corners", 0) != 0;
  const Shape ts = c.ShapeOf(theta);
  if (size.size() != 4 && size.size() != 5) return c.Invalid("size must be [N, C, H, W] or [N, C, D, H, W]");
  const int sd = static_cast<int>(size.size()) - 2;  // spatial dims
  if (ts.size() != 3 || ts[1] != sd || ts[2] != sd + 1 || ts[0] != size[0]) {
    return c.Invalid("theta " + ShapeToString(ts) + " does not fit size");
  }
  int64_t points = 1;
  for (int d = 2; d < static_cast<int>(size.size()); ++d) {
    if (size[d] < 1 || size[d] > (1 << 24)) return c.Invalid("size out of range");
    points *= size[d];
  }
  if (points * (sd + 1) > (int64_t{1} << 28)) return c.Unsupported("AffineGrid larger than 2^28 elements");
  const int depth = sd == 3 ? static_cast<int>(size[2]) : 1;
  const int height = static_cast<int>(size[sd == 3 ? 3 : 2]), width = static_cast<int>(size[sd == 3 ? 4 : 3]);
  const std::vector<float> xs = GridLine(width, align), ys = GridLine(height, align), zs = GridLine(depth, align);
  std::vector<float> grid;
  grid.reserve(static_cast<size_t>(points) * (sd + 1));
  for (int z = 0; z < depth; ++z) {
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        grid.push_back(xs[x]);
        grid.push_back(ys[y]);
        if (sd == 3) grid.push_back(zs[z]);
        grid.push_back(1.0f);
      }
    }
  }
  const std::string base = c.out_name();
  const int g = c.NewFloatConst(base + "/base_grid", {1, static_cast<int>(points), sd + 1}, grid);
  auto mm = std::make_shared<ir::BatchMatMulAttrs>();
  mm->adj_y = true;
  RILL_INF_ASSIGN_OR_RETURN(int prod, c.Emit(ir::BatchMatMulOp(), {g, theta}, base + "/points", {}, mm));
  Shape out = {ts[0]};
  for (int d = 2; d < static_cast<int>(size.size()); ++d) out.push_back(static_cast<int>(size[d]));
  out.push_back(sd);
  RILL_INF_ASSIGN_OR_RETURN(int y, EmitReshape(c, prod, out, base));
  c.Define(y, false);
  return Status::Ok();
}

Status MaxUnpool(ConverterContext& c) {
  RILL_INF_ASSIGN_OR_RETURN(Value xv, c.Input(0));
  RILL_INF_ASSIGN_OR_RETURN(Value iv, c.Input(1));
  RILL_INF_ASSIGN_OR_RETURN(int x, c.ToNchw(xv));
  const Shape s = c.ShapeOf(x);
  const int rank = static_cast<int>(s.size());
  if (rank < 3 || ir::HasDynamicDim(s)) return c.Invalid("input must be [N, C, spatial...] of known sizes");
  const int sd = rank - 2;
  const std::vector<int64_t> kernel = c.AttrInts("kernel_shape");
  std::vector<int64_t> strides = c.AttrInts("strides"), pads = c.AttrInts("pads");
  if (static_cast<int>(kernel.size()) != sd) return c.Invalid("kernel_shape must have one value per spatial axis");
  if (strides.empty()) strides.assign(sd, 1);
  if (pads.empty()) pads.assign(2 * sd, 0);
  if (static_cast<int>(strides.size()) != sd || static_cast<int>(pads.size()) != 2 * sd) {
    return c.Invalid("strides and pads must match kernel_shape");
  }
  Shape out = {s[0], s[1]};
  for (int d = 0; d < sd; ++d) {
    out.push_back(static_cast<int>((s[d + 2] - 1) * strides[d] - pads[d] - pads[d + sd] + kernel[d]));
  }
  if (c.HasInput(2)) {
    RILL_INF_ASSIGN_OR_RETURN(std::vector<int64_t> given, ConstInts(c, 2, "output_shape"));
    if (static_cast<int>(given.size()) != rank || given[0] != s[0] || given[1] != s[1]) {
      return c.Invalid("output_shape must be [N, C, spatial...] of the input's N and C");
    }
    for (int d = 2; d < rank; ++d) {
      if (given[d] < out[d]) return c.Invalid("output_shape smaller than the default output");
      out[d] = static_cast<int>(given[d]);
    }
  }
  const int64_t total = NumElements(out);
  if (total < 1 || total > (int64_t{1} << 31)) return c.Invalid("output size out of range");
  RILL_INF_ASSIGN_OR_RETURN(int idx, c.ToNchw(iv));
  if (c.ShapeOf(idx) != s) return c.Invalid("indices must have the input's shape");
  const std::string base = c.out_name();
  const int n = static_cast<int>(NumElements(s));
  if (c.IsConst(idx)) {
    const std::vector<int64_t> v = c.ConstInts(idx);
    for (int64_t k : v) {
      if (k < 0 || k >= total) return c.Invalid("index " + std::to_string(k) + " out of range");
    }
    idx = c.NewFloatConst(base + "/indices", {n}, std::vector<float>(v.begin(), v.end()));
  } else {
    RILL_INF_ASSIGN_OR_RETURN(idx, EmitReshape(c, idx, {n}, base + "/indices"));
  }
  RILL_INF_ASSIGN_OR_RETURN(int flat, EmitReshape(c, x, {n}, base + "/values"));
  const int zeros = c.NewFloatConst(base + "/zeros", {static_cast<int>(total)},
                                    std::vector<float>(static_cast<size_t>(total), 0.0f));
  auto sa = std::make_shared<ir::ScatterAttrs>();
  RILL_INF_ASSIGN_OR_RETURN(int y, c.Emit(ir::ScatterElementsOp(), {zeros, idx, flat}, base + "/flat", {}, sa));
  RILL_INF_ASSIGN_OR_RETURN(y, EmitReshape(c, y, out, base));
  c.Define(y, false);
  return Status::Ok();
}

const bool kRegistered = RegisterOnnxConverter({"CenterCropPad"}, CenterCropPad) &&
                         RegisterOnnxConverter({"Col2Im"}, Col2Im) &&
                         RegisterOnnxConverter({"AffineGrid"}, AffineGrid) &&
                         RegisterOnnxConverter({"MaxUnpool"}, MaxUnpool);

}  // namespace
}  // namespace rill::inference::onnx_import
