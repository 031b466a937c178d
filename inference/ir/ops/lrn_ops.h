// LOCAL_RESPONSE_NORM: ONNX's LRN and TFLite's LOCAL_RESPONSE_NORMALIZATION
// (docs/design.md, "How to add an op"). Across channels:
//   y[c] = x[c] / (bias + alpha * sum_{j = c - before}^{c + after} x[j]^2)^beta
// (j within [0, C)); ONNX's alpha / size, before = floor((size - 1) / 2),
// after = ceil((size - 1) / 2); TFLite's alpha, before = after = radius.
// Channels are axis 1 of x (rank >= 2), or the last axis of a 4-D NHWC value
// with channels_last.
#ifndef RILL_INFERENCE_IR_OPS_LRN_OPS_H_
#define RILL_INFERENCE_IR_OPS_LRN_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct LrnAttrs : TypedAttrs {
  int before = 0, after = 0;
  float bias = 1.0f, alpha = 1e-4f, beta = 0.75f;
  bool channels_last = false;
};

OpType LrnOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_LRN_OPS_H_
