// Tensor, shape and attention ops (ONNX's MatMul of two activations,
// Gather, Expand, Tile, Where, the comparisons and logic ops, Cast, the
// reductions, ArgMax and TopK) as registered ops with typed attributes
// (docs/design.md, "How to add an op"). Every tensor at run time is float32:
// booleans are 0 / 1, indices are whole numbers in float.
//
// BATCH_MATMUL: a [..., M, K] (or [..., K, M] with adj_x), b [..., K, N] (or
//   [..., N, K] with adj_y) -> [..., M, N]; the batch dims broadcast as numpy's.
//   A rank-1 operand is not taken (the importer reshapes it).
// ATTENTION: q [..., M, D], k [..., N, D] (k_transposed: [..., D, N]),
//   v [..., N, Dv], optional bias (broadcast to [..., M, N]: its last dim N,
//   its row dim M or 1, its batch dims those of q or 1) ->
//   softmax(scale * q k^T + bias, last axis) v, [..., M, Dv]. q, k and v have
//   the same batch dims. Made by optimize::FuseAttention from
//   BATCH_MATMUL -> (MUL|DIV by a scalar) -> (ADD bias) -> SOFTMAX ->
//   BATCH_MATMUL.
// GATHER: data, indices (any shape, negative counts from the end) ->
//   data.shape[:axis] + indices.shape + data.shape[axis + 1:].
// EXPAND: x -> x broadcast (numpy) against `shape`.
// TILE: x -> x repeated `repeats[d]` times along each axis d.
// WHERE: condition, x, y (broadcast) -> condition != 0 ? x : y.
// EQUAL, LESS, GREATER, LESS_EQUAL, GREATER_EQUAL, LOGICAL_AND, LOGICAL_OR,
//   LOGICAL_XOR (broadcast; the logic ops read x != 0) -> 1 where the
//   relation holds, else 0; LOGICAL_NOT -> 1 where x == 0.
// CAST: to an integer type (truncation toward zero) or to bool (x != 0).
// REDUCE_SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_L2: over `axes`
//   (none: every axis), dims kept as 1 with keep_dims.
// ARG_MAX, ARG_MIN: index along `axis` of the largest (smallest) value, the
//   first (select_last_index: the last) of equal ones.
// TOPK_VALUES, TOPK_INDICES: the k largest (smallest) values along `axis`
//   and their indices, sorted, equal values in index order (ONNX TopK's two
//   outputs as two nodes: the IR's nodes have one output).
#ifndef RILL_INFERENCE_IR_OPS_TENSOR_OPS_H_
#define RILL_INFERENCE_IR_OPS_TENSOR_OPS_H_

#include <string>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct BatchMatMulAttrs : TypedAttrs {
  bool adj_x = false, adj_y = false;
};

struct AttentionAttrs : TypedAttrs {
  float scale = 1.0f;
  bool k_transposed = false;
};

struct AxisAttrs : TypedAttrs {
  int axis = 0;
};

struct ExpandAttrs : TypedAttrs {
  std::vector<int> shape;
};

struct TileAttrs : TypedAttrs {
  std::vector<int> repeats;
};

enum class CastKind { kToInteger, kToBool };
struct CastAttrs : TypedAttrs {
  CastKind kind = CastKind::kToInteger;
  // kToInteger: the target type's width and signedness. A value is
  // truncated toward zero, then wrapped into the type's range as C++'s
  // integer conversions do (300 to uint8: 44; 200 to int8: -56); 64 bits:
  // truncated only.
  int bits = 64;
  bool is_signed = true;
};

struct ReduceAttrs : TypedAttrs {
  std::vector<int> axes;  // empty: all
  bool keep_dims = true;
};

struct ArgAttrs : TypedAttrs {
  int axis = 0;
  bool keep_dims = true;
  bool select_last_index = false;
};

struct TopKAttrs : TypedAttrs {
  int axis = -1;
  int k = 1;
  bool largest = true;
};

OpType BatchMatMulOp();
OpType AttentionOp();
OpType GatherOp();
OpType ExpandOp();
OpType TileOp();
OpType WhereOp();
// The binary comparisons and logic ops, one registered op per kind.
enum class CompareKind { kEqual, kLess, kGreater, kLessEqual, kGreaterEqual, kAnd, kOr, kXor };
OpType CompareOp(CompareKind kind);
// The kind of a comparison op; false if `type` is none.
bool CompareKindOf(OpType type, CompareKind* kind);
OpType NotOp();
OpType CastOp();
enum class ReduceKind { kSum, kMax, kMin, kProd, kL2 };
OpType ReduceOp(ReduceKind kind);
bool ReduceKindOf(OpType type, ReduceKind* kind);
OpType ArgMaxOp();
OpType ArgMinOp();
OpType TopKValuesOp();
OpType TopKIndicesOp();

// Shapes shared with the importer's constant folding.
// Numpy broadcast of `shapes`; false if they do not broadcast.
bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* out);
// BATCH_MATMUL's output shape; false (with *why) if the operands do not fit.
bool BatchMatMulShape(const Shape& a, const Shape& b, bool adj_x, bool adj_y, Shape* out, std::string* why);
// Reduction's output shape over `axes` (already in range, none: all).
Shape ReducedShape(const Shape& in, const std::vector<int>& axes, bool keep_dims);

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_TENSOR_OPS_H_
