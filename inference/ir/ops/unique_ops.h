// UNIQUE: ONNX's Unique (docs/design.md, "How to add an op"; its sizes
// depend on data: "Data-dependent sizes"). The IR's nodes have one output,
// so each of ONNX's four outputs is a node of its own over the same input
// (`output` says which). x is viewed as [outer, n, inner] around `axis` (or,
// flattened, as [1, numel, 1]); slice i is x[:, i, :]. Slices compare
// lexicographically in that row-major order (-0 equals 0; NaN after every
// number, NaNs equal to each other).
//   kValues:  the unique slices, x's shape with `count` along the axis
//             ([count] flattened): in ascending order (sorted), else in
//             order of first occurrence.
//   kIndices: [count], each unique slice's first index in x.
//   kInverse: [n], each slice's position in the values.
//   kCounts:  [count], how many slices equal each unique one.
// count is known only at run time (its bound n; the execution reports it),
// so every output but kInverse's is in the dynamic region.
#ifndef RILL_INFERENCE_IR_OPS_UNIQUE_OPS_H_
#define RILL_INFERENCE_IR_OPS_UNIQUE_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct UniqueAttrs : TypedAttrs {
  enum class Output { kValues, kIndices, kInverse, kCounts };
  Output output = Output::kValues;
  int axis = -1;  // non-negative; -1: flattened
  bool sorted = true;
};

OpType UniqueOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_UNIQUE_OPS_H_
