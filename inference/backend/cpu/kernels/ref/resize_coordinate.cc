#include "inference/backend/cpu/kernels/ref/resize_coordinate.h"

namespace rill::inference::cpu {

float OnnxSourceCoordinate(ir::ResizeCoordinate mode, const ResizeAxis& a, int out_index) {
  const float s = EffectiveScale(a);
  const float o = static_cast<float>(out_index);
  if (s == 1.0f) return o;
  const float in = static_cast<float>(a.in_size), out = static_cast<float>(a.out_size);
  switch (mode) {
    case ir::ResizeCoordinate::kHalfPixel: return (o + 0.5f) / s - 0.5f;
    case ir::ResizeCoordinate::kPytorchHalfPixel: return a.out_size > 1 ? (o + 0.5f) / s - 0.5f : 0.0f;
    case ir::ResizeCoordinate::kAlignCorners: return a.out_size == 1 ? 0.0f : o * (in - 1) / (out - 1);
    case ir::ResizeCoordinate::kTfHalfPixelForNn: return (o + 0.5f) / s;  // (nearest: resize_nearest.cc)
    case ir::ResizeCoordinate::kTfCropAndResize:
      // One output: the crop's centre, in double as there.
      if (a.out_size == 1) return static_cast<float>(0.5 * (a.roi_start + a.roi_end) * (in - 1));
      return a.roi_start * (in - 1) + (o * (a.roi_end - a.roi_start) * (in - 1)) / (out - 1);
    case ir::ResizeCoordinate::kHalfPixelSymmetric: {
      // Half-pixel shifted so the sampled span stays centred when the output
      // is smaller than in * scale; the last step in double as there.
      const float adjustment = out / (s * in);
      const float offset = in / 2 * (1 - adjustment);
      return static_cast<float>(offset + (o + 0.5) / s - 0.5);
    }
    case ir::ResizeCoordinate::kAsymmetric:
    case ir::ResizeCoordinate::kTflite: break;
  }
  return o / s;
}

}  // namespace rill::inference::cpu
