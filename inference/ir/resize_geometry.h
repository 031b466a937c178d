// ONNX Resize with `sizes` and keep_aspect_ratio_policy not_larger or
// not_smaller, shared by the importer, shape inference and the kernels: one
// scale for the named axes (the smallest or largest size / input ratio, in
// float as ONNX Runtime divides), their output sizes round(scale * input),
// the other axes kept. It follows the input, so a session resized to another
// input size gets the output size and coordinate scale ONNX Runtime would.
#ifndef RILL_INFERENCE_IR_RESIZE_GEOMETRY_H_
#define RILL_INFERENCE_IR_RESIZE_GEOMETRY_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace rill::inference::ir {

enum class ResizeAspectPolicy { kStretch = 0, kNotLarger, kNotSmaller };

// `sizes` and `in`: NCHW; sizes[d] = 0 for an axis the node does not name.
// Writes the output dims (NCHW) and the scale of the named axes.
inline void AspectResize(ResizeAspectPolicy policy, const int64_t sizes[4], const int64_t in[4], int64_t out[4],
                         float* scale) {
  const bool larger = policy == ResizeAspectPolicy::kNotSmaller;
  float s = larger ? std::numeric_limits<float>::min() : std::numeric_limits<float>::max();
  for (int d = 0; d < 4; ++d) {
    if (sizes[d] <= 0) continue;
    const float r = static_cast<float>(sizes[d]) / static_cast<float>(in[d]);
    s = larger ? std::max(s, r) : std::min(s, r);
  }
  for (int d = 0; d < 4; ++d) {
    out[d] = sizes[d] > 0 ? static_cast<int64_t>(std::round(s * static_cast<float>(in[d]))) : in[d];
  }
  *scale = s;
}

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_RESIZE_GEOMETRY_H_
