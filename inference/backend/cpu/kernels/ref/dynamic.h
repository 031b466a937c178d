// Reference kernels of the data-dependent ops (inference/ir/ops/dynamic_ops.h).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DYNAMIC_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DYNAMIC_H_

#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::cpu {

// The number of non-zero elements of x.
long long CountNonZeroRef(const float* x, long long n);
// NON_ZERO: y [rank, count] (count from CountNonZeroRef), the indices of x's
// non-zero elements in row-major order (a scalar's: one row of zeros).
void NonZeroRef(const Shape& x_shape, const float* x, long long count, float* y);

// GATHER_ND: data [batch..., rest...], indices [batch..., m..., q] ->
// [batch..., m..., data dims after batch_dims + q]. An index outside its
// dim gives zeros (ONNX leaves it undefined) and returns false.
bool GatherNdRef(const Shape& data_shape, const float* data, const Shape& idx_shape, const float* idx, int batch_dims,
                 float* y);

// SCATTER_ELEMENTS: y (a copy of data, made by the caller) with updates
// written at indices along `axis` (`reduction`: 0 none, 1 add, 2 mul, 3 max,
// 4 min). Indices outside the axis are skipped; returns false if any was.
bool ScatterElementsRef(const Shape& data_shape, const Shape& idx_shape, const float* idx, const float* updates,
                        int axis, int reduction, float* y);

// SCATTER_ND: y (a copy of data, made by the caller) with each slice of
// updates [m..., data dims after q] written at the index tuple of indices
// [m..., q] (`reduction` as SCATTER_ELEMENTS'; tuples in order, so with
// none a repeated tuple's last update stands). Tuples outside data are
// skipped; returns false if any was.
bool ScatterNdRef(const Shape& data_shape, const Shape& idx_shape, const float* idx, const float* updates,
                  int reduction, float* y);

// NON_MAX_SUPPRESSION: the selected (batch, class, box) triples, in ONNX
// Runtime's order (batch, class, then descending score, equal scores by
// box index). `score_threshold` applies only with has_score_threshold
// (scores strictly above it); a pair is suppressed when its IoU is strictly
// above iou_threshold.
struct NmsParams {
  int batches = 0, classes = 0, boxes = 0;
  long long max_per_class = 0;
  float iou_threshold = 0.0f;
  bool has_score_threshold = false;
  float score_threshold = 0.0f;
  bool center_point_box = false;
};
// `order` and `selected` are scratch of `boxes` ints, `corners` of 5 *
// `boxes` floats; returns the number of triples written to y (room for
// batches * classes * min(boxes, max_per_class)).
long long NonMaxSuppressionRef(const NmsParams& p, const float* boxes, const float* scores, int* order,
                               int* selected, float* corners, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DYNAMIC_H_
