// Reference kernel of MAX_ROI_POOL (ir/ops/max_roi_pool_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MAX_ROI_POOL_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MAX_ROI_POOL_H_

namespace rill::inference::cpu {

struct MaxRoiPoolParams {
  int batch = 0, height = 0, width = 0, channels = 0;  // x: [batch, height, width, channels]
  int pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1.0f;
};

// Rois [begin, end) of `rois` ([R, 5]) pooled from x into y
// ([R, pooled_h, pooled_w, channels]), channels innermost.
void MaxRoiPoolRef(const MaxRoiPoolParams& p, const float* x, const float* rois, float* y, int begin, int end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MAX_ROI_POOL_H_
