#include "inference/backend/cpu/kernels/ref/roi_align.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {

RoiAlignBox RoiAlignBoxOf(const ir::RoiAlignAttrs& a, const float* roi) {
  RoiAlignBox b;
  const float offset = a.half_pixel ? 0.5f : 0.0f;
  b.x_start = roi[0] * a.spatial_scale - offset;
  b.y_start = roi[1] * a.spatial_scale - offset;
  float roi_w = roi[2] * a.spatial_scale - offset - b.x_start;
  float roi_h = roi[3] * a.spatial_scale - offset - b.y_start;
  if (!a.half_pixel) {
    roi_w = std::max(roi_w, 1.0f);
    roi_h = std::max(roi_h, 1.0f);
  }
  b.bin_h = roi_h / a.out_h;
  b.bin_w = roi_w / a.out_w;
  b.grid_h = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int>(std::ceil(roi_h / a.out_h));
  b.grid_w = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int>(std::ceil(roi_w / a.out_w));
  b.count = static_cast<float>(std::max(b.grid_h * b.grid_w, 1));
  return b;
}

RoiAlignAxisTap RoiAlignAxisTapAt(float v, int n) {
  RoiAlignAxisTap t;
  if (v < -1.0f || v > n) return t;
  t.inside = true;
  v = std::max(v, 0.0f);
  int v0 = static_cast<int>(v);
  int v1;
  if (v0 >= n - 1) {
    v0 = v1 = n - 1;
    v = static_cast<float>(v0);
  } else {
    v1 = v0 + 1;
  }
  t.lo = v0;
  t.hi = v1;
  t.low = v - v0;
  t.high = 1.0f - t.low;
  return t;
}

namespace {

// One bilinear sample's four corners (offsets into a channel's H*W plane)
// and weights. A sample more than a pixel outside the map has zero weights.
struct Tap {
  int offset[4] = {0, 0, 0, 0};
  float weight[4] = {0, 0, 0, 0};
};

Tap SampleTap(float y, float x, int height, int width) {
  Tap t;
  const RoiAlignAxisTap ty = RoiAlignAxisTapAt(y, height), tx = RoiAlignAxisTapAt(x, width);
  if (!ty.inside || !tx.inside) return t;
  t.offset[0] = ty.lo * width + tx.lo;
  t.offset[1] = ty.lo * width + tx.hi;
  t.offset[2] = ty.hi * width + tx.lo;
  t.offset[3] = ty.hi * width + tx.hi;
  t.weight[0] = ty.high * tx.high;
  t.weight[1] = ty.high * tx.low;
  t.weight[2] = ty.low * tx.high;
  t.weight[3] = ty.low * tx.low;
  return t;
}

}  // namespace

void RoiAlignRef(const ir::RoiAlignAttrs& a, const Shape& x_shape, const float* x, const float* roi, int batch,
                 int r, int c_begin, int c_end, float* y) {
  const int channels = x_shape[a.nhwc ? 3 : 1], height = x_shape[a.nhwc ? 1 : 2], width = x_shape[a.nhwc ? 2 : 3];
  const RoiAlignBox box = RoiAlignBoxOf(a, roi);
  const long long plane = static_cast<long long>(height) * width;
  // A pixel's step in x: channels apart in NHWC, adjacent in NCHW.
  const long long step = a.nhwc ? channels : 1;
  for (int c = c_begin; c < c_end; ++c) {
    const float* xc = a.nhwc ? x + static_cast<long long>(batch) * plane * channels + c
                             : x + (static_cast<long long>(batch) * channels + c) * plane;
    float* yc = y + ((static_cast<long long>(r) * channels + c) * a.out_h) * a.out_w;
    for (int ph = 0; ph < a.out_h; ++ph) {
      for (int pw = 0; pw < a.out_w; ++pw) {
        float sum = 0.0f, best = 0.0f;
        bool first = true;
        for (int iy = 0; iy < box.grid_h; ++iy) {
          const float sy = box.y_start + ph * box.bin_h + (iy + 0.5f) * box.bin_h / box.grid_h;
          for (int ix = 0; ix < box.grid_w; ++ix) {
            const float sx = box.x_start + pw * box.bin_w + (ix + 0.5f) * box.bin_w / box.grid_w;
            const Tap t = SampleTap(sy, sx, height, width);
            const float v0 = xc[t.offset[0] * step], v1 = xc[t.offset[1] * step], v2 = xc[t.offset[2] * step],
                        v3 = xc[t.offset[3] * step];
            if (a.max_mode) {
              float v = t.weight[0] * v0;
              v = std::max(v, t.weight[1] * v1);
              v = std::max(v, t.weight[2] * v2);
              v = std::max(v, t.weight[3] * v3);
              best = first ? v : std::max(best, v);
              first = false;
            } else {
              sum += t.weight[0] * v0 + t.weight[1] * v1 + t.weight[2] * v2 + t.weight[3] * v3;
            }
          }
        }
        yc[ph * a.out_w + pw] = a.max_mode ? best : sum / box.count;
      }
    }
  }
}

}  // namespace rill::inference::cpu
