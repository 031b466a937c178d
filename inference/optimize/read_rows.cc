// ComputeOnlyReadRows (passes.h): a slice of one outer axis moves up
// through the ops that compute each index of that axis on its own.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "inference/ir/ops/math_ops.h"
#include "inference/ir/ops/tensor_ops.h"
#include "inference/ir/slice_geometry.h"
#include "inference/optimize/graph_edit.h"
#include "inference/optimize/passes.h"

namespace rill::inference::optimize {
namespace {

using ir::Node;
using ir::OpType;

// A SLICE that keeps [first, first + count) of one axis and all of every
// other, with step 1 and its bounds in its attributes.
struct RowSlice {
  int axis = -1;
  int first = 0;
  int count = 0;
};

bool AsRowSlice(const Node& n, const std::vector<Shape>& shape, RowSlice* rs) {
  if (n.type != OpType::kSlice || n.inputs.size() != 1 || n.outputs.size() != 1 || !n.guards.empty() ||
      n.inputs[0] < 0 || !n.attrs.slice_runtime_axes.empty()) {
    return false;
  }
  const Shape& in = shape[n.inputs[0]];
  const ir::OpAttrs& a = n.attrs;
  if (in.empty() || ir::HasDynamicDim(in) || a.slice_start.size() != in.size() || a.slice_end.size() != in.size() ||
      a.slice_step.size() != in.size()) {
    return false;
  }
  int axis = -1, first = 0, count = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    if (a.slice_step[d] != 1) return false;
    int f = 0, c = 0;
    ir::SliceAxis(in[d], a.slice_start[d], a.slice_end[d], 1, &f, &c);
    if (f == 0 && c == in[d]) continue;
    if (axis >= 0) return false;  // two axes sliced
    axis = static_cast<int>(d);
    first = f;
    count = c;
  }
  if (axis < 0 || count <= 0) return false;
  *rs = {axis, first, count};
  return true;
}

bool SameRows(const RowSlice& a, const RowSlice& b) {
  return a.axis == b.axis && a.first == b.first && a.count == b.count;
}

// What moving a slice of axis `axis` of a node's output above the node
// takes: which inputs get sliced on which of their axes.
struct Move {
  std::vector<std::pair<int, int>> slices;  // (input position, axis of that input)
  bool reshape = false;                     // a RESHAPE: its target becomes the sliced output shape
  bool narrow = false;                      // a SLICE of other axes: it takes these rows itself
};

bool IsElementwiseUnary(OpType t) {
  switch (t) {
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kHardSwish:
    case OpType::kLogistic:
    case OpType::kLeakyRelu:
    case OpType::kHardSigmoid:
    case OpType::kClamp:
    case OpType::kSilu:
      return true;
    default:
      return ir::IsUnaryMathOp(t, nullptr);
  }
}

bool IsBroadcastElementwise(OpType t) {
  ir::CompareKind kind;
  switch (t) {
    case OpType::kAdd:
    case OpType::kMul:
    case OpType::kSub:
    case OpType::kDiv:
    case OpType::kPRelu:
      return true;
    default:
      return ir::IsNaryMathOp(t, nullptr) || ir::CompareKindOf(t, &kind) || t == ir::WhereOp();
  }
}

// Operand `pos` of a numpy-broadcasting node whose output axis `axis` (of
// rank `rank`) is sliced: sliced on its own aligned axis where it spans the
// output's extent there, untouched where it broadcasts (size 1 or absent).
bool BroadcastOperand(const Shape& in, int rank, int axis, int extent, int pos, Move* m) {
  const int aligned = axis - (rank - static_cast<int>(in.size()));
  if (aligned < 0 || in[aligned] == 1) return true;
  if (in[aligned] != extent) return false;
  m->slices.push_back({pos, aligned});
  return true;
}

bool Known(const Shape& s) { return !s.empty() && !ir::HasDynamicDim(s); }

// How to compute only rows [first, first + count) of axis `axis` of node
// `n`'s output; false where `n` does not compute that axis's indices
// independently (or this pass does not know that it does).
bool PlanMove(const Node& n, int axis, const std::vector<Shape>& shape, Move* m) {
  if (n.outputs.size() != 1 || !n.guards.empty()) return false;
  for (int id : n.inputs) {
    if (id >= 0 && !Known(shape[id])) return false;
  }
  const Shape& out = shape[n.outputs[0]];
  if (!Known(out)) return false;
  const int rank = static_cast<int>(out.size());
  const int extent = out[axis];
  if (IsElementwiseUnary(n.type)) {
    if (n.inputs.empty() || n.inputs[0] < 0 || shape[n.inputs[0]] != out) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (n.inputs[i] >= 0 && NumElements(shape[n.inputs[i]]) != 1) return false;  // only scalars beside x
    }
    m->slices.push_back({0, axis});
    return true;
  }
  if (IsBroadcastElementwise(n.type)) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] < 0) return false;
      const Shape& in = shape[n.inputs[i]];
      if (static_cast<int>(in.size()) > rank) return false;
      if (!BroadcastOperand(in, rank, axis, extent, static_cast<int>(i), m)) return false;
    }
    return true;
  }
  if (n.type == ir::LayerNormOp()) {
    const auto* la = n.attrs_as<ir::LayerNormAttrs>();
    if (la == nullptr || n.inputs.empty() || shape[n.inputs[0]] != out) return false;
    const int first_normalized = la->axis < 0 ? rank + la->axis : la->axis;
    if (axis >= first_normalized) return false;
    m->slices.push_back({0, axis});
    return true;
  }
  switch (n.type) {
    case OpType::kSoftmax: {
      const int s = n.attrs.axis < 0 ? rank + n.attrs.axis : n.attrs.axis;
      if (s == axis || n.inputs.size() != 1 || shape[n.inputs[0]] != out) return false;
      m->slices.push_back({0, axis});
      return true;
    }
    case OpType::kFullyConnected: {
      // Each row of x [..., K] makes the same row of the output [..., N].
      if (n.inputs.size() > 3 || n.inputs[0] < 0) return false;
      const Shape& x = shape[n.inputs[0]];
      if (static_cast<int>(x.size()) != rank || axis >= rank - 1) return false;
      for (int d = 0; d + 1 < rank; ++d) {
        if (x[d] != out[d]) return false;
      }
      m->slices.push_back({0, axis});
      return true;
    }
    case OpType::kTranspose: {
      if (n.inputs.size() != 1 || static_cast<int>(n.attrs.perm.size()) != rank) return false;
      m->slices.push_back({0, n.attrs.perm[axis]});
      return true;
    }
    case OpType::kReshape: {
      // The sliced axis must be an axis of the input too: the same extent
      // with the same number of elements before it (so the same memory).
      if (n.inputs.empty() || n.inputs[0] < 0) return false;
      const Shape& in = shape[n.inputs[0]];
      int64_t before_out = 1;
      for (int d = 0; d < axis; ++d) before_out *= out[d];
      int64_t before_in = 1;
      for (int d = 0; d < static_cast<int>(in.size()); ++d) {
        if (before_in == before_out && in[d] == extent) {
          m->slices.push_back({0, d});
          m->reshape = true;
          return true;
        }
        before_in *= in[d];
      }
      return false;
    }
    case OpType::kSlice: {
      // Another SLICE that keeps all of this axis takes the rows itself (one
      // slice instead of two; moving one above the other would only swap
      // them).
      if (n.inputs.size() != 1 || !n.attrs.slice_runtime_axes.empty()) return false;
      const Shape& in = shape[n.inputs[0]];
      if (static_cast<int>(in.size()) != rank || in[axis] != extent || n.attrs.slice_step[axis] != 1) return false;
      int f = 0, c = 0;
      ir::SliceAxis(in[axis], n.attrs.slice_start[axis], n.attrs.slice_end[axis], 1, &f, &c);
      if (f != 0 || c != extent) return false;
      m->narrow = true;
      return true;
    }
    case OpType::kConcatenation: {
      const int c = n.attrs.axis < 0 ? rank + n.attrs.axis : n.attrs.axis;
      if (c == axis) return false;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (n.inputs[i] < 0 || static_cast<int>(shape[n.inputs[i]].size()) != rank) return false;
        m->slices.push_back({static_cast<int>(i), axis});
      }
      return true;
    }
    default:
      break;
  }
  if (n.type == ir::AttentionOp()) {
    // Output [..., M, Dv]: row i is query i's (all keys and values); a batch
    // index is that index of q, k, v and the bias.
    if (n.inputs.size() < 3 || n.inputs.size() > 4 || axis == rank - 1) return false;
    for (int i = 0; i < 3; ++i) {
      if (static_cast<int>(shape[n.inputs[i]].size()) != rank) return false;
    }
    m->slices.push_back({0, axis});
    if (axis < rank - 2) {
      m->slices.push_back({1, axis});
      m->slices.push_back({2, axis});
    }
    if (n.inputs.size() == 4 && n.inputs[3] >= 0) {
      const Shape& bias = shape[n.inputs[3]];
      if (static_cast<int>(bias.size()) > rank) return false;
      if (!BroadcastOperand(bias, rank, axis, extent, 3, m)) return false;
    }
    return true;
  }
  return false;
}

// The constant index of a GATHER of one element (shape [] or [1]) along an
// axis of its data, in range; false otherwise.
bool SingleGatherIndex(const ir::Graph& g, const Node& n, const std::vector<Shape>& shape, int* axis, int* index) {
  const auto* aa = n.attrs_as<ir::AxisAttrs>();
  if (aa == nullptr || n.inputs.size() != 2 || n.outputs.size() != 1 || !n.guards.empty()) return false;
  const int data = n.inputs[0], idx = n.inputs[1];
  if (data < 0 || idx < 0 || !Known(shape[data]) || !g.tensors[idx].is_constant() || g.tensors[idx].sparsity) {
    return false;
  }
  const ir::TensorInfo& t = g.tensors[idx];
  if (t.shape.size() > 1 || NumElements(t.shape) != 1) return false;
  int64_t v = 0;
  if (t.dtype == DataType::kFloat32) {
    float f;
    std::memcpy(&f, t.data, 4);
    v = static_cast<int64_t>(f);
    if (static_cast<float>(v) != f) return false;
  } else if (t.dtype == DataType::kInt32) {
    int32_t i;
    std::memcpy(&i, t.data, 4);
    v = i;
  } else if (t.dtype == DataType::kInt64) {
    std::memcpy(&v, t.data, 8);
  } else {
    return false;
  }
  const int rank = static_cast<int>(shape[data].size());
  const int a = aa->axis < 0 ? rank + aa->axis : aa->axis;
  if (a < 0 || a >= rank) return false;
  const int dim = shape[data][a];
  if (v < 0) v += dim;
  if (v < 0 || v >= dim) return false;
  *axis = a;
  *index = static_cast<int>(v);
  return true;
}

ir::OpAttrs RowSliceAttrs(const Shape& in, int axis, int first, int count) {
  ir::OpAttrs a;
  for (size_t d = 0; d < in.size(); ++d) {
    const bool sliced = static_cast<int>(d) == axis;
    a.slice_start.push_back(sliced ? first : 0);
    a.slice_end.push_back(sliced ? first + count : in[d]);
    a.slice_step.push_back(1);
  }
  return a;
}

Node MakeRowSlice(ir::Graph* g, int from, const Shape& in, int axis, int first, int count) {
  Shape out = in;
  out[axis] = count;
  Node s;
  s.type = OpType::kSlice;
  s.attrs = RowSliceAttrs(in, axis, first, count);
  s.inputs = {from};
  s.outputs = {AddActivation(g, g->tensors[from].name + "/rows", out, g->tensors[from].dtype)};
  s.name = g->tensors[s.outputs[0]].name;
  return s;
}

// A GATHER of one constant index whose data's producer can compute that
// row alone becomes SLICE [index, index + 1) (+ a RESHAPE dropping the axis
// for a scalar index), which the moves below then take up. Returns whether
// one was rewritten.
bool GatherToRowSlice(ir::Graph* g, const std::vector<Shape>& shape, const std::vector<int>& readers,
                      const std::vector<int>& producer) {
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& n = g->nodes[i];
    if (n.type != ir::GatherOp()) continue;
    int axis = 0, index = 0;
    if (!SingleGatherIndex(*g, n, shape, &axis, &index)) continue;
    const int data = n.inputs[0];
    const Shape& in = shape[data];
    if (in[axis] < 2 || readers[data] != 1 || producer[data] < 0) continue;
    Move m;
    if (!PlanMove(g->nodes[producer[data]], axis, shape, &m)) continue;
    const int out = n.outputs[0];
    const bool scalar = g->tensors[n.inputs[1]].shape.empty();
    Node slice = MakeRowSlice(g, data, in, axis, index, 1);
    std::vector<Node> replacement;
    if (scalar) {
      Node reshape;
      reshape.type = OpType::kReshape;
      reshape.name = n.name;
      reshape.attrs.new_shape = shape[out];
      reshape.inputs = {slice.outputs[0]};
      reshape.outputs = {out};
      replacement = {slice, reshape};
    } else {
      slice.outputs = {out};
      slice.name = n.name;
      replacement = {slice};
    }
    g->nodes.erase(g->nodes.begin() + static_cast<long>(i));
    g->nodes.insert(g->nodes.begin() + static_cast<long>(i), replacement.begin(), replacement.end());
    return true;
  }
  return false;
}

// One move of a row slice above its input's producer; false when none can.
bool MoveOneSlice(ir::Graph* g, const std::vector<Shape>& shape, const std::vector<int>& producer) {
  std::vector<std::vector<int>> readers_of(g->tensors.size());
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    for (int id : g->nodes[i].inputs) {
      if (id >= 0) readers_of[id].push_back(static_cast<int>(i));
    }
  }
  std::vector<bool> is_output(g->tensors.size(), false);
  for (int id : g->outputs) is_output[id] = true;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    RowSlice rs;
    if (!AsRowSlice(g->nodes[i], shape, &rs)) continue;
    const int t = g->nodes[i].inputs[0];
    const int p = producer[t];
    if (p < 0 || is_output[t]) continue;
    // Keeping at most half the axis: below that the copies into the new
    // slices cost more than the rows saved.
    if (2 * rs.count > shape[t][rs.axis]) continue;
    // Every reader of t reads these same rows (a tensor read whole by
    // another node stays whole: its producer computes every row anyway).
    // (Their outputs become one tensor: not where one of the others is a
    // graph output, which would then name the same tensor twice.)
    bool all_same = true;
    for (int r : readers_of[t]) {
      RowSlice other;
      all_same = all_same && AsRowSlice(g->nodes[r], shape, &other) && SameRows(other, rs) &&
                 (r == static_cast<int>(i) || !is_output[g->nodes[r].outputs[0]]);
    }
    if (!all_same) continue;
    Move m;
    if (!PlanMove(g->nodes[p], rs.axis, shape, &m)) continue;
    // The producer now writes this slice's output; the other (identical)
    // slices' readers read it too.
    const int kept = g->nodes[i].outputs[0];
    std::vector<bool> dead(g->nodes.size(), false);
    for (int r : readers_of[t]) {
      dead[r] = true;
      const int gone = g->nodes[r].outputs[0];
      if (gone == kept) continue;
      for (Node& n : g->nodes) {
        for (int& id : n.inputs) {
          if (id == gone) id = kept;
        }
      }
      for (int& id : g->outputs) {
        if (id == gone) id = kept;
      }
    }
    std::vector<Node> slices;
    Node& moved = g->nodes[p];
    for (const auto& [pos, axis] : m.slices) {
      const int from = moved.inputs[pos];
      Node s = MakeRowSlice(g, from, shape[from], axis, rs.first, rs.count);
      moved.inputs[pos] = s.outputs[0];
      slices.push_back(std::move(s));
    }
    moved.outputs[0] = kept;
    if (m.reshape) {
      Shape target = shape[t];
      target[rs.axis] = rs.count;
      moved.inputs.resize(1);
      moved.attrs.new_shape = target;
      moved.attrs.new_shape_from.clear();
      moved.attrs.flatten_axis = -1;
    }
    if (m.narrow) {
      moved.attrs.slice_start[rs.axis] = rs.first;
      moved.attrs.slice_end[rs.axis] = rs.first + rs.count;
    }
    Sweep(g, dead);
    // The new slices go just before their reader (dead nodes all come after
    // it: they read its output).
    g->nodes.insert(g->nodes.begin() + p, slices.begin(), slices.end());
    return true;
  }
  return false;
}

}  // namespace

int ComputeOnlyReadRows(ir::Graph* g) {
  // Slices fixed to the import-time sizes: only for a graph imported again
  // at each size (ONNX).
  if (!g->specialized_to_input_shapes) return 0;
  int moves = 0;
  // Each move takes a slice one node up; bounded by the node count squared
  // in theory, by a few per slice in practice.
  const int limit = 4 * static_cast<int>(g->nodes.size()) + 16;
  for (int step = 0; step < limit; ++step) {
    std::vector<Shape> shape = g->InitialShapes();
    if (!g->InferShapes(&shape).ok()) break;
    const std::vector<int> producer = Producers(*g);
    if (MoveOneSlice(g, shape, producer)) {
      ++moves;
      continue;
    }
    if (!GatherToRowSlice(g, shape, ReaderCounts(*g), producer)) break;
  }
  return moves;
}

}  // namespace rill::inference::optimize
