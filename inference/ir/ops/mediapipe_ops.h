// MediaPipe's TFLite custom ops of the face mesh with attention
// (face_landmark_with_attention.tflite), as registered ops with typed
// attributes (docs/design.md, "How to add an op"). Each takes the semantics
// of the custom op's version 2 kernel in MediaPipe
// (mediapipe/util/tflite/operations/), over every batch:
//
// LANDMARKS_TO_TRANSFORM_MATRIX (custom op Landmarks2TransformMatrix):
//   landmarks [N, L, 3] -> matrix [N, 4, 4] (row-major). The matrix maps a
//   pixel (x, y, 0, 1) of an output_width x output_height crop to the
//   landmarks' coordinates: the crop is the box around the landmarks of
//   subset_idxs, in the frame rotated so that the line from landmark
//   left_rotation_idx to right_rotation_idx lies at target_rotation_radians,
//   scaled by scale_x, scale_y about its centre. With r the rotation that
//   frame needs (target - atan2(dy, dx) of that line), c the box's centre
//   rotated back, w x h its size:
//     M = T(c) * R(-r) * S(scale_x * w / output_width,
//                         scale_y * h / output_height) * T(-output_w/2, -output_h/2).
// TRANSFORM_LANDMARKS (custom op TransformLandmarks):
//   landmarks [N, L, D] (D = 2 or 3), matrix [N or 1, 4, 4] -> [N, L, D]:
//   x' = m00 x + m01 y + m03, y' = m10 x + m11 y + m13, z kept.
// TRANSFORM_TENSOR_BILINEAR (custom op TransformTensorBilinear):
//   x [N, H, W, C], matrix [N or 1, 4, 4] -> [N, output_height,
//   output_width, C]: output pixel (i, j) samples x bilinearly at
//   (u, v) = M * (j + 0.5, i + 0.5, 0, 1) - (0.5, 0.5) (pixel centres), and
//   is 0 where u or v lies outside [0, W - 1] x [0, H - 1].
#ifndef RILL_INFERENCE_IR_OPS_MEDIAPIPE_OPS_H_
#define RILL_INFERENCE_IR_OPS_MEDIAPIPE_OPS_H_

#include <utility>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct Landmarks2TransformMatrixAttrs : TypedAttrs {
  // Pairs of landmark indices whose landmarks bound the crop (the pairs are
  // only MediaPipe's storage: every index counts alike).
  std::vector<std::pair<int, int>> subset_idxs;
  int left_rotation_idx = 0;
  int right_rotation_idx = 0;
  float target_rotation_radians = 0.0f;
  int output_height = 1;
  int output_width = 1;
  float scale_x = 1.0f;
  float scale_y = 1.0f;
};

struct TransformTensorBilinearAttrs : TypedAttrs {
  int output_height = 1;
  int output_width = 1;
};

OpType Landmarks2TransformMatrixOp();
OpType TransformLandmarksOp();
OpType TransformTensorBilinearOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_MEDIAPIPE_OPS_H_
