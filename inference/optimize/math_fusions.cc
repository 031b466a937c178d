#include "inference/optimize/math_fusions.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/ops/math_ops.h"
#include "inference/ir/ops/tensor_ops.h"
#include "inference/optimize/graph_edit.h"

namespace rill::inference::optimize {
namespace {

using ir::Node;
using ir::OpType;

struct Index {
  std::vector<int> producer;  // node of each tensor, -1 for none
  std::vector<int> readers;   // readers of each tensor (a graph output counts one)
  explicit Index(const ir::Graph& g) : producer(g.tensors.size(), -1), readers(g.tensors.size(), 0) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (int id : g.nodes[i].outputs) producer[id] = static_cast<int>(i);
      for (int id : g.nodes[i].inputs) {
        if (id >= 0) ++readers[id];
      }
    }
    for (int id : g.outputs) ++readers[id];
  }
};

// A float scalar constant's value (NaN when `id` is not one).
float ScalarConst(const ir::Graph& g, int id) {
  if (id < 0) return NAN;
  const ir::TensorInfo& t = g.tensors[id];
  if (!t.is_constant() || t.dtype != DataType::kFloat32 || t.sparsity || NumElements(t.shape) != 1) return NAN;
  float v;
  std::memcpy(&v, t.data, 4);
  return v;
}

bool Near(float v, double want) { return std::fabs(v - want) <= 1e-5 * std::fabs(want); }

// The node producing `id` if it has type `type`, is not dead, and `id` has no
// other reader; else -1.
int Single(const ir::Graph& g, const Index& ix, const std::vector<bool>& dead, int id, OpType type) {
  if (id < 0) return -1;
  const int p = ix.producer[id];
  if (p < 0 || dead[p] || g.nodes[p].type != type || ix.readers[id] != 1) return -1;
  if (g.nodes[p].attrs.activation != ir::Activation::kNone) return -1;
  return p;
}

bool IsBinary(const Node& n, OpType type) {
  return n.type == type && n.inputs.size() == 2 && n.attrs.activation == ir::Activation::kNone;
}

// Of a binary node, the operand that is not the scalar constant near `c`
// (-1 when neither is). `commutes`: the constant may be either operand.
int OtherThanScalar(const ir::Graph& g, const Node& n, double c, bool commutes) {
  if (Near(ScalarConst(g, n.inputs[1]), c)) return n.inputs[0];
  if (commutes && Near(ScalarConst(g, n.inputs[0]), c)) return n.inputs[1];
  return -1;
}

// s = ADD(ERF(t), 1) with t = x / sqrt(2): x, or -1. Marks the nodes in `chain`.
int GeluInner(const ir::Graph& g, const Index& ix, const std::vector<bool>& dead, int s, std::vector<int>* chain) {
  const int add = Single(g, ix, dead, s, OpType::kAdd);
  if (add < 0 || !IsBinary(g.nodes[add], OpType::kAdd)) return -1;
  const int e = OtherThanScalar(g, g.nodes[add], 1.0, true);
  const int erf = Single(g, ix, dead, e, ir::UnaryMathOp(ir::UnaryFn::kErf));
  if (erf < 0) return -1;
  const int t = g.nodes[erf].inputs[0];
  int x = -1, scale = Single(g, ix, dead, t, OpType::kDiv);
  if (scale >= 0 && IsBinary(g.nodes[scale], OpType::kDiv)) {
    x = OtherThanScalar(g, g.nodes[scale], std::sqrt(2.0), false);
  } else {
    scale = Single(g, ix, dead, t, OpType::kMul);
    if (scale >= 0 && IsBinary(g.nodes[scale], OpType::kMul)) x = OtherThanScalar(g, g.nodes[scale], std::sqrt(0.5), true);
  }
  if (x < 0) return -1;
  *chain = {add, erf, scale};
  return x;
}

}  // namespace

int FuseGelu(ir::Graph* g) {
  const Index ix(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    Node& y = g->nodes[i];
    if (dead[i] || !IsBinary(y, OpType::kMul)) continue;
    int x = -1;
    std::vector<int> chain;
    for (int side = 0; side < 2 && x < 0; ++side) {
      const int u = y.inputs[side], w = y.inputs[1 - side];
      // y = MUL(MUL(x, s), 0.5)
      if (Near(ScalarConst(*g, w), 0.5)) {
        const int m = Single(*g, ix, dead, u, OpType::kMul);
        if (m < 0 || !IsBinary(g->nodes[m], OpType::kMul)) continue;
        for (int k = 0; k < 2 && x < 0; ++k) {
          const int cand = g->nodes[m].inputs[1 - k];
          if (GeluInner(*g, ix, dead, g->nodes[m].inputs[k], &chain) == cand) {
            x = cand;
            chain.push_back(m);
          }
        }
        continue;
      }
      // y = MUL(MUL(x, 0.5), s)
      const int h = Single(*g, ix, dead, u, OpType::kMul);
      if (h >= 0 && IsBinary(g->nodes[h], OpType::kMul)) {
        const int cand = OtherThanScalar(*g, g->nodes[h], 0.5, true);
        if (cand >= 0 && GeluInner(*g, ix, dead, w, &chain) == cand) {
          x = cand;
          chain.push_back(h);
          continue;
        }
        // y = MUL(x, MUL(s, 0.5))
        const int s = OtherThanScalar(*g, g->nodes[h], 0.5, true);
        if (s >= 0 && GeluInner(*g, ix, dead, s, &chain) == w) {
          x = w;
          chain.push_back(h);
        }
      }
    }
    if (x < 0) continue;
    for (int n : chain) dead[n] = true;
    auto attrs = std::make_shared<ir::UnaryMathAttrs>();
    y.type = ir::UnaryMathOp(ir::UnaryFn::kGelu);
    y.inputs = {x};
    y.attrs = ir::OpAttrs{};
    y.typed_attrs = attrs;
    ++fused;
  }
  Sweep(g, dead);
  return fused;
}

namespace {

// MEAN(x, axes) with keep_dims over the trailing axes of x: those axes'
// first (non-negative), or -1.
int TrailingMeanAxis(const ir::Graph& g, const Node& mean, const std::vector<Shape>& shape) {
  if (mean.type != OpType::kMean || !mean.attrs.keep_dims || mean.inputs.size() != 2) return -1;
  std::vector<int> axes;
  if (!ir::ReadConstInts(g, mean, 1, &axes).ok() || axes.empty()) return -1;
  const int rank = static_cast<int>(shape[mean.inputs[0]].size());
  std::vector<bool> on(rank, false);
  for (int a : axes) {
    if (a < -rank || a >= rank) return -1;
    on[(a + rank) % rank] = true;
  }
  int first = rank;
  while (first > 0 && on[first - 1]) --first;
  for (int d = 0; d < first; ++d) {
    if (on[d]) return -1;  // not trailing
  }
  return first < rank ? first : -1;
}

// A float constant with one value per element of x's dims [axis, rank),
// right-aligned and 1 elsewhere.
bool IsAffineConst(const ir::Graph& g, int id, const Shape& x, int axis) {
  if (id < 0) return false;
  const ir::TensorInfo& t = g.tensors[id];
  if (!t.is_constant() || t.dtype != DataType::kFloat32 || t.sparsity || t.shape.size() > x.size()) return false;
  const int rank = static_cast<int>(x.size());
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const int d = rank - static_cast<int>(t.shape.size()) + static_cast<int>(i);
    if (d >= axis ? t.shape[i] != x[d] : t.shape[i] != 1) return false;
  }
  return true;
}

// The operand of binary `n` other than `id` (-1 if `id` is neither).
int Other(const Node& n, int id) { return n.inputs[0] == id ? n.inputs[1] : n.inputs[1] == id ? n.inputs[0] : -1; }

}  // namespace

int FuseLayerNorm(ir::Graph* g) {
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  const Index ix(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  const OpType sqrt_op = ir::UnaryMathOp(ir::UnaryFn::kSqrt);
  const OpType pow_op = ir::NaryMathOp(ir::NaryFn::kPow);
  int fused = 0;
  const size_t count = g->nodes.size();
  for (size_t i = 0; i < count; ++i) {
    const Node& div = g->nodes[i];
    if (dead[i] || !IsBinary(div, OpType::kDiv)) continue;
    const int d = div.inputs[0];
    const int sq = Single(*g, ix, dead, div.inputs[1], sqrt_op);
    if (sq < 0) continue;
    const int add = Single(*g, ix, dead, g->nodes[sq].inputs[0], OpType::kAdd);
    if (add < 0 || !IsBinary(g->nodes[add], OpType::kAdd)) continue;
    // ADD(v, eps), eps a scalar constant in either operand.
    int v = -1;
    float eps = NAN;
    for (int k = 0; k < 2 && v < 0; ++k) {
      eps = ScalarConst(*g, g->nodes[add].inputs[1 - k]);
      if (!std::isnan(eps)) v = g->nodes[add].inputs[k];
    }
    if (v < 0) continue;
    const int var = Single(*g, ix, dead, v, OpType::kMean);
    if (var < 0) continue;
    const int sqd = g->nodes[var].inputs[0];
    // POW(d, 2) or MUL(d, d), read by the MEAN alone.
    int p = Single(*g, ix, dead, sqd, pow_op);
    if (p >= 0) {
      if (g->nodes[p].inputs[0] != d || ScalarConst(*g, g->nodes[p].inputs[1]) != 2.0f) continue;
    } else {
      p = Single(*g, ix, dead, sqd, OpType::kMul);
      if (p < 0 || !IsBinary(g->nodes[p], OpType::kMul) || g->nodes[p].inputs[0] != d ||
          g->nodes[p].inputs[1] != d) {
        continue;
      }
    }
    // d = SUB(x, m), read by the square and the DIV only.
    const int d_readers = g->nodes[p].type == OpType::kMul ? 3 : 2;  // MUL(d, d) reads d twice
    if (d < 0 || ix.producer[d] < 0 || ix.readers[d] != d_readers) continue;
    const int sub = ix.producer[d];
    if (dead[sub] || !IsBinary(g->nodes[sub], OpType::kSub)) continue;
    const int x = g->nodes[sub].inputs[0];
    const int mean = Single(*g, ix, dead, g->nodes[sub].inputs[1], OpType::kMean);
    if (mean < 0 || g->nodes[mean].inputs[0] != x) continue;
    const int axis = TrailingMeanAxis(*g, g->nodes[mean], shape);
    if (axis < 0 || TrailingMeanAxis(*g, g->nodes[var], shape) != axis) continue;
    if (shape[d] != shape[x]) continue;
    const Shape& xs = shape[x];
    // Then MUL(., gamma) and ADD(., beta), where they follow.
    int last = static_cast<int>(i), gamma = -1, beta = -1;
    std::vector<int> chain = {static_cast<int>(i), sq, add, var, p, sub, mean};
    const int y = div.outputs[0];
    if (ix.readers[y] == 1) {
      for (size_t j = i + 1; j < count && gamma < 0; ++j) {
        const Node& m = g->nodes[j];
        if (!dead[j] && IsBinary(m, OpType::kMul) && IsAffineConst(*g, Other(m, y), xs, axis) &&
            shape[m.outputs[0]] == xs) {
          gamma = Other(m, y);
          last = static_cast<int>(j);
        }
      }
    }
    if (gamma >= 0 && ix.readers[g->nodes[last].outputs[0]] == 1) {
      const int gy = g->nodes[last].outputs[0];
      for (size_t j = last + 1; j < count && beta < 0; ++j) {
        const Node& a = g->nodes[j];
        if (!dead[j] && IsBinary(a, OpType::kAdd) && IsAffineConst(*g, Other(a, gy), xs, axis) &&
            shape[a.outputs[0]] == xs) {
          beta = Other(a, gy);
          chain.push_back(last);
          last = static_cast<int>(j);
        }
      }
    }
    if (gamma < 0) {  // no affine: scale by ones
      long long inner = 1;
      for (size_t k = axis; k < xs.size(); ++k) inner *= xs[k];
      const Shape gs(xs.begin() + axis, xs.end());
      ir::TensorInfo t;
      t.name = div.name + "/layer_norm_scale";
      g->tensors.push_back(t);
      gamma = static_cast<int>(g->tensors.size()) - 1;
      std::vector<float> ones(static_cast<size_t>(inner), 1.0f);
      std::vector<uint8_t> bytes(ones.size() * 4);
      std::memcpy(bytes.data(), ones.data(), bytes.size());
      g->SetConstant(gamma, DataType::kFloat32, gs, std::move(bytes));
    }
    for (int n : chain) {
      if (n != last) dead[n] = true;
    }
    Node& ln = g->nodes[last];
    auto attrs = std::make_shared<ir::LayerNormAttrs>();
    attrs->axis = axis - static_cast<int>(xs.size());  // from the end: any leading dims at resize
    attrs->epsilon = eps;
    ln.type = ir::LayerNormOp();
    ln.inputs = {x, gamma};
    if (beta >= 0) ln.inputs.push_back(beta);
    ln.attrs = ir::OpAttrs{};
    ln.typed_attrs = attrs;
    ++fused;
  }
  Sweep(g, dead);
  return fused;
}

namespace {

// Of a MUL or DIV by a scalar float constant, read only by the next node:
// the other operand, with *scale the factor it applies (1/c for DIV); -1
// when `id` is not one.
int ScaledBy(const ir::Graph& g, const Index& ix, const std::vector<bool>& dead, int id, float* scale,
             int* node) {
  for (OpType type : {OpType::kMul, OpType::kDiv}) {
    const int p = Single(g, ix, dead, id, type);
    if (p < 0 || !IsBinary(g.nodes[p], type)) continue;
    const Node& n = g.nodes[p];
    const float c1 = ScalarConst(g, n.inputs[1]);
    if (!std::isnan(c1) && c1 != 0.0f) {
      *scale = type == OpType::kMul ? c1 : 1.0f / c1;
      *node = p;
      return n.inputs[0];
    }
    const float c0 = ScalarConst(g, n.inputs[0]);
    if (type == OpType::kMul && !std::isnan(c0)) {
      *scale = c0;
      *node = p;
      return n.inputs[1];
    }
  }
  return -1;
}

bool IsBatchMatMul(const Node& n) { return n.type == ir::BatchMatMulOp() && n.inputs.size() == 2; }

}  // namespace

bool AttentionFusionPays(int keys) { return keys >= kMinAttentionKeys; }

int FuseAttention(ir::Graph* g) {
  // An override for timing the unfused graph (experiments only).
  const char* off = std::getenv("RILL_NO_ATTENTION_FUSION");
  if (off != nullptr && off[0] == '1') return 0;
  std::vector<Shape> shape = g->InitialShapes();
  if (!g->InferShapes(&shape).ok()) return 0;
  const Index ix(*g);
  std::vector<bool> dead(g->nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& pv = g->nodes[i];
    if (dead[i] || !IsBatchMatMul(pv)) continue;
    const auto* pva = pv.attrs_as<ir::BatchMatMulAttrs>();
    if (pva == nullptr || pva->adj_x || pva->adj_y) continue;
    const int sm = Single(*g, ix, dead, pv.inputs[0], OpType::kSoftmax);
    if (sm < 0) continue;
    const int rank = static_cast<int>(shape[pv.inputs[0]].size());
    if (rank < 2 || (g->nodes[sm].attrs.axis != rank - 1 && g->nodes[sm].attrs.axis != -1)) continue;
    std::vector<int> chain = {sm};
    int x = g->nodes[sm].inputs[0];
    // ADD(s, bias), either operand the scores.
    int bias = -1;
    const int add = Single(*g, ix, dead, x, OpType::kAdd);
    if (add >= 0 && IsBinary(g->nodes[add], OpType::kAdd)) {
      for (int side = 0; side < 2 && bias < 0; ++side) {
        const int s = g->nodes[add].inputs[side], b = g->nodes[add].inputs[1 - side];
        const int p = ix.producer[s];
        if (p < 0 || ix.readers[s] != 1 || shape[s] != shape[x]) continue;
        const OpType pt = g->nodes[p].type;
        if (pt != OpType::kMul && pt != OpType::kDiv && !IsBatchMatMul(g->nodes[p])) continue;
        bias = b;
        x = s;
      }
      if (bias < 0) continue;
      chain.push_back(add);
    }
    float scale = 1.0f, c = 1.0f;
    int scale_node = -1;
    const int unscaled = ScaledBy(*g, ix, dead, x, &c, &scale_node);
    if (unscaled >= 0) {
      scale *= c;
      x = unscaled;
      chain.push_back(scale_node);
    }
    const int qk = Single(*g, ix, dead, x, ir::BatchMatMulOp());
    if (qk < 0 || !IsBatchMatMul(g->nodes[qk])) continue;
    const auto* qka = g->nodes[qk].attrs_as<ir::BatchMatMulAttrs>();
    if (qka == nullptr || qka->adj_x) continue;
    chain.push_back(qk);
    int q = g->nodes[qk].inputs[0], k = g->nodes[qk].inputs[1];
    bool k_transposed = !qka->adj_y;  // kt [..., D, N]
    // The queries' scale.
    const int q_unscaled = ScaledBy(*g, ix, dead, q, &c, &scale_node);
    if (q_unscaled >= 0) {
      scale *= c;
      q = q_unscaled;
      chain.push_back(scale_node);
    }
    // K^T made by a TRANSPOSE read only here: a swap of the last two axes
    // goes (k itself is read); any other permutation (ViT's head split
    // and K^T in one, perm (1, 2, 0)) loses the swap and writes K [..., N, D]
    // (often a permutation that keeps the innermost axis: whole runs).
    int k_swap = -1;
    std::vector<int> k_perm;
    if (k_transposed) {
      const int t = Single(*g, ix, dead, k, OpType::kTranspose);
      if (t >= 0 && static_cast<int>(g->nodes[t].attrs.perm.size()) == rank) {
        k_perm = g->nodes[t].attrs.perm;
        std::swap(k_perm[rank - 2], k_perm[rank - 1]);
        bool identity = true;
        for (int d = 0; identity && d < rank; ++d) identity = k_perm[d] == d;
        if (identity) {
          k = g->nodes[t].inputs[0];
          chain.push_back(t);
        } else {
          k_swap = t;
        }
        k_transposed = false;
      }
    }
    const int v = pv.inputs[1];
    Shape ks = shape[k];
    if (k_swap >= 0) std::swap(ks[rank - 2], ks[rank - 1]);
    const Shape &qs = shape[q], &vs = shape[v];
    if (static_cast<int>(qs.size()) != rank || static_cast<int>(ks.size()) != rank ||
        static_cast<int>(vs.size()) != rank || rank > 8) {
      continue;
    }
    bool same_batch = true;
    for (int d = 0; d + 2 < rank; ++d) same_batch = same_batch && ks[d] == qs[d] && vs[d] == qs[d];
    if (!same_batch) continue;
    const int m = qs[rank - 2], depth = qs[rank - 1], n = k_transposed ? ks[rank - 1] : ks[rank - 2];
    if ((k_transposed ? ks[rank - 2] : ks[rank - 1]) != depth || vs[rank - 2] != n) continue;
    if (bias >= 0) {
      const Shape& bs = shape[bias];
      bool fits = bs.size() >= 2 && static_cast<int>(bs.size()) <= rank && bs.back() == n &&
                  (bs[bs.size() - 2] == m || bs[bs.size() - 2] == 1) && g->tensors[bias].dtype == DataType::kFloat32;
      for (size_t b = 0; fits && b + 2 < bs.size(); ++b) {
        const int dim = qs[rank - bs.size() + b];
        fits = bs[b] == 1 || bs[b] == dim;
      }
      if (!fits) continue;
    }
    if (!AttentionFusionPays(n)) continue;
    for (int nd : chain) dead[nd] = true;
    if (k_swap >= 0) {
      g->nodes[k_swap].attrs.perm = k_perm;
      g->tensors[k].shape = ks;
    }
    Node& y = g->nodes[i];
    auto attrs = std::make_shared<ir::AttentionAttrs>();
    attrs->scale = scale;
    attrs->k_transposed = k_transposed;
    y.type = ir::AttentionOp();
    y.inputs = {q, k, v};
    if (bias >= 0) y.inputs.push_back(bias);
    y.attrs = ir::OpAttrs{};
    y.typed_attrs = attrs;
    ++fused;
  }
  Sweep(g, dead);
  return fused;
}

}  // namespace rill::inference::optimize
