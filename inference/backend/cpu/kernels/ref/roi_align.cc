#include "inference/backend/cpu/kernels/ref/roi_align.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
namespace {

// One bilinear sample's four corners (offsets into a channel's H*W plane)
// and weights. A sample more than a pixel outside the map has zero weights.
struct Tap {
  int offset[4] = {0, 0, 0, 0};
  float weight[4] = {0, 0, 0, 0};
};

Tap SampleTap(float y, float x, int height, int width) {
  Tap t;
  if (y < -1.0f || y > height || x < -1.0f || x > width) return t;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  int y0 = static_cast<int>(y), x0 = static_cast<int>(x);
  int y1, x1;
  if (y0 >= height - 1) {
    y0 = y1 = height - 1;
    y = static_cast<float>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= width - 1) {
    x0 = x1 = width - 1;
    x = static_cast<float>(x0);
  } else {
    x1 = x0 + 1;
  }
  const float ly = y - y0, lx = x - x0, hy = 1.0f - ly, hx = 1.0f - lx;
  t.offset[0] = y0 * width + x0;
  t.offset[1] = y0 * width + x1;
  t.offset[2] = y1 * width + x0;
  t.offset[3] = y1 * width + x1;
  t.weight[0] = hy * hx;
  t.weight[1] = hy * lx;
  t.weight[2] = ly * hx;
  t.weight[3] = ly * lx;
  return t;
}

}  // namespace

void RoiAlignRef(const ir::RoiAlignAttrs& a, const Shape& x_shape, const float* x, const float* roi, int batch,
                 int r, int c_begin, int c_end, float* y) {
  const int channels = x_shape[1], height = x_shape[2], width = x_shape[3];
  const float offset = a.half_pixel ? 0.5f : 0.0f;
  const float x_start = roi[0] * a.spatial_scale - offset;
  const float y_start = roi[1] * a.spatial_scale - offset;
  float roi_w = roi[2] * a.spatial_scale - offset - x_start;
  float roi_h = roi[3] * a.spatial_scale - offset - y_start;
  if (!a.half_pixel) {
    roi_w = std::max(roi_w, 1.0f);
    roi_h = std::max(roi_h, 1.0f);
  }
  const float bin_h = roi_h / a.out_h, bin_w = roi_w / a.out_w;
  const int grid_h = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int>(std::ceil(roi_h / a.out_h));
  const int grid_w = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int>(std::ceil(roi_w / a.out_w));
  const float count = static_cast<float>(std::max(grid_h * grid_w, 1));
  const long long plane = static_cast<long long>(height) * width;
  for (int c = c_begin; c < c_end; ++c) {
    const float* xc = x + (static_cast<long long>(batch) * channels + c) * plane;
    float* yc = y + ((static_cast<long long>(r) * channels + c) * a.out_h) * a.out_w;
    for (int ph = 0; ph < a.out_h; ++ph) {
      for (int pw = 0; pw < a.out_w; ++pw) {
        float sum = 0.0f, best = 0.0f;
        bool first = true;
        for (int iy = 0; iy < grid_h; ++iy) {
          const float sy = y_start + ph * bin_h + (iy + 0.5f) * bin_h / grid_h;
          for (int ix = 0; ix < grid_w; ++ix) {
            const float sx = x_start + pw * bin_w + (ix + 0.5f) * bin_w / grid_w;
            const Tap t = SampleTap(sy, sx, height, width);
            if (a.max_mode) {
              float v = t.weight[0] * xc[t.offset[0]];
              for (int k = 1; k < 4; ++k) v = std::max(v, t.weight[k] * xc[t.offset[k]]);
              best = first ? v : std::max(best, v);
              first = false;
            } else {
              sum += t.weight[0] * xc[t.offset[0]] + t.weight[1] * xc[t.offset[1]] +
                     t.weight[2] * xc[t.offset[2]] + t.weight[3] * xc[t.offset[3]];
            }
          }
        }
        yc[ph * a.out_w + pw] = a.max_mode ? best : sum / count;
      }
    }
  }
}

}  // namespace rill::inference::cpu
