// Multiply-accumulates of a node at given shapes (conv, depthwise,
// transposed conv, fully-connected, batched matmul, attention, 3-D conv and
// the fused depthwise block; 0 for the rest): what `rill model info` and
// the benchmarks report per layer.
#ifndef RILL_INFERENCE_IR_MACS_H_
#define RILL_INFERENCE_IR_MACS_H_

#include <cstdint>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

// `shapes` is indexed by tensor id (Graph::InferShapes' result).
int64_t NodeMacs(const Node& node, const std::vector<Shape>& shapes);

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_MACS_H_
