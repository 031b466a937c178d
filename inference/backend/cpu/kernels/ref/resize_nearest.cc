#include "inference/backend/cpu/kernels/ref/resize_nearest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace rill::inference::cpu {

int NearestSourceIndex(const ResizeNearestParams& p, int out_index, int in_size, int out_size, float scale) {
  int64_t index = 0;
  if (p.coordinate == ir::NearestCoordinate::kTflite) {
    const float s = (p.align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / (out_size - 1)
                                                      : static_cast<float>(in_size) / out_size;
    const float offset = p.half_pixel_centers ? 0.5f : 0.0f;
    const float x = (out_index + offset) * s;
    index = p.align_corners ? static_cast<int64_t>(std::round(x)) : static_cast<int64_t>(std::floor(x));
  } else {
    // Float arithmetic in ONNX Runtime 1.30's order (ties such as 7.5 or
    // 3.5 must round as there): divided by the scale (the model's, or
    // out / in for sizes), but tf_half_pixel_for_nn multiplied by the
    // inverse scale (1 / the model's, or in / out for sizes).
    const float s = scale > 0.0f ? scale : static_cast<float>(out_size) / static_cast<float>(in_size);
    const float o = static_cast<float>(out_index);
    float x = 0.0f;
    switch (p.coordinate) {
      case ir::NearestCoordinate::kHalfPixel: x = (o + 0.5f) / s - 0.5f; break;
      case ir::NearestCoordinate::kPytorchHalfPixel: x = out_size > 1 ? (o + 0.5f) / s - 0.5f : 0.0f; break;
      case ir::NearestCoordinate::kAlignCorners:
        x = out_size == 1 ? 0.0f : o * static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
        break;
      case ir::NearestCoordinate::kTfHalfPixelForNn:
        x = (o + 0.5f) * (scale > 0.0f ? 1.0f / scale : static_cast<float>(in_size) / static_cast<float>(out_size));
        break;
      case ir::NearestCoordinate::kAsymmetric:
      case ir::NearestCoordinate::kTflite: x = o / s; break;
    }
    switch (p.rounding) {
      case ir::NearestRounding::kRoundPreferFloor:
        index = x == static_cast<float>(static_cast<int64_t>(x)) + 0.5f ? static_cast<int64_t>(std::floor(x))
                                                                          : static_cast<int64_t>(std::round(x));
        break;
      case ir::NearestRounding::kRoundPreferCeil: index = static_cast<int64_t>(std::round(x)); break;
      case ir::NearestRounding::kFloor: index = static_cast<int64_t>(std::floor(x)); break;
      case ir::NearestRounding::kCeil: index = static_cast<int64_t>(std::ceil(x)); break;
      case ir::NearestRounding::kSimple:
        index = s < 1.0f ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
        break;
    }
  }
  return static_cast<int>(std::clamp<int64_t>(index, 0, in_size - 1));
}

void ResizeNearestRef(const ResizeNearestParams& p, const float* in, float* out) {
  for (int n = 0; n < p.batch; ++n) {
    for (int oy = 0; oy < p.out_h; ++oy) {
      const int iy = NearestSourceIndex(p, oy, p.in_h, p.out_h, p.scale_h);
      for (int ox = 0; ox < p.out_w; ++ox) {
        const int ix = NearestSourceIndex(p, ox, p.in_w, p.out_w, p.scale_w);
        const float* src = in + ((static_cast<long long>(n) * p.in_h + iy) * p.in_w + ix) * p.channels;
        float* dst = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.channels;
        for (int c = 0; c < p.channels; ++c) dst[c] = src[c];
      }
    }
  }
}

}  // namespace rill::inference::cpu
