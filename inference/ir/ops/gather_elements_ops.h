// GATHER_ELEMENTS: ONNX's GatherElements (docs/design.md, "How to add an
// op"). data and indices of one rank; the output has indices' shape, each
// element data at its own position with the coordinate along `axis`
// replaced by its index (negative ones count from the end; run-time
// indices out of range are clamped, as GATHER's).
#ifndef RILL_INFERENCE_IR_OPS_GATHER_ELEMENTS_OPS_H_
#define RILL_INFERENCE_IR_OPS_GATHER_ELEMENTS_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct GatherElementsAttrs : TypedAttrs {
  int axis = 0;  // non-negative
};

OpType GatherElementsOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_GATHER_ELEMENTS_OPS_H_
