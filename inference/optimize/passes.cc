#include "inference/optimize/passes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "inference/ir/conv_geometry.h"
#include "inference/ir/ops/volume_ops.h"
#include "inference/optimize/graph_edit.h"
#include "inference/optimize/math_fusions.h"

namespace rill::inference::optimize {
namespace {

using ir::Node;
using ir::OpType;

bool IsFloatConst(const ir::Graph& g, int id) {
  return id >= 0 && g.tensors[id].is_constant() && g.tensors[id].dtype == DataType::kFloat32 && !g.tensors[id].sparsity;
}

std::vector<float> Floats(const ir::Graph& g, int id) {
  const ir::TensorInfo& t = g.tensors[id];
  std::vector<float> v(static_cast<size_t>(NumElements(t.shape)));
  if (!v.empty()) std::memcpy(v.data(), t.data, v.size() * 4);
  return v;
}

int AddFloatConst(ir::Graph* g, const std::string& name, const Shape& shape, const std::vector<float>& v) {
  ir::TensorInfo t;
  t.name = name;
  g->tensors.push_back(t);
  const int id = static_cast<int>(g->tensors.size()) - 1;
  std::vector<uint8_t> bytes(v.size() * 4);
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  g->SetConstant(id, DataType::kFloat32, shape, std::move(bytes));
  return id;
}

bool IsConv(OpType t) { return t == OpType::kConv2D || t == OpType::kDepthwiseConv2D; }

int OptionalInput(const Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; }

// A conv with a fused PRELU (input 4): its output is final, nothing more
// folds or fuses into it.
bool HasFusedPRelu(const Node& n) { return IsConv(n.type) && OptionalInput(n, 4) >= 0; }

// Whether a PAD node pads with zeros (no value input, or a constant 0).
bool PadValueIsZero(const ir::Graph& g, const Node& pad) {
  if (pad.inputs.size() < 3 || pad.inputs[2] < 0) return true;
  const int v = pad.inputs[2];
  return IsFloatConst(g, v) && NumElements(g.tensors[v].shape) == 1 && Floats(g, v)[0] == 0.0f;
}

// The node reading `id`, if exactly one node reads it and it is not a graph output.
int SoleReader(const ir::Graph& g, const std::vector<int>& readers, int id) {
  if (readers[id] != 1) return -1;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (int in : g.nodes[i].inputs) {
      if (in == id) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

int FoldPadIntoConv(ir::Graph* g) {
  const std::vector<int> producer = Producers(*g);
  std::vector<int> readers = ReaderCounts(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int folded = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    Node& conv = g->nodes[i];
    if (!IsConv(conv.type) || conv.inputs.empty() || conv.attrs.padding == ir::Padding::kSame) continue;
    const int p = producer[conv.inputs[0]];
    if (p < 0 || dead[p] || g->nodes[p].type != OpType::kPad) continue;
    const Node& pad = g->nodes[p];
    std::vector<int> pads;
    if (!ir::ReadConstInts(*g, pad, 1, &pads).ok() || pads.size() != 8) continue;
    if (!PadValueIsZero(*g, pad)) continue;
    if (pads[0] || pads[1] || pads[6] || pads[7]) continue;  // only H and W
    ir::OpAttrs& a = conv.attrs;
    if (a.padding == ir::Padding::kValid) {
      a.padding = ir::Padding::kExplicit;
      a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 0;
    }
    a.pad_top += pads[2];
    a.pad_bottom += pads[3];
    a.pad_left += pads[4];
    a.pad_right += pads[5];
    const int padded = conv.inputs[0];
    conv.inputs[0] = pad.inputs[0];
    ++readers[pad.inputs[0]];
    if (--readers[padded] == 0) dead[p] = true;
    ++folded;
  }
  Sweep(g, dead);
  return folded;
}

namespace {

// The kernel taps [*lo, *hi] along one axis that read the input (not only
// padding) at some output position; false when none does.
bool LiveTaps(int in, int out, int kernel, int stride, int dilation, int pad, int* lo, int* hi) {
  *lo = kernel;
  *hi = -1;
  for (int t = 0; t < kernel; ++t) {
    const long long offset = static_cast<long long>(t) * dilation - pad;  // input position of output 0
    // The first output whose position is >= 0, and whether it is < in.
    const long long o = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    if (o < out && o * stride + offset < in) {
      *lo = std::min(*lo, t);
      *hi = t;
    }
  }
  return *hi >= 0;
}

}  // namespace

int CropDeadConvTaps(ir::Graph* g) {
  // Which taps are dead depends on the input's size: only for a graph that
  // is imported again at each size (ONNX), not one Resize re-plans (TFLite).
  if (!g->specialized_to_input_shapes) return 0;
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  const std::vector<int> readers = ReaderCounts(*g);
  int cropped = 0;
  for (Node& conv : g->nodes) {
    if (!IsConv(conv.type) || conv.inputs.size() < 2 || conv.outputs.empty()) continue;
    const int wid = conv.inputs[1];
    if (!IsFloatConst(*g, wid) || conv.inputs[0] < 0) continue;
    const Shape& x = shape[conv.inputs[0]];
    const Shape& y = shape[conv.outputs[0]];
    const Shape w = g->tensors[wid].shape;  // [O, kh, kw, I] or [1, kh, kw, C]
    if (x.size() != 4 || y.size() != 4 || w.size() != 4 || ir::HasDynamicDim(x) || ir::HasDynamicDim(y)) continue;
    ir::OpAttrs& a = conv.attrs;
    int pads[4];  // top, bottom, left, right
    if (a.padding == ir::Padding::kExplicit) {
      pads[0] = a.pad_top, pads[1] = a.pad_bottom, pads[2] = a.pad_left, pads[3] = a.pad_right;
    } else {
      const int th = ir::WindowPadTotal(x[1], y[1], w[1], a.stride_h, a.dilation_h, a.padding);
      const int tw = ir::WindowPadTotal(x[2], y[2], w[2], a.stride_w, a.dilation_w, a.padding);
      pads[0] = th / 2;
      pads[2] = tw / 2;
      pads[1] = th - pads[0];
      pads[3] = tw - pads[2];
    }
    int lo_h = 0, hi_h = 0, lo_w = 0, hi_w = 0;
    if (!LiveTaps(x[1], y[1], w[1], a.stride_h, a.dilation_h, pads[0], &lo_h, &hi_h) ||
        !LiveTaps(x[2], y[2], w[2], a.stride_w, a.dilation_w, pads[2], &lo_w, &hi_w)) {
      continue;  // no tap reads anything: left as it is
    }
    if (lo_h == 0 && hi_h == w[1] - 1 && lo_w == 0 && hi_w == w[2] - 1) continue;
    const int top = pads[0] - lo_h * a.dilation_h, bottom = pads[1] - (w[1] - 1 - hi_h) * a.dilation_h;
    const int left = pads[2] - lo_w * a.dilation_w, right = pads[3] - (w[2] - 1 - hi_w) * a.dilation_w;
    if (top < 0 || bottom < 0 || left < 0 || right < 0) continue;
    const int kh = hi_h - lo_h + 1, kw = hi_w - lo_w + 1;
    const std::vector<float> full = Floats(*g, wid);
    std::vector<float> crop(static_cast<size_t>(w[0]) * kh * kw * w[3]);
    for (int o = 0; o < w[0]; ++o) {
      for (int i = 0; i < kh; ++i) {
        for (int j = 0; j < kw; ++j) {
          const float* src = full.data() + ((static_cast<size_t>(o) * w[1] + lo_h + i) * w[2] + lo_w + j) * w[3];
          std::memcpy(crop.data() + ((static_cast<size_t>(o) * kh + i) * kw + j) * w[3], src, sizeof(float) * w[3]);
        }
      }
    }
    const Shape cropped_shape = {w[0], kh, kw, w[3]};
    if (readers[wid] == 1) {
      std::vector<uint8_t> bytes(crop.size() * 4);
      std::memcpy(bytes.data(), crop.data(), bytes.size());
      g->SetConstant(wid, DataType::kFloat32, cropped_shape, std::move(bytes));
    } else {
      conv.inputs[1] = AddFloatConst(g, g->tensors[wid].name + "/cropped", cropped_shape, crop);
    }
    a.padding = ir::Padding::kExplicit;
    a.pad_top = top, a.pad_bottom = bottom, a.pad_left = left, a.pad_right = right;
    ++cropped;
  }
  return cropped;
}

namespace {

// One band of output positions along an axis whose positions all read the
// same live taps [lo, hi] (every tap outside reads only padding there).
struct TapBand {
  int begin = 0, end = 0;  // output positions [begin, end)
  int lo = 0, hi = -1;     // live taps; hi < lo: none
};

// The bands of an axis of a stride-1 window op, in order.
std::vector<TapBand> TapBands(int in, int out, int kernel, int dilation, int pad) {
  std::vector<TapBand> bands;
  for (int o = 0; o < out; ++o) {
    int lo = kernel, hi = -1;
    for (int t = 0; t < kernel; ++t) {
      const long long at = static_cast<long long>(o) - pad + static_cast<long long>(t) * dilation;
      if (at >= 0 && at < in) {
        lo = std::min(lo, t);
        hi = t;
      }
    }
    if (!bands.empty() && bands.back().lo == lo && bands.back().hi == hi) {
      bands.back().end = o + 1;
    } else {
      bands.push_back({o, o + 1, lo, hi});
    }
  }
  return bands;
}

// All of an axis's bands as one: every output, the union of the live taps.
TapBand Merged(const std::vector<TapBand>& bands) {
  TapBand m{bands.front().begin, bands.back().end, bands.front().lo, bands.front().hi};
  for (const TapBand& b : bands) m.lo = std::min(m.lo, b.lo), m.hi = std::max(m.hi, b.hi);
  return m;
}

// What the regions of a split cost, in MACs per output channel over the
// GEMM's efficiency at the region's size: a region of p output pixels runs
// at min(1, sqrt(p / 256)) of a large one's rate (DeepLabV3's ASPP regions
// on Zen 5: 64 pixels at about half the whole conv's GMAC/s, 128 at 0.7-1,
// 256 and more at 1).
double SplitCost(const std::vector<TapBand>& rows, const std::vector<TapBand>& cols) {
  double cost = 0;
  for (const TapBand& r : rows) {
    for (const TapBand& c : cols) {
      const double pixels = static_cast<double>(r.end - r.begin) * (c.end - c.begin);
      const double taps = static_cast<double>(r.hi - r.lo + 1) * (c.hi - c.lo + 1);
      cost += pixels * taps / std::min(1.0, std::sqrt(pixels / 256.0));
    }
  }
  return cost;
}

}  // namespace

int SplitConvIntoTapBands(ir::Graph* g) {
  constexpr double kMaxCostShare = 0.8;     // split only where the regions cost a fifth less
  constexpr long long kMinMacs = 20000000;  // and the conv is large enough to pay for the slices
  constexpr size_t kMaxRegions = 16;
  // The regions are fixed to the input's size: only for a graph imported
  // again at each size (ONNX), not one Resize re-plans (TFLite).
  if (!g->specialized_to_input_shapes) return 0;
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  int split = 0;
  std::vector<Node> rewritten;
  rewritten.reserve(g->nodes.size());
  for (const Node& conv : g->nodes) {
    auto keep = [&] { rewritten.push_back(conv); };
    if (conv.type != OpType::kConv2D || conv.inputs.size() < 2 || conv.inputs.size() > 3 || conv.outputs.size() != 1 ||
        !conv.guards.empty() || conv.inputs[0] < 0 || !IsFloatConst(*g, conv.inputs[1])) {
      keep();
      continue;
    }
    const ir::OpAttrs& a = conv.attrs;
    const Shape& x = shape[conv.inputs[0]];
    const Shape& y = shape[conv.outputs[0]];
    const Shape w = g->tensors[conv.inputs[1]].shape;  // [O, kh, kw, I]
    if (x.size() != 4 || y.size() != 4 || w.size() != 4 || ir::HasDynamicDim(x) || ir::HasDynamicDim(y) ||
        a.stride_h != 1 || a.stride_w != 1 || w[3] != x[3]) {
      keep();
      continue;
    }
    int top = a.pad_top, left = a.pad_left;
    if (a.padding != ir::Padding::kExplicit) {
      top = ir::WindowPadTotal(x[1], y[1], w[1], 1, a.dilation_h, a.padding) / 2;
      left = ir::WindowPadTotal(x[2], y[2], w[2], 1, a.dilation_w, a.padding) / 2;
    }
    std::vector<TapBand> rows = TapBands(x[1], y[1], w[1], a.dilation_h, top);
    std::vector<TapBand> cols = TapBands(x[2], y[2], w[2], a.dilation_w, left);
    bool empty_band = false;
    for (const std::vector<TapBand>* bands : {&rows, &cols}) {
      for (const TapBand& b : *bands) empty_band |= b.hi < b.lo;
    }
    const long long macs = static_cast<long long>(y[0]) * y[1] * y[2] * w[0] * w[1] * w[2] * w[3];
    if (empty_band || macs < kMinMacs) {
      keep();
      continue;
    }
    // Bands split along both axes, along H only (W's merged into one) or
    // along W only, whichever costs least; kept whole unless that costs at
    // most kMaxCostShare of the whole conv.
    const std::vector<TapBand> all_rows = {Merged(rows)}, all_cols = {Merged(cols)};
    const double whole = SplitCost(all_rows, all_cols);
    double best = whole;
    const std::vector<TapBand>*best_rows = &all_rows, *best_cols = &all_cols;
    using Option = std::pair<const std::vector<TapBand>*, const std::vector<TapBand>*>;
    for (const Option& option : {Option(&rows, &cols), Option(&rows, &all_cols), Option(&all_rows, &cols)}) {
      if (option.first->size() * option.second->size() > kMaxRegions) continue;
      const double cost = SplitCost(*option.first, *option.second);
      if (cost < best) best = cost, best_rows = option.first, best_cols = option.second;
    }
    if (best > kMaxCostShare * whole || best_rows->size() * best_cols->size() < 2) {
      keep();
      continue;
    }
    rows = *best_rows;
    cols = *best_cols;
    // Each region: the input window its live taps read (a SLICE, none when
    // it is the whole input), a VALID conv of the cropped filter, the same
    // bias and activation; the regions joined along W, then along H into
    // the conv's own output tensor. Every output sums the same nonzero
    // products as before.
    const std::vector<float> filter = Floats(*g, conv.inputs[1]);
    const int bias = OptionalInput(conv, 2);
    const std::string base = conv.name;
    std::vector<int> row_outputs;
    for (size_t ri = 0; ri < rows.size(); ++ri) {
      const TapBand& r = rows[ri];
      std::vector<int> pieces;
      for (size_t ci = 0; ci < cols.size(); ++ci) {
        const TapBand& c = cols[ci];
        const std::string tag = base + "/band" + std::to_string(ri) + "_" + std::to_string(ci);
        const int kh = r.hi - r.lo + 1, kw = c.hi - c.lo + 1;
        const long long y0 = r.begin - top + static_cast<long long>(r.lo) * a.dilation_h;
        const long long y1 = (r.end - 1) - top + static_cast<long long>(r.hi) * a.dilation_h + 1;
        const long long x0 = c.begin - left + static_cast<long long>(c.lo) * a.dilation_w;
        const long long x1 = (c.end - 1) - left + static_cast<long long>(c.hi) * a.dilation_w + 1;
        // A merged band's window may reach into the padding: the part
        // inside the input is sliced, the rest is the region's padding.
        const long long sy0 = std::max<long long>(y0, 0), sy1 = std::min<long long>(y1, x[1]);
        const long long sx0 = std::max<long long>(x0, 0), sx1 = std::min<long long>(x1, x[2]);
        int in = conv.inputs[0];
        if (sy0 != 0 || sy1 != x[1] || sx0 != 0 || sx1 != x[2]) {
          Node slice;
          slice.type = OpType::kSlice;
          slice.attrs.slice_start = {0, sy0, sx0, 0};
          slice.attrs.slice_end = {x[0], sy1, sx1, x[3]};
          slice.attrs.slice_step = {1, 1, 1, 1};
          in = AddActivation(g, tag + "/input",
                             {x[0], static_cast<int>(sy1 - sy0), static_cast<int>(sx1 - sx0), x[3]});
          slice.inputs = {conv.inputs[0]};
          slice.outputs = {in};
          slice.name = g->tensors[in].name;
          rewritten.push_back(slice);
        }
        std::vector<float> crop(static_cast<size_t>(w[0]) * kh * kw * w[3]);
        for (int o = 0; o < w[0]; ++o) {
          for (int i = 0; i < kh; ++i) {
            for (int j = 0; j < kw; ++j) {
              const float* src =
                  filter.data() + ((static_cast<size_t>(o) * w[1] + r.lo + i) * w[2] + c.lo + j) * w[3];
              std::memcpy(crop.data() + ((static_cast<size_t>(o) * kh + i) * kw + j) * w[3], src,
                          sizeof(float) * w[3]);
            }
          }
        }
        Node part = conv;
        part.inputs = {in, AddFloatConst(g, tag + "/filter", {w[0], kh, kw, w[3]}, crop)};
        if (bias >= 0) part.inputs.push_back(bias);
        part.attrs.padding = ir::Padding::kExplicit;
        part.attrs.pad_top = static_cast<int>(sy0 - y0);
        part.attrs.pad_bottom = static_cast<int>(y1 - sy1);
        part.attrs.pad_left = static_cast<int>(sx0 - x0);
        part.attrs.pad_right = static_cast<int>(x1 - sx1);
        const bool last = rows.size() == 1 && cols.size() == 1;
        const int out = last ? conv.outputs[0] : AddActivation(g, tag, {y[0], r.end - r.begin, c.end - c.begin, y[3]});
        part.outputs = {out};
        part.name = g->tensors[out].name;
        rewritten.push_back(part);
        pieces.push_back(out);
      }
      if (pieces.size() == 1) {
        row_outputs.push_back(pieces[0]);
        continue;
      }
      const int joined = rows.size() == 1 ? conv.outputs[0]
                                          : AddActivation(g, base + "/band" + std::to_string(ri),
                                                          {y[0], r.end - r.begin, y[2], y[3]});
      Node concat;
      concat.type = OpType::kConcatenation;
      concat.attrs.axis = 2;
      concat.inputs = pieces;
      concat.outputs = {joined};
      concat.name = g->tensors[joined].name;
      rewritten.push_back(concat);
      row_outputs.push_back(joined);
    }
    if (row_outputs.size() > 1) {
      Node concat;
      concat.type = OpType::kConcatenation;
      concat.attrs.axis = 1;
      concat.inputs = row_outputs;
      concat.outputs = {conv.outputs[0]};
      concat.name = conv.name;
      rewritten.push_back(concat);
    }
    ++split;
  }
  if (split > 0) g->nodes = std::move(rewritten);
  return split;
}

int FoldAffineIntoConv(ir::Graph* g) {
  int folded = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    const std::vector<int> readers = ReaderCounts(*g);
    for (size_t i = 0; i < g->nodes.size() && !changed; ++i) {
      Node& conv = g->nodes[i];
      if (!IsConv(conv.type) || conv.attrs.activation != ir::Activation::kNone || HasFusedPRelu(conv)) continue;
      if (conv.inputs.size() < 2 || !IsFloatConst(*g, conv.inputs[1])) continue;
      if (conv.inputs.size() > 2 && conv.inputs[2] >= 0 && !IsFloatConst(*g, conv.inputs[2])) continue;
      const int out = conv.outputs[0];
      const int r = SoleReader(*g, readers, out);
      if (r < 0) continue;
      Node& next = g->nodes[r];
      if (next.type != OpType::kMul && next.type != OpType::kAdd) continue;
      if (next.attrs.activation != ir::Activation::kNone || next.inputs.size() != 2) continue;
      const int other = next.inputs[0] == out ? next.inputs[1] : next.inputs[0];
      if (!IsFloatConst(*g, other)) continue;
      const Shape& ws = g->tensors[conv.inputs[1]].shape;
      const int out_c = conv.type == OpType::kConv2D ? ws[0] : ws[3];
      const Shape& cs = g->tensors[other].shape;
      // Per-channel constants only: [C], [1,C], [1,1,1,C] (or a scalar).
      const int64_t n = NumElements(cs);
      if (n != out_c && n != 1) continue;
      if (n == out_c && !cs.empty() && cs.back() != out_c) continue;
      std::vector<float> c = Floats(*g, other);
      if (n == 1) c.assign(out_c, c[0]);
      std::vector<float> bias(out_c, 0.0f);
      if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) bias = Floats(*g, conv.inputs[2]);
      if (static_cast<int>(bias.size()) != out_c) continue;
      if (next.type == OpType::kMul) {
        std::vector<float> w = Floats(*g, conv.inputs[1]);
        if (conv.type == OpType::kConv2D) {
          const size_t per = w.size() / out_c;
          for (int o = 0; o < out_c; ++o)
            for (size_t k = 0; k < per; ++k) w[o * per + k] *= c[o];
        } else {
          for (size_t k = 0; k < w.size(); ++k) w[k] *= c[k % out_c];
        }
        for (int o = 0; o < out_c; ++o) bias[o] *= c[o];
        conv.inputs[1] = AddFloatConst(g, g->tensors[conv.inputs[1]].name + "/scaled", ws, w);
      } else {
        for (int o = 0; o < out_c; ++o) bias[o] += c[o];
      }
      const int bias_id = AddFloatConst(g, conv.name + "/folded_bias", {out_c}, bias);
      if (conv.inputs.size() < 3) conv.inputs.resize(3, -1);
      conv.inputs[2] = bias_id;
      // The conv now writes what the affine op wrote.
      conv.outputs[0] = next.outputs[0];
      conv.name = next.name;
      std::vector<bool> dead(g->nodes.size(), false);
      dead[r] = true;
      Sweep(g, dead);
      ++folded;
      changed = true;
    }
  }
  return folded;
}

int FuseGatedActivations(ir::Graph* g) {
  const std::vector<int> producer = Producers(*g);
  const std::vector<int> readers = ReaderCounts(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    Node& mul = g->nodes[i];
    if (mul.type != OpType::kMul || mul.inputs.size() != 2 || mul.attrs.activation != ir::Activation::kNone) continue;
    for (int side = 0; side < 2; ++side) {
      const int gate = mul.inputs[side], x = mul.inputs[1 - side];
      const int h = gate >= 0 ? producer[gate] : -1;
      if (h < 0 || dead[h] || SoleReader(*g, readers, gate) != static_cast<int>(i)) continue;
      const Node& gn = g->nodes[h];
      if (gn.inputs.size() != 1 || gn.inputs[0] != x || gn.attrs.activation != ir::Activation::kNone) continue;
      OpType fused_type;
      if (gn.type == OpType::kLogistic) {
        fused_type = OpType::kSilu;
      } else if (gn.type == OpType::kHardSigmoid && std::fabs(gn.attrs.alpha - 1.0f / 6.0f) <= 1e-6f &&
                 gn.attrs.beta == 0.5f) {
        fused_type = OpType::kHardSwish;
      } else {
        continue;
      }
      mul.type = fused_type;
      mul.inputs = {x};
      mul.attrs = ir::OpAttrs{};
      dead[h] = true;
      ++fused;
      break;
    }
  }
  Sweep(g, dead);
  return fused;
}

int FuseActivations(ir::Graph* g) {
  const std::vector<int> producer = Producers(*g);
  const std::vector<int> readers = ReaderCounts(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& act = g->nodes[i];
    ir::Activation a;
    if (act.type == OpType::kRelu) {
      a = ir::Activation::kRelu;
    } else if (act.type == OpType::kRelu6) {
      a = ir::Activation::kRelu6;
    } else if (act.type == OpType::kClamp && act.attrs.clamp_min == 0.0f && act.attrs.clamp_max == 6.0f) {
      a = ir::Activation::kRelu6;
    } else if (act.type == OpType::kClamp && act.attrs.clamp_min == -1.0f && act.attrs.clamp_max == 1.0f) {
      a = ir::Activation::kReluN1To1;
    } else {
      continue;
    }
    const int in = act.inputs[0];
    const int p = producer[in];
    if (p < 0 || dead[p] || readers[in] != 1) continue;
    Node& prod = g->nodes[p];
    switch (prod.type) {
      case OpType::kConv2D: case OpType::kDepthwiseConv2D: case OpType::kTransposeConv2D:
      case OpType::kFullyConnected: case OpType::kAdd: case OpType::kMul: case OpType::kConcatenation:
      case OpType::kMaxPool2D: case OpType::kAveragePool2D:
        break;
      default:
        if (prod.type == ir::Conv3dOp()) break;  // a registered op: its epilogue applies it
        continue;
    }
    if (prod.attrs.activation != ir::Activation::kNone || HasFusedPRelu(prod)) continue;
    prod.attrs.activation = a;
    prod.outputs[0] = act.outputs[0];
    prod.name = act.name;
    dead[i] = true;
    ++fused;
  }
  Sweep(g, dead);
  return fused;
}

namespace {

// The channel count `id` holds when it is PAD(x) that pads only the end of
// the channel axis of a 4-D x with zeros, read by nothing else; else -1.
// `*unpadded` is x.
int ChannelPadSource(const ir::Graph& g, const std::vector<Shape>& shape, const std::vector<int>& producer,
                     const std::vector<int>& readers, int id, int* unpadded) {
  const int p = producer[id];
  if (p < 0 || readers[id] != 1) return -1;
  const Node& pad = g.nodes[p];
  if (pad.type != OpType::kPad || pad.inputs.empty() || pad.inputs[0] < 0) return -1;
  std::vector<int> pads;
  if (!ir::ReadConstInts(g, pad, 1, &pads).ok() || pads.size() != 8) return -1;
  for (int i = 0; i < 7; ++i) {
    if (pads[i] != 0) return -1;
  }
  if (!PadValueIsZero(g, pad)) return -1;
  const Shape& x = shape[pad.inputs[0]];
  if (x.size() != 4 || g.tensors[pad.inputs[0]].dtype != DataType::kFloat32) return -1;
  *unpadded = pad.inputs[0];
  return x[3];
}

}  // namespace

int FuseResidualAdd(ir::Graph* g) {
  int fused = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    const std::vector<int> producer = Producers(*g);
    const std::vector<int> readers = ReaderCounts(*g);
    // Shapes at the model's declared input sizes (importers need not have
    // stored activations' shapes); a graph that does not infer is left alone.
    std::vector<Shape> shape = g->InitialShapes();
    if (!g->InferShapes(&shape).ok()) return fused;
    for (size_t i = 0; i < g->nodes.size() && !changed; ++i) {
      const Node& add = g->nodes[i];
      if (add.type != OpType::kAdd || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
      const Shape& out = shape[add.outputs[0]];
      if (out.size() != 4) continue;
      // The conv to fuse into: the later-produced operand whose skip (the
      // other operand, or what a channel zero-PAD pads) exists before it runs.
      int best_conv = -1, res = -1, dead_pad = -1;
      for (int side = 0; side < 2; ++side) {
        const int a = add.inputs[side], b = add.inputs[1 - side];
        if (a < 0 || b < 0 || shape[a] != out) continue;
        const int c = producer[a];
        if (c < 0 || readers[a] != 1 || c <= best_conv) continue;
        const Node& conv = g->nodes[c];
        if (conv.type != OpType::kConv2D || conv.attrs.activation != ir::Activation::kNone) continue;
        if (conv.inputs.size() > 3 && conv.inputs[3] >= 0) continue;
        if (HasFusedPRelu(conv)) continue;
        if (g->tensors[b].is_constant() || g->tensors[b].dtype != DataType::kFloat32) continue;
        int skip = b, pad = -1;
        int unpadded = -1;
        const int channels = ChannelPadSource(*g, shape, producer, readers, b, &unpadded);
        if (channels > 0) {
          // A channel zero-PAD of a smaller tensor: the conv reads that one.
          const Shape& xs = shape[unpadded];
          if (xs[0] != out[0] || xs[1] != out[1] || xs[2] != out[2] || channels > out[3]) continue;
          skip = unpadded;
          pad = producer[b];
        } else if (shape[b] != out) {
          continue;
        }
        if (producer[skip] >= c) continue;  // produced after the conv
        best_conv = c;
        res = skip;
        dead_pad = pad;
      }
      if (best_conv < 0) continue;
      Node& conv = g->nodes[best_conv];
      std::vector<bool> dead(g->nodes.size(), false);
      if (dead_pad >= 0) dead[dead_pad] = true;
      if (conv.inputs.size() < 4) conv.inputs.resize(4, -1);
      conv.inputs[3] = res;
      conv.attrs.activation = add.attrs.activation;
      conv.outputs[0] = add.outputs[0];
      conv.name = add.name;
      dead[i] = true;
      Sweep(g, dead);
      ++fused;
      changed = true;
    }
  }
  return fused;
}

namespace {

// A 1x1, stride-1, unpadded, ungrouped conv with constant float weights and
// bias (`shape`: the graph's inferred shapes).
bool IsPointwiseConv(const ir::Graph& g, const Node& n, const std::vector<Shape>& shape) {
  if (n.type != OpType::kConv2D || n.inputs.size() < 2 || !IsFloatConst(g, n.inputs[1])) return false;
  const Shape& w = g.tensors[n.inputs[1]].shape;
  if (w.size() != 4 || w[1] != 1 || w[2] != 1) return false;
  if (n.inputs[0] < 0 || shape[n.inputs[0]].size() != 4 || shape[n.inputs[0]][3] != w[3]) return false;
  if (n.inputs.size() > 2 && n.inputs[2] >= 0 && !IsFloatConst(g, n.inputs[2])) return false;
  const ir::OpAttrs& a = n.attrs;
  if (a.stride_h != 1 || a.stride_w != 1) return false;
  return a.padding != ir::Padding::kExplicit ||
         (a.pad_top == 0 && a.pad_left == 0 && a.pad_bottom == 0 && a.pad_right == 0);
}

}  // namespace

int FusePRelu(ir::Graph* g) {
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  const std::vector<int> producer = Producers(*g);
  const std::vector<int> readers = ReaderCounts(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& prelu = g->nodes[i];
    if (prelu.type != OpType::kPRelu || prelu.inputs.size() != 2 || prelu.outputs.size() != 1) continue;
    const int x = prelu.inputs[0], slope = prelu.inputs[1];
    if (x < 0 || !IsFloatConst(*g, slope)) continue;
    const int p = producer[x];
    if (p < 0 || dead[p] || readers[x] != 1) continue;  // the conv's output read by the PRELU alone
    Node& conv = g->nodes[p];
    if (!IsConv(conv.type) || conv.outputs.size() != 1 || conv.attrs.activation != ir::Activation::kNone ||
        HasFusedPRelu(conv)) {
      continue;
    }
    const Shape& out = shape[x];
    if (out.size() != 4 || shape[prelu.outputs[0]] != out) continue;
    // One slope per channel ([C], [1, 1, C], ...): every axis but the last 1.
    const Shape& s = g->tensors[slope].shape;
    if (s.empty() || s.back() != out[3] || NumElements(s) != out[3]) continue;
    if (conv.inputs.size() < 5) conv.inputs.resize(5, -1);
    conv.inputs[4] = slope;
    conv.outputs[0] = prelu.outputs[0];
    conv.name = prelu.name;
    dead[i] = true;
    ++fused;
  }
  Sweep(g, dead);
  return fused;
}

int FuseDepthwiseBlocks(ir::Graph* g) {
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  const std::vector<int> producer = Producers(*g);
  const std::vector<int> readers = ReaderCounts(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  std::vector<bool> replaced(g->nodes.size(), false);  // already a block: not an expand or depthwise conv
  int fused = 0;
  for (size_t pi = 0; pi < g->nodes.size(); ++pi) {
    const Node& project = g->nodes[pi];
    if (project.inputs.empty() || project.inputs[0] < 0 || !IsPointwiseConv(*g, project, shape)) continue;
    const int d_out = project.inputs[0];
    const int di = producer[d_out];
    if (di < 0 || dead[di] || replaced[di] || readers[d_out] != 1) continue;
    const Node& dw = g->nodes[di];
    if (dw.type != OpType::kDepthwiseConv2D || dw.inputs.size() < 2 || dw.inputs[0] < 0 ||
        !IsFloatConst(*g, dw.inputs[1])) {
      continue;
    }
    if (OptionalInput(dw, 2) >= 0 && !IsFloatConst(*g, dw.inputs[2])) continue;
    if (HasFusedPRelu(dw)) continue;  // the block's depthwise stage takes activations only
    if (dw.attrs.dilation_h != 1 || dw.attrs.dilation_w != 1) continue;
    const Shape& wd = g->tensors[dw.inputs[1]].shape;
    const Shape& dx = shape[dw.inputs[0]];
    if (wd.size() != 4 || dx.size() != 4 || wd[3] != dx[3]) continue;  // depth multiplier 1 only
    // An expanding 1x1 conv in front, when the depthwise conv is its only reader.
    const int e_out = dw.inputs[0];
    int ei = producer[e_out];
    if (ei >= 0 && (dead[ei] || replaced[ei] || readers[e_out] != 1 || !IsPointwiseConv(*g, g->nodes[ei], shape) ||
                    OptionalInput(g->nodes[ei], 3) >= 0 || HasFusedPRelu(g->nodes[ei]))) {
      ei = -1;
    }
    // Worth it when the tensors kept in cache are big: the expanded input
    // (with an expand) and the depthwise output, per image.
    const Shape& d_shape = shape[d_out];
    long long kept = static_cast<long long>(d_shape[1]) * d_shape[2] * d_shape[3];
    if (ei >= 0) kept += static_cast<long long>(dx[1]) * dx[2] * dx[3];
    if (kept * 4 < kMinDepthwiseBlockBytes) continue;
    const Node* expand = ei >= 0 ? &g->nodes[ei] : nullptr;
    Node block;
    block.name = project.name;
    block.type = OpType::kDepthwiseBlock;
    block.attrs = dw.attrs;
    block.attrs.depthwise_activation = dw.attrs.activation;
    block.attrs.activation = project.attrs.activation;
    block.attrs.expand_activation = expand ? expand->attrs.activation : ir::Activation::kNone;
    block.inputs = {expand ? expand->inputs[0] : e_out,
                    expand ? expand->inputs[1] : -1,
                    expand ? OptionalInput(*expand, 2) : -1,
                    dw.inputs[1],
                    OptionalInput(dw, 2),
                    project.inputs[1],
                    OptionalInput(project, 2),
                    OptionalInput(project, 3)};
    if (HasFusedPRelu(project)) block.inputs.push_back(project.inputs[4]);  // after the residual
    block.outputs = project.outputs;
    g->nodes[pi] = std::move(block);  // `project` is not used below
    replaced[pi] = true;
    dead[di] = true;
    if (ei >= 0) dead[ei] = true;
    ++fused;
  }
  Sweep(g, dead);
  return fused;
}

int CancelTransposes(ir::Graph* g) {
  const std::vector<int> producer = Producers(*g);
  std::vector<bool> is_output(g->tensors.size(), false);
  for (int id : g->outputs) is_output[id] = true;
  // Each second transpose's output -> the first's input.
  std::vector<int> replace(g->tensors.size(), -1);
  int cancelled = 0;
  for (const Node& t2 : g->nodes) {
    if (t2.type != OpType::kTranspose || t2.inputs.size() != 1 || t2.outputs.size() != 1) continue;
    const int y1 = t2.inputs[0], y2 = t2.outputs[0];
    const int p = y1 >= 0 ? producer[y1] : -1;
    if (p < 0 || is_output[y2]) continue;
    const Node& t1 = g->nodes[p];
    if (t1.type != OpType::kTranspose || t1.inputs.size() != 1) continue;
    const std::vector<int>& p1 = t1.attrs.perm;
    const std::vector<int>& p2 = t2.attrs.perm;
    // y2[d] = y1[p2[d]] = x[p1[p2[d]]]: identity when p1[p2[d]] == d.
    bool identity = !p1.empty() && p1.size() == p2.size();
    for (size_t d = 0; identity && d < p2.size(); ++d) {
      identity = p2[d] >= 0 && p2[d] < static_cast<int>(p1.size()) && p1[p2[d]] == static_cast<int>(d);
    }
    if (!identity) continue;
    replace[y2] = t1.inputs[0];  // chains (x itself a cancelled pair's output) resolve below
    ++cancelled;
  }
  if (cancelled == 0) return 0;
  for (Node& n : g->nodes) {
    for (int& id : n.inputs) {
      if (id < 0) continue;
      while (replace[id] >= 0) id = replace[id];
    }
  }
  RemoveDeadNodes(g);
  return cancelled;
}

namespace {

bool IsPerm(const Node& n, std::initializer_list<int> perm) {
  return n.type == OpType::kTranspose && n.inputs.size() == 1 && n.attrs.perm == std::vector<int>(perm);
}

// One rewrite of SinkTransposeThroughScaleAdd; false when none is left.
bool SinkOneTranspose(ir::Graph* g) {
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return false;
  const std::vector<int> producer = Producers(*g);
  const std::vector<int> readers = ReaderCounts(*g);
  for (size_t ti = 0; ti < g->nodes.size(); ++ti) {
    const Node& t = g->nodes[ti];
    if (!IsPerm(t, {0, 3, 1, 2})) continue;
    const int y = t.inputs[0], ty = t.outputs[0];
    const int mi = SoleReader(*g, readers, ty);
    if (mi < 0 || g->nodes[mi].type != OpType::kMul || g->nodes[mi].inputs.size() != 2) continue;
    const Node& mul = g->nodes[mi];
    const int c = mul.inputs[0] == ty ? mul.inputs[1] : mul.inputs[0];
    if (!IsFloatConst(*g, c) || shape[y].size() != 4) continue;
    const int channels = shape[y][3];
    const Shape& cs = shape[c];
    // [C, 1, 1] or [1, C, 1, 1]: one value per NCHW channel.
    if (NumElements(cs) != channels || cs.size() < 3 || cs.size() > 4 || cs[cs.size() - 3] != channels) continue;
    const int m = mul.outputs[0];
    const int ai = SoleReader(*g, readers, m);
    if (ai >= 0 && IsPerm(g->nodes[ai], {0, 2, 3, 1})) {
      // The MUL alone between the two transposes (the importer's own
      // transpose back to NHWC, where the residual is NHWC already): MUL(y,
      // c[C]) writes what the second transpose wrote; both go.
      const int scale = AddFloatConst(g, g->tensors[c].name + "/nhwc", {channels}, Floats(*g, c));
      Node& mul_w = g->nodes[mi];
      mul_w.inputs = {y, scale};
      mul_w.outputs[0] = g->nodes[ai].outputs[0];
      g->nodes.erase(g->nodes.begin() + static_cast<long>(ai));
      g->nodes.erase(g->nodes.begin() + static_cast<long>(ti));
      return true;
    }
    if (ai < 0 || g->nodes[ai].type != OpType::kAdd || g->nodes[ai].inputs.size() != 2) continue;
    const Node& add = g->nodes[ai];
    const int r = add.inputs[0] == m ? add.inputs[1] : add.inputs[0];
    if (r == m || shape[r] != shape[m] || shape[add.outputs[0]] != shape[m]) continue;
    // r's NHWC form: r = TRANSPOSE(src, (0,3,1,2)), or a TRANSPOSE(r, (0,2,3,1)).
    int r_nhwc = -1;
    if (producer[r] >= 0 && IsPerm(g->nodes[producer[r]], {0, 3, 1, 2})) r_nhwc = g->nodes[producer[r]].inputs[0];
    for (size_t k = 0; k < static_cast<size_t>(ai) && r_nhwc < 0; ++k) {
      if (IsPerm(g->nodes[k], {0, 2, 3, 1}) && g->nodes[k].inputs[0] == r) r_nhwc = g->nodes[k].outputs[0];
    }
    if (r_nhwc < 0) continue;
    // Rewrite: MUL(y, c[C]) -> ADD(., r_nhwc) into a new NHWC tensor, then
    // TRANSPOSE back into the ADD's old output (its readers unchanged).
    const int scale = AddFloatConst(g, g->tensors[c].name + "/nhwc", {channels}, Floats(*g, c));
    ir::TensorInfo sum;
    sum.name = g->tensors[g->nodes[ai].outputs[0]].name + "/nhwc";
    g->tensors.push_back(sum);
    const int sum_id = static_cast<int>(g->tensors.size()) - 1;
    Node& mul_w = g->nodes[mi];
    mul_w.inputs = {y, scale};
    Node& add_w = g->nodes[ai];
    add_w.inputs = {m, r_nhwc};
    const int out = add_w.outputs[0];
    add_w.outputs[0] = sum_id;
    Node back;
    back.name = add_w.name + "/nchw";
    back.type = OpType::kTranspose;
    back.attrs.perm = {0, 3, 1, 2};
    back.inputs = {sum_id};
    back.outputs = {out};
    g->nodes.insert(g->nodes.begin() + static_cast<long>(ai) + 1, std::move(back));
    g->nodes.erase(g->nodes.begin() + static_cast<long>(ti));  // the first transpose: nothing reads it now
    return true;
  }
  return false;
}

}  // namespace

int SinkTransposeThroughScaleAdd(ir::Graph* g) {
  int sunk = 0;
  // Each rewrite moves one transpose past one MUL; bounded by the node count.
  const int limit = static_cast<int>(g->nodes.size());
  while (sunk < limit && SinkOneTranspose(g)) ++sunk;
  return sunk;
}

int FuseFullyConnectedBias(ir::Graph* g) {
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  const std::vector<int> readers = ReaderCounts(*g);
  const std::vector<int> producer = Producers(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& add = g->nodes[i];
    if (add.type != OpType::kAdd || add.inputs.size() != 2 || add.attrs.activation != ir::Activation::kNone) continue;
    for (int side = 0; side < 2; ++side) {
      const int y = add.inputs[side], b = add.inputs[1 - side];
      const int p = y >= 0 ? producer[y] : -1;
      if (p < 0 || dead[p] || readers[y] != 1 || !IsFloatConst(*g, b)) continue;
      Node& fc = g->nodes[p];
      if (fc.type != OpType::kFullyConnected || OptionalInput(fc, 2) >= 0 ||
          fc.attrs.activation != ir::Activation::kNone || shape[add.outputs[0]] != shape[y]) {
        continue;
      }
      if (shape[fc.inputs[1]].size() != 2) continue;
      const int n = shape[fc.inputs[1]][0];
      const Shape& bs = shape[b];
      bool per_unit = !bs.empty() && bs.back() == n && bs.size() <= shape[y].size();
      for (size_t d = 0; per_unit && d + 1 < bs.size(); ++d) per_unit = bs[d] == 1;
      if (!per_unit) continue;
      const int bias = AddFloatConst(g, g->tensors[b].name + "/fc_bias", {n}, Floats(*g, b));
      fc.inputs.resize(2);
      fc.inputs.push_back(bias);
      fc.outputs[0] = add.outputs[0];
      fc.name = add.name;
      dead[i] = true;
      ++fused;
      break;
    }
  }
  Sweep(g, dead);
  return fused;
}

int RemoveDeadNodes(ir::Graph* g) {
  int removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    const std::vector<int> readers = ReaderCounts(*g);
    std::vector<bool> dead(g->nodes.size(), false);
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      bool used = false;
      for (int id : g->nodes[i].outputs) used = used || readers[id] > 0;
      if (!used) {
        dead[i] = true;
        ++removed;
        changed = true;
      }
    }
    Sweep(g, dead);
  }
  return removed;
}

Status Optimize(ir::Graph* g) {
  for (int round = 0; round < 4; ++round) {
    int changes = FoldPadIntoConv(g);
    changes += FoldAffineIntoConv(g);
    changes += FuseGatedActivations(g);
    changes += FuseGelu(g) + FuseLayerNorm(g) + FuseAttention(g);
    changes += SinkTransposeThroughScaleAdd(g);
    changes += CancelTransposes(g);
    changes += FuseFullyConnectedBias(g);
    changes += FuseActivations(g);
    changes += FuseResidualAdd(g);
    changes += RemoveDeadNodes(g);
    if (changes == 0) break;
  }
  // After the fusions (it moves through LAYER_NORM, GELU, ATTENTION and the
  // FCs with their biases), then the nodes it left unread go.
  if (ComputeOnlyReadRows(g) > 0) RemoveDeadNodes(g);
  // After the pads folded into the convs, before the PRELUs and blocks.
  CropDeadConvTaps(g);
  // After the crop (what is dead everywhere is gone), before the PRELUs
  // (a conv with a fused PRELU is left whole).
  SplitConvIntoTapBands(g);
  // After the passes above (a conv's PRELU ends what fuses into it), before
  // the blocks (which take the project conv's PRELU).
  FusePRelu(g);
  // Last: it consumes the convs the passes above have finished with.
  FuseDepthwiseBlocks(g);
  RILL_INF_RETURN_IF_ERROR(g->Validate());
  std::vector<Shape> shapes = g->InitialShapes();
  return g->InferShapes(&shapes);
}

}  // namespace rill::inference::optimize
