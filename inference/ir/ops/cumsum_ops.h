// CUMSUM: ONNX's CumSum and TFLite's CUMSUM (docs/design.md, "How to add an
// op"). Along `axis` (non-negative), each output the sum of the inputs up
// to it (inclusive), of those before it (exclusive), or from the end
// (reverse), summed in float in that order.
#ifndef RILL_INFERENCE_IR_OPS_CUMSUM_OPS_H_
#define RILL_INFERENCE_IR_OPS_CUMSUM_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct CumSumAttrs : TypedAttrs {
  int axis = 0;
  bool exclusive = false;
  bool reverse = false;
};

OpType CumSumOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_CUMSUM_OPS_H_
