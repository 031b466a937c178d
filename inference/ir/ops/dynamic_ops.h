// Ops whose output sizes depend on data (docs/design.md, "Data-dependent
// sizes"), registered ops with typed attributes. Their plan-time shapes hold
// kDynamicDim; the session runs them, and every node downstream whose sizes
// follow, in the dynamic region on the CPU. Values at run time are float32
// (indices are whole numbers in float), as everywhere in the engine.
//
// NON_ZERO: x (any rank r) -> [r, count]: the indices of x's non-zero
//   elements, one column per element in row-major order. At run time its
//   shape function gives the bound [r, numel(x)]; the execution reports the
//   count (cpu::DataDependentOutput).
// GATHER_ND: data, indices [..., q] -> indices.shape[:-1] +
//   data.shape[batch_dims + q:], ONNX GatherND (negative indices count from
//   the end).
// NON_MAX_SUPPRESSION: boxes [B, N, 4], scores [B, C, N], then optional
//   max_output_boxes_per_class, iou_threshold, score_threshold (scalars or
//   [1]; absent: 0, 0, none) -> [selected, 3] of (batch, class, box), ONNX
//   NonMaxSuppression (center_point_box: boxes as (cx, cy, w, h), else
//   (y1, x1, y2, x2) corners in either order). Bound at run time:
//   B * C * min(N, max_output_boxes_per_class).
// CONSTANT_OF_SHAPE: shape (1-D, values known only at run time) -> a tensor
//   of that shape filled with `value` (ONNX ConstantOfShape; the importer
//   folds it when the shape is a constant).
// IF: condition, then_value, else_value -> then_value where condition is
//   non-zero, else else_value (shapes may differ: the output takes the
//   chosen one's, its rank too: planned with the larger rank, the leading
//   dims the other branch lacks known only at run time). The join of an ONNX If whose condition is known only at
//   run time: each branch's nodes are in the graph, guarded by the condition
//   (ir::Guard), and only the taken branch runs.
// SCATTER_ELEMENTS: data, indices, updates (same shape as indices, the
//   rank of data) -> data with updates written (or added, multiplied,
//   maxed, minned: `reduction`) at `indices` along `axis` (ONNX
//   ScatterElements; negative indices count from the end). With the ops
//   above because detection heads scatter per-level results by indices
//   computed at run time.
// SCATTER_ND: data, indices [m..., q], updates [m..., data dims after q]
//   -> data with each update slice written (or reduced: `reduction`) at its
//   index tuple (ONNX ScatterND; TFLite SCATTER_ND is zeros of its shape
//   with duplicates added).
// RANGE: start, limit, delta (scalars) -> [count] of start, start + delta,
//   ... (ONNX Range of values known only at run time, accumulated as ONNX
//   Runtime does; count = max(0, ceil((limit - start) / delta))).
// LOOP: trip count M (a scalar, or -1: none), condition (a scalar, or -1:
//   none), the carried values' initial values, then the values of the
//   enclosing graph that the body reads -> the carried values' final
//   values, then the scan outputs (each iteration's, stacked on a new first
//   axis): ONNX Loop run at run time. The body is a graph of its own
//   (LoopAttrs::body; inputs: iteration number, condition, carried values,
//   outer values; outputs: condition, carried values, scan outputs), run
//   by the session's dynamic region (runtime/loop_execution.h). Planned
//   shapes: LoopAttrs::output_shapes (a carried value's dims that change
//   from one iteration to the next are kDynamicDim). Always in the dynamic
//   region.
// SHAPE: x -> [rank] holding x's dims (ONNX Shape of a tensor whose sizes
//   are known only at run time; the importer folds the others).
#ifndef RILL_INFERENCE_IR_OPS_DYNAMIC_OPS_H_
#define RILL_INFERENCE_IR_OPS_DYNAMIC_OPS_H_

#include <memory>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct GatherNdAttrs : TypedAttrs {
  int batch_dims = 0;
};

struct NmsAttrs : TypedAttrs {
  bool center_point_box = false;
};

struct ScatterAttrs : TypedAttrs {
  enum class Reduction { kNone, kAdd, kMul, kMax, kMin };
  int axis = 0;
  Reduction reduction = Reduction::kNone;
};

struct FillAttrs : TypedAttrs {
  float value = 0.0f;
};

struct LoopAttrs : TypedAttrs {
  std::shared_ptr<const Graph> body;
  int carried = 0;
  std::vector<Shape> output_shapes;  // carried values, then scan outputs
  // A scan output's shape after no iteration, as ONNX Runtime gives it: 0
  // then the dims the body declares for it (0 where not known), [0] when
  // it declares none.
  std::vector<Shape> empty_scan_shapes;
};

OpType NonZeroOp();
OpType ConstantOfShapeOp();
OpType GatherNdOp();
OpType NonMaxSuppressionOp();
OpType ShapeOfOp();
OpType RangeOp();
OpType LoopOp();
OpType IfOp();
OpType ScatterElementsOp();
// SCATTER_ND(data, indices [m..., q], updates [m..., data dims after q]):
// data with updates written at the index tuples (ScatterAttrs::reduction;
// axis unused). Its output is data's shape: it is in the dynamic region only
// when its inputs are.
OpType ScatterNdOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_DYNAMIC_OPS_H_
