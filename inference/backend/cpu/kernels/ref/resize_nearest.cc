#include "inference/backend/cpu/kernels/ref/resize_nearest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace rill::inference::cpu {

int NearestSourceIndex(const ResizeNearestParams& p, const ResizeAxis& axis, int out_index) {
  const int in_size = axis.in_size, out_size = axis.out_size;
  int64_t index = 0;
  if (p.coordinate == ir::ResizeCoordinate::kTflite) {
    const float s = (p.align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / (out_size - 1)
                                                      : static_cast<float>(in_size) / out_size;
    const float offset = p.half_pixel_centers ? 0.5f : 0.0f;
    const float x = (out_index + offset) * s;
    index = p.align_corners ? static_cast<int64_t>(std::round(x)) : static_cast<int64_t>(std::floor(x));
  } else {
    float x = OnnxSourceCoordinate(p.coordinate, axis, out_index);
    if (p.coordinate == ir::ResizeCoordinate::kTfHalfPixelForNn && EffectiveScale(axis) != 1.0f) {
      // ONNX Runtime's nearest kernel multiplies by the inverse scale here (1
      // / the model's, or in / out for sizes), where its linear and cubic
      // kernels divide: ties such as 7.5 must round as there.
      x = (static_cast<float>(out_index) + 0.5f) *
          (axis.scale > 0.0f ? 1.0f / axis.scale : static_cast<float>(in_size) / static_cast<float>(out_size));
    }
    if (p.coordinate == ir::ResizeCoordinate::kTfCropAndResize && OutsideInput(x, in_size)) return -1;
    switch (p.rounding) {
      case ir::NearestRounding::kRoundPreferFloor:
        index = x == static_cast<float>(static_cast<int64_t>(x)) + 0.5f ? static_cast<int64_t>(std::floor(x))
                                                                          : static_cast<int64_t>(std::round(x));
        break;
      case ir::NearestRounding::kRoundPreferCeil: index = static_cast<int64_t>(std::round(x)); break;
      case ir::NearestRounding::kFloor: index = static_cast<int64_t>(std::floor(x)); break;
      case ir::NearestRounding::kCeil: index = static_cast<int64_t>(std::ceil(x)); break;
      case ir::NearestRounding::kSimple:
        index = EffectiveScale(axis) < 1.0f ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
        break;
    }
  }
  return static_cast<int>(std::clamp<int64_t>(index, 0, in_size - 1));
}

void ResizeNearestRef(const ResizeNearestParams& p, const float* in, float* out) {
  const ResizeAxis axis_h = ResizeAxisH(p), axis_w = ResizeAxisW(p);
  for (int n = 0; n < p.batch; ++n) {
    for (int oy = 0; oy < p.out_h; ++oy) {
      const int iy = NearestSourceIndex(p, axis_h, oy);
      for (int ox = 0; ox < p.out_w; ++ox) {
        const int ix = NearestSourceIndex(p, axis_w, ox);
        float* dst = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.channels;
        if (iy < 0 || ix < 0) {
          for (int c = 0; c < p.channels; ++c) dst[c] = p.extrapolation_value;
          continue;
        }
        const float* src = in + ((static_cast<long long>(n) * p.in_h + iy) * p.in_w + ix) * p.channels;
        for (int c = 0; c < p.channels; ++c) dst[c] = src[c];
      }
    }
  }
}

}  // namespace rill::inference::cpu
