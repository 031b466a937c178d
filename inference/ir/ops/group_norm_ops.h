// GROUP_NORM: ONNX's GroupNormalization and InstanceNormalization (groups ==
// channels) as one registered op (docs/design.md, "How to add an op").
//
// x [N, C, spatial...] channels-first, or a 4-D NHWC value [N, H, W, C]
// with channels_last; scale and bias [C] (per channel) ->
//   y = (x - mean_g) / sqrt(var_g + epsilon) * scale[c] + bias[c],
// mean_g and var_g (biased) over the group's C / groups channels and every
// spatial position of one batch element.
#ifndef RILL_INFERENCE_IR_OPS_GROUP_NORM_OPS_H_
#define RILL_INFERENCE_IR_OPS_GROUP_NORM_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct GroupNormAttrs : TypedAttrs {
  int groups = 1;
  float epsilon = 1e-5f;
  bool channels_last = false;
};

OpType GroupNormOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_GROUP_NORM_OPS_H_
