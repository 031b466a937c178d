#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
BilinearTap BilinearSourceTap(const ResizeParams& p, int out_index, int in_size, int out_size, float scale) {
  float src;
  if (scale > 0.0f && !p.align_corners) {
    src = p.half_pixel_centers ? (out_index + 0.5f) / scale - 0.5f : out_index / scale;
  } else {
    const float s = (p.align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / (out_size - 1)
                                                      : static_cast<float>(in_size) / out_size;
    src = p.half_pixel_centers ? (out_index + 0.5f) * s - 0.5f : out_index * s;
  }
  const float floor_src = std::floor(src);
  BilinearTap t;
  t.lo = std::min(std::max(static_cast<int>(floor_src), 0), in_size - 1);
  t.hi = std::max(std::min(static_cast<int>(std::ceil(src)), in_size - 1), 0);
  t.frac = src - floor_src;
  return t;
}

void ResizeBilinearRef(const ResizeParams& p, const float* in, float* out) {
  for (int n = 0; n < p.batch; ++n) {
    const float* in_n = in + static_cast<long long>(n) * p.in_h * p.in_w * p.channels;
    for (int oy = 0; oy < p.out_h; ++oy) {
      const BilinearTap ty = BilinearSourceTap(p, oy, p.in_h, p.out_h, p.scale_h);
      for (int ox = 0; ox < p.out_w; ++ox) {
        const BilinearTap tx = BilinearSourceTap(p, ox, p.in_w, p.out_w, p.scale_w);
        const float* a = in_n + (static_cast<long long>(ty.lo) * p.in_w + tx.lo) * p.channels;
        const float* b = in_n + (static_cast<long long>(ty.lo) * p.in_w + tx.hi) * p.channels;
        const float* c = in_n + (static_cast<long long>(ty.hi) * p.in_w + tx.lo) * p.channels;
        const float* d = in_n + (static_cast<long long>(ty.hi) * p.in_w + tx.hi) * p.channels;
        float* o = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.channels;
        for (int ch = 0; ch < p.channels; ++ch) {
          o[ch] = a[ch] * (1 - ty.frac) * (1 - tx.frac) + b[ch] * (1 - ty.frac) * tx.frac +
                  c[ch] * ty.frac * (1 - tx.frac) + d[ch] * ty.frac * tx.frac;
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
