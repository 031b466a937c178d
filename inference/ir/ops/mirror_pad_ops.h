// MIRROR_PAD: padding that repeats the input's own values (ONNX Pad's
// reflect and edge modes, TFLite MIRROR_PAD's REFLECT and SYMMETRIC), a
// registered op apart from PAD so that the passes folding zero padding into
// convolutions never see it.
//
// x of rank <= 6 -> each axis d grown by before[d] + after[d]; a position
// outside the input reads, per mode:
//   kReflect    the mirror image about the edge element (edge not repeated:
//               ... 2 1 | 0 1 2 ... ); needs before, after < the axis size
//   kSymmetric  the mirror image including the edge (... 1 0 | 0 1 2 ...);
//               needs before, after <= the axis size
//   kEdge       the edge element (... 0 0 | 0 1 2 ...)
#ifndef RILL_INFERENCE_IR_OPS_MIRROR_PAD_OPS_H_
#define RILL_INFERENCE_IR_OPS_MIRROR_PAD_OPS_H_

#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct MirrorPadAttrs : TypedAttrs {
  enum class Mode { kReflect, kSymmetric, kEdge };
  Mode mode = Mode::kReflect;
  std::vector<int> before, after;  // one per axis
};

OpType MirrorPadOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_MIRROR_PAD_OPS_H_
