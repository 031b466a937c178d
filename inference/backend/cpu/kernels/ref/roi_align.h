// Reference ROI_ALIGN (inference/ir/ops/roi_align_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ROI_ALIGN_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ROI_ALIGN_H_

#include "inference/ir/graph.h"
#include "inference/ir/ops/roi_align_ops.h"

namespace rill::inference::cpu {

// A roi's sampling geometry in map coordinates (spatial_scale and the
// coordinate mode applied): bin b's sample i along an axis sits at
// start + b * bin + (i + 0.5f) * bin / grid. Shared by the reference and the
// optimized loops so that both compute the same floats.
struct RoiAlignBox {
  float x_start = 0, y_start = 0, bin_h = 0, bin_w = 0;
  int grid_h = 0, grid_w = 0;  // samples per bin (may be <= 0: none)
  float count = 1;             // what a bin's sum is divided by
};
RoiAlignBox RoiAlignBoxOf(const ir::RoiAlignAttrs& a, const float* roi);

// One axis of a bilinear sample at `v` on an axis of `n` pixels: the lower
// and upper pixel and their weights (`high` of lo, `low` of hi, as the
// reference names them: 1 - l and l); `inside` false (and the rest zero)
// more than a pixel outside the map.
struct RoiAlignAxisTap {
  int lo = 0, hi = 0;
  float high = 0, low = 0;
  bool inside = false;
};
RoiAlignAxisTap RoiAlignAxisTapAt(float v, int n);

// Output of roi `r` for channels [c_begin, c_end): y points at the whole
// [R, C, out_h, out_w] output. `batch` is the roi's batch element (checked
// by the caller to lie in [0, N)). x is [N, C, H, W], or [N, H, W, C] with
// a.nhwc.
void RoiAlignRef(const ir::RoiAlignAttrs& a, const Shape& x_shape, const float* x, const float* roi, int batch,
                 int r, int c_begin, int c_end, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_ROI_ALIGN_H_
