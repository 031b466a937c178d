// Tensor, shape and attention ops (tensor_ops.h): descriptors and shape
// functions. The shape functions read the inputs' shapes (never the
// import-time values), so a resized session infers them again.
#include "inference/ir/ops/tensor_ops.h"

#include <algorithm>
#include <string>

#include "inference/ir/op_registry.h"
#include "inference/ir/shape_context.h"

namespace rill::inference::ir {

bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* out) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  out->assign(rank, 1);
  for (const Shape& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int& o = (*out)[rank - s.size() + i];
      const int d = s[i];
      if (d == o || d == 1) continue;
      if (o != 1) return false;
      o = d;
    }
  }
  return true;
}

bool BatchMatMulShape(const Shape& a, const Shape& b, bool adj_x, bool adj_y, Shape* out, std::string* why) {
  if (a.size() < 2 || b.size() < 2) {
    *why = "operands must have rank >= 2, have " + ShapeToString(a) + " and " + ShapeToString(b);
    return false;
  }
  const int m = a[a.size() - (adj_x ? 1 : 2)], ka = a[a.size() - (adj_x ? 2 : 1)];
  const int kb = b[b.size() - (adj_y ? 1 : 2)], n = b[b.size() - (adj_y ? 2 : 1)];
  if (ka != kb) {
    *why = "inner dimensions differ: " + ShapeToString(a) + " x " + ShapeToString(b);
    return false;
  }
  Shape batch;
  if (!BroadcastShapes({Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)}, &batch)) {
    *why = "batch dimensions of " + ShapeToString(a) + " and " + ShapeToString(b) + " do not broadcast";
    return false;
  }
  batch.push_back(m);
  batch.push_back(n);
  *out = batch;
  return true;
}

Shape ReducedShape(const Shape& in, const std::vector<int>& axes, bool keep_dims) {
  Shape out;
  for (int d = 0; d < static_cast<int>(in.size()); ++d) {
    const bool reduced = axes.empty() || std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) out.push_back(in[d]);
    else if (keep_dims) out.push_back(1);
  }
  return out;
}

namespace {

template <class T>
StatusOr<const T*> Attrs(ShapeContext& c) {
  const T* a = c.node().attrs_as<T>();
  if (a == nullptr) return c.Error("missing typed attributes");
  return a;
}

Status AxisInRange(ShapeContext& c, int axis, size_t rank) {
  if (axis < 0 || axis >= static_cast<int>(rank)) {
    return c.Error("axis " + std::to_string(axis) + " out of range for " + ShapeToString(c.In(0)));
  }
  return Status::Ok();
}

Status BroadcastN(ShapeContext& c, size_t n) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(n, n));
  std::vector<Shape> shapes;
  std::string all;
  for (size_t i = 0; i < n; ++i) {
    shapes.push_back(c.In(i));
    all += (i ? " " : "") + ShapeToString(c.In(i));
  }
  Shape out;
  if (!BroadcastShapes(shapes, &out)) return c.Error("shapes " + all + " do not broadcast");
  if (out.size() > 8) return c.Error("rank > 8");
  return c.SetOut(out);
}

Status SameShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  return c.SetOut(c.In(0));
}

Status BatchMatMulShapeFn(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  RILL_INF_ASSIGN_OR_RETURN(const BatchMatMulAttrs* a, Attrs<BatchMatMulAttrs>(c));
  Shape out;
  std::string why;
  if (!BatchMatMulShape(c.In(0), c.In(1), a->adj_x, a->adj_y, &out, &why)) return c.Error(why);
  if (out.size() > 8) return c.Error("rank > 8");
  return c.SetOut(out);
}

Status AttentionShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(3, 4));
  RILL_INF_ASSIGN_OR_RETURN(const AttentionAttrs* a, Attrs<AttentionAttrs>(c));
  const Shape &q = c.In(0), &k = c.In(1), &v = c.In(2);
  const size_t rank = q.size();
  if (rank < 2 || rank > 8 || k.size() != rank || v.size() != rank) {
    return c.Error("q, k, v must have one rank (2 to 8): " + ShapeToString(q) + ", " + ShapeToString(k) + ", " +
                   ShapeToString(v));
  }
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (k[d] != q[d] || v[d] != q[d]) return c.Error("q, k, v batch dims differ");
  }
  const int m = q[rank - 2], depth = q[rank - 1];
  const int n = a->k_transposed ? k[rank - 1] : k[rank - 2];
  const int kd = a->k_transposed ? k[rank - 2] : k[rank - 1];
  if (kd != depth) return c.Error("k " + ShapeToString(k) + " does not match q " + ShapeToString(q));
  if (v[rank - 2] != n) return c.Error("v " + ShapeToString(v) + " does not match k " + ShapeToString(k));
  if (c.Has(3)) {
    const Shape& b = c.In(3);
    if (b.size() < 2 || b.size() > rank || b.back() != n || (b[b.size() - 2] != m && b[b.size() - 2] != 1)) {
      return c.Error("bias " + ShapeToString(b) + " does not broadcast to the scores");
    }
    for (size_t i = 0; i + 2 < b.size(); ++i) {
      const size_t d = rank - b.size() + i;
      if (b[i] != 1 && b[i] != q[d]) return c.Error("bias " + ShapeToString(b) + " does not broadcast to the scores");
    }
  }
  Shape out = q;
  out.back() = v.back();
  return c.SetOut(out);
}

Status GatherShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(2, 2));
  RILL_INF_ASSIGN_OR_RETURN(const AxisAttrs* a, Attrs<AxisAttrs>(c));
  const Shape& x = c.In(0);
  RILL_INF_RETURN_IF_ERROR(AxisInRange(c, a->axis, x.size()));
  Shape out(x.begin(), x.begin() + a->axis);
  out.insert(out.end(), c.In(1).begin(), c.In(1).end());
  out.insert(out.end(), x.begin() + a->axis + 1, x.end());
  if (out.size() > 8) return c.Error("rank > 8");
  return c.SetOut(out);
}

// The shape is the attribute, or input 1 when the node has one (computed at
// run time: before the run its dims are kDynamicDim).
Status ExpandShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 2));
  RILL_INF_ASSIGN_OR_RETURN(const ExpandAttrs* a, Attrs<ExpandAttrs>(c));
  Shape target = a->shape;
  if (c.Has(1)) {
    std::vector<int64_t> v;
    bool known = false;
    RILL_INF_RETURN_IF_ERROR(c.Ints(1, &v, &known));
    if (!known) {
      if (c.In(1).size() != 1 || c.In(1)[0] == kDynamicDim) return c.Error("the shape's length must be known");
      const size_t rank = std::max<size_t>(c.In(0).size(), c.In(1)[0]);
      Shape dims, out(rank, kDynamicDim);
      if (c.ShapeOperandDims(1, &dims) && dims.size() == static_cast<size_t>(c.In(1)[0])) {
        // Expand to another tensor's shape: its known dims stay known
        // where x's dim is 1 or absent.
        const Shape& x = c.In(0);
        for (size_t d = 0; d < rank; ++d) {
          const int t = d + dims.size() >= rank ? dims[d + dims.size() - rank] : 1;
          const int xd = d + x.size() >= rank ? x[d + x.size() - rank] : 1;
          out[d] = t == kDynamicDim ? (xd > 1 ? xd : kDynamicDim) : (xd == 1 || xd == t ? t : kDynamicDim);
        }
      }
      return c.SetOut(out);
    }
    target.clear();
    for (int64_t d : v) {
      if (d < 0 || d > kMaxElements) return c.Error("cannot expand to dimension " + std::to_string(d));
      target.push_back(static_cast<int>(d));
    }
  }
  Shape out;
  if (!BroadcastShapes({c.In(0), target}, &out)) {
    return c.Error(ShapeToString(c.In(0)) + " does not expand to " + ShapeToString(target));
  }
  if (out.size() > 8) return c.Error("rank > 8");
  return c.SetOut(out);
}

Status TileShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_ASSIGN_OR_RETURN(const TileAttrs* a, Attrs<TileAttrs>(c));
  const Shape& x = c.In(0);
  if (a->repeats.size() != x.size()) return c.Error("repeats must have one value per axis of " + ShapeToString(x));
  Shape out = x;
  for (size_t d = 0; d < x.size(); ++d) {
    if (a->repeats[d] < 1) return c.Error("repeats must be >= 1");
    out[d] = static_cast<int>(std::min<int64_t>(int64_t{x[d]} * a->repeats[d], kMaxElements));
  }
  return c.SetOut(out);
}

Status ReduceShapeFn(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_ASSIGN_OR_RETURN(const ReduceAttrs* a, Attrs<ReduceAttrs>(c));
  for (int ax : a->axes) RILL_INF_RETURN_IF_ERROR(AxisInRange(c, ax, c.In(0).size()));
  return c.SetOut(ReducedShape(c.In(0), a->axes, a->keep_dims));
}

Status ArgShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 1));
  RILL_INF_ASSIGN_OR_RETURN(const ArgAttrs* a, Attrs<ArgAttrs>(c));
  RILL_INF_RETURN_IF_ERROR(AxisInRange(c, a->axis, c.In(0).size()));
  return c.SetOut(ReducedShape(c.In(0), {a->axis}, a->keep_dims));
}

// K is the attribute, or input 1 when the node has one (a K computed at run
// time, e.g. min(k, candidates)): unknown before the run, the axis is
// kDynamicDim; at run time K may be 0.
Status TopKShape(ShapeContext& c) {
  RILL_INF_RETURN_IF_ERROR(c.NeedInputs(1, 2));
  RILL_INF_ASSIGN_OR_RETURN(const TopKAttrs* a, Attrs<TopKAttrs>(c));
  RILL_INF_RETURN_IF_ERROR(AxisInRange(c, a->axis, c.In(0).size()));
  Shape out = c.In(0);
  int64_t k = a->k;
  if (c.Has(1)) {
    std::vector<int64_t> v;
    bool known = false;
    RILL_INF_RETURN_IF_ERROR(c.Ints(1, &v, &known));
    if (!known) {
      out[a->axis] = kDynamicDim;
      return c.SetOut(out);
    }
    if (v.size() != 1) return c.Error("K must hold one value");
    k = v[0];
  }
  if (k < (c.at_run() ? 0 : 1) || k > out[a->axis]) {
    return c.Error("k = " + std::to_string(k) + " out of range for " + ShapeToString(out));
  }
  out[a->axis] = static_cast<int>(k);
  return c.SetOut(out);
}

Status Broadcast2(ShapeContext& c) { return BroadcastN(c, 2); }
Status Broadcast3(ShapeContext& c) { return BroadcastN(c, 3); }

constexpr const char* kCompareNames[] = {"EQUAL",         "LESS",       "GREATER", "LESS_EQUAL",
                                         "GREATER_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR"};
constexpr const char* kReduceNames[] = {"REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_L2"};

}  // namespace

OpType BatchMatMulOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "BATCH_MATMUL", BatchMatMulShapeFn});
  return t;
}
OpType AttentionOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "ATTENTION", AttentionShape});
  return t;
}
OpType GatherOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "GATHER", GatherShape});
  return t;
}
OpType ExpandOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "EXPAND", ExpandShape});
  return t;
}
OpType TileOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "TILE", TileShape});
  return t;
}
OpType WhereOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "WHERE", Broadcast3});
  return t;
}
OpType CompareOp(CompareKind kind) {
  static const std::vector<OpType> types = [] {
    std::vector<OpType> v;
    for (const char* name : kCompareNames) v.push_back(RegisterOp({OpType::kRegisteredOp, name, Broadcast2}));
    return v;
  }();
  return types[static_cast<int>(kind)];
}
bool CompareKindOf(OpType type, CompareKind* kind) {
  for (int i = 0; i <= static_cast<int>(CompareKind::kXor); ++i) {
    if (CompareOp(static_cast<CompareKind>(i)) == type) {
      *kind = static_cast<CompareKind>(i);
      return true;
    }
  }
  return false;
}
OpType NotOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "LOGICAL_NOT", SameShape});
  return t;
}
OpType CastOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "CAST", SameShape});
  return t;
}
OpType ReduceOp(ReduceKind kind) {
  static const std::vector<OpType> types = [] {
    std::vector<OpType> v;
    for (const char* name : kReduceNames) v.push_back(RegisterOp({OpType::kRegisteredOp, name, ReduceShapeFn}));
    return v;
  }();
  return types[static_cast<int>(kind)];
}
bool ReduceKindOf(OpType type, ReduceKind* kind) {
  for (int i = 0; i <= static_cast<int>(ReduceKind::kL2); ++i) {
    if (ReduceOp(static_cast<ReduceKind>(i)) == type) {
      *kind = static_cast<ReduceKind>(i);
      return true;
    }
  }
  return false;
}
OpType ArgMaxOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "ARG_MAX", ArgShape});
  return t;
}
OpType ArgMinOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "ARG_MIN", ArgShape});
  return t;
}
OpType TopKValuesOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "TOPK_VALUES", TopKShape});
  return t;
}
OpType TopKIndicesOp() {
  static const OpType t = RegisterOp({OpType::kRegisteredOp, "TOPK_INDICES", TopKShape});
  return t;
}

namespace {

// Registered at start-up so that the IR lists them before any use.
const bool kRegistered = [] {
  BatchMatMulOp();
  AttentionOp();
  GatherOp();
  ExpandOp();
  TileOp();
  WhereOp();
  CompareOp(CompareKind::kEqual);
  NotOp();
  CastOp();
  ReduceOp(ReduceKind::kSum);
  ArgMaxOp();
  ArgMinOp();
  TopKValuesOp();
  TopKIndicesOp();
  return true;
}();

}  // namespace
}  // namespace rill::inference::ir
