#include "inference/backend/cpu/kernels/ref/resize_bilinear.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
namespace {

struct Tap {
  int lo, hi;
  float frac;  // weight of `hi`
};

Tap SourceTap(int out_index, int in_size, int out_size, bool align_corners, bool half_pixel) {
  const float scale = (align_corners && out_size > 1) ? static_cast<float>(in_size - 1) / (out_size - 1)
                                                      : static_cast<float>(in_size) / out_size;
  const float src = half_pixel ? (out_index + 0.5f) * scale - 0.5f : out_index * scale;
  const float floor_src = std::floor(src);
  Tap t;
  t.lo = std::max(static_cast<int>(floor_src), 0);
  t.hi = std::min(static_cast<int>(std::ceil(src)), in_size - 1);
  t.lo = std::min(t.lo, in_size - 1);
  t.frac = src - floor_src;
  return t;
}

}  // namespace

void ResizeBilinearRef(const ResizeParams& p, const float* in, float* out) {
  for (int n = 0; n < p.batch; ++n) {
    const float* in_n = in + static_cast<long long>(n) * p.in_h * p.in_w * p.channels;
    for (int oy = 0; oy < p.out_h; ++oy) {
      const Tap ty = SourceTap(oy, p.in_h, p.out_h, p.align_corners, p.half_pixel_centers);
      for (int ox = 0; ox < p.out_w; ++ox) {
        const Tap tx = SourceTap(ox, p.in_w, p.out_w, p.align_corners, p.half_pixel_centers);
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
