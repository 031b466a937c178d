// DET: ONNX's Det (docs/design.md, "How to add an op"). x [..., M, M] ->
// [...]: the determinant of each square matrix, by LU decomposition with
// partial pivoting in double.
#ifndef RILL_INFERENCE_IR_OPS_DET_OPS_H_
#define RILL_INFERENCE_IR_OPS_DET_OPS_H_

#include "inference/ir/graph.h"

namespace rill::inference::ir {

OpType DetOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_DET_OPS_H_
