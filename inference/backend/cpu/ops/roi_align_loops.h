// ROI_ALIGN's optimized loops (the CPU execution, ops/roi_align_op.cc):
// each roi's bilinear taps computed once per output row and column (the
// sample coordinates along y depend on the row only, along x on the column
// only) rather than once per channel and sample, and with an NHWC input the
// channels innermost, a loop the compiler vectorizes. The same floats as
// the reference (kernels/ref/roi_align.h: the same geometry, the same sums
// in the same order), so the results are bit-identical.
#ifndef RILL_INFERENCE_BACKEND_CPU_OPS_ROI_ALIGN_LOOPS_H_
#define RILL_INFERENCE_BACKEND_CPU_OPS_ROI_ALIGN_LOOPS_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/roi_align_ops.h"

namespace rill::inference::cpu {

// Samples per axis (bins x samples per bin) the loops take; a roi that needs
// more (a box far larger than the map with adaptive sampling) is the
// reference's.
inline constexpr int kRoiAlignMaxTaps = 512;

// RoiAlignRef's contract (roi r, channels [c_begin, c_end), batch checked by
// the caller); false, having written nothing, when the roi needs more than
// kRoiAlignMaxTaps samples along an axis.
bool RoiAlignLoops(const ir::RoiAlignAttrs& a, const Shape& x_shape, const float* x, const float* roi, int batch,
                   int r, int c_begin, int c_end, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_OPS_ROI_ALIGN_LOOPS_H_
