#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {

BilinearTap BilinearSourceTap(const ResizeParams& p, const ResizeAxis& axis, int out_index) {
  const int in_size = axis.in_size;
  BilinearTap t;
  t.outside = false;
  if (p.coordinate == ir::ResizeCoordinate::kTflite) {
    const float s = (p.align_corners && axis.out_size > 1) ? static_cast<float>(in_size - 1) / (axis.out_size - 1)
                                                           : static_cast<float>(in_size) / axis.out_size;
    const float src = p.half_pixel_centers ? (out_index + 0.5f) * s - 0.5f : out_index * s;
    const float floor_src = std::floor(src);
    t.lo = std::min(std::max(static_cast<int>(floor_src), 0), in_size - 1);
    t.hi = std::max(std::min(static_cast<int>(std::ceil(src)), in_size - 1), 0);
    t.w_hi = src - floor_src;
    t.w_lo = 1 - t.w_hi;
    return t;
  }
  // ONNX Runtime: the coordinate clamped into the input, its floor and the
  // next pixel, weights |src - pixel| (one pixel at the edge: 0.5 each).
  float src = OnnxSourceCoordinate(p.coordinate, axis, out_index);
  t.outside = p.coordinate == ir::ResizeCoordinate::kTfCropAndResize && OutsideInput(src, in_size);
  src = std::max(0.0f, std::min(src, static_cast<float>(in_size - 1)));
  t.lo = std::min(static_cast<int>(src), in_size - 1);
  t.hi = std::min(t.lo + 1, in_size - 1);
  if (t.lo == t.hi) {
    t.w_lo = t.w_hi = 0.5f;
  } else {
    t.w_hi = std::fabs(src - static_cast<float>(t.lo));
    t.w_lo = std::fabs(src - static_cast<float>(t.hi));
  }
  return t;
}

void ResizeBilinearRef(const ResizeParams& p, const float* in, float* out) {
  const bool onnx = p.coordinate != ir::ResizeCoordinate::kTflite;
  const ResizeAxis axis_h = ResizeAxisH(p), axis_w = ResizeAxisW(p);
  for (int n = 0; n < p.batch; ++n) {
    const float* in_n = in + static_cast<long long>(n) * p.in_h * p.in_w * p.channels;
    for (int oy = 0; oy < p.out_h; ++oy) {
      const BilinearTap ty = BilinearSourceTap(p, axis_h, oy);
      for (int ox = 0; ox < p.out_w; ++ox) {
        const BilinearTap tx = BilinearSourceTap(p, axis_w, ox);
        float* o = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.channels;
        if (ty.outside || tx.outside) {
          for (int ch = 0; ch < p.channels; ++ch) o[ch] = p.extrapolation_value;
          continue;
        }
        const float* a = in_n + (static_cast<long long>(ty.lo) * p.in_w + tx.lo) * p.channels;
        const float* b = in_n + (static_cast<long long>(ty.lo) * p.in_w + tx.hi) * p.channels;
        const float* c = in_n + (static_cast<long long>(ty.hi) * p.in_w + tx.lo) * p.channels;
        const float* d = in_n + (static_cast<long long>(ty.hi) * p.in_w + tx.hi) * p.channels;
        if (onnx) {
          // ONNX Runtime's order: the weights' products first.
          const float wa = tx.w_lo * ty.w_lo, wb = tx.w_hi * ty.w_lo, wc = tx.w_lo * ty.w_hi, wd = tx.w_hi * ty.w_hi;
          for (int ch = 0; ch < p.channels; ++ch) o[ch] = wa * a[ch] + wb * b[ch] + wc * c[ch] + wd * d[ch];
        } else {
          // TFLite's order.
          for (int ch = 0; ch < p.channels; ++ch) {
            o[ch] = a[ch] * ty.w_lo * tx.w_lo + b[ch] * ty.w_lo * tx.w_hi + c[ch] * ty.w_hi * tx.w_lo +
                    d[ch] * ty.w_hi * tx.w_hi;
          }
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
