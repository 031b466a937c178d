// Reference ROI_ALIGN (inference/ir/ops/roi_align_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ROI_ALIGN_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ROI_ALIGN_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/roi_align_ops.h"

namespace rill::inference::cpu {

// Output of roi `r` for channels [c_begin, c_end): y points at the whole
// [R, C, out_h, out_w] output. `batch` is the roi's batch element (checked
// by the caller to lie in [0, N)).
void RoiAlignRef(const ir::RoiAlignAttrs& a, const Shape& x_shape, const float* x, const float* roi, int batch,
                 int r, int c_begin, int c_end, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ROI_ALIGN_H_
