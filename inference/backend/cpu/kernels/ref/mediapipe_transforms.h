// Reference kernels of MediaPipe's custom ops (inference/ir/ops/
// mediapipe_ops.h has their semantics): the crop matrix from landmarks,
// landmarks through a matrix, and the bilinear warp of a tensor through one.
// One image per call; matrices are 4x4 row-major.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MEDIAPIPE_TRANSFORMS_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MEDIAPIPE_TRANSFORMS_H_

#include "inference/ir/ops/mediapipe_ops.h"

namespace rill::inference::cpu {

// landmarks: [L, 3] of one image (indices in `a` already checked < L).
void Landmarks2TransformMatrixRef(const ir::Landmarks2TransformMatrixAttrs& a, const float* landmarks,
                                  float* matrix);

// count landmarks of `dims` (2 or 3) floats each.
void TransformLandmarksRef(const float* matrix, int count, int dims, const float* in, float* out);

struct TransformTensorParams {
  int in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
};
// Output rows [row_begin, row_end) of one image: in [in_h, in_w, channels],
// out [out_h, out_w, channels].
void TransformTensorBilinearRef(const TransformTensorParams& p, const float* matrix, const float* in, float* out,
                                int row_begin, int row_end);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MEDIAPIPE_TRANSFORMS_H_
