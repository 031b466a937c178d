#include "inference/backend/cpu/kernels/ref/max_roi_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rill::inference::cpu {

void MaxRoiPoolRef(const MaxRoiPoolParams& p, const float* x, const float* rois, float* y, int begin, int end) {
  const long long c = p.channels;
  for (int r = begin; r < end; ++r) {
    const float* roi = rois + 5LL * r;
    float* out = y + static_cast<long long>(r) * p.pooled_h * p.pooled_w * c;
    const float b = roi[0];
    if (!(b >= 0.0f && b < static_cast<float>(p.batch))) {  // outside the batch (NaN too): zeros
      std::fill(out, out + static_cast<long long>(p.pooled_h) * p.pooled_w * c, 0.0f);
      continue;
    }
    const float* image = x + static_cast<long long>(b) * p.height * p.width * c;
    // ONNX Runtime's rounding: the scaled corner in float, half away from zero.
    const int x1 = static_cast<int>(std::round(roi[1] * p.spatial_scale));
    const int y1 = static_cast<int>(std::round(roi[2] * p.spatial_scale));
    const int x2 = static_cast<int>(std::round(roi[3] * p.spatial_scale));
    const int y2 = static_cast<int>(std::round(roi[4] * p.spatial_scale));
    const int roi_h = std::max(y2 - y1 + 1, 1), roi_w = std::max(x2 - x1 + 1, 1);
    const float bin_h = static_cast<float>(roi_h) / static_cast<float>(p.pooled_h);
    const float bin_w = static_cast<float>(roi_w) / static_cast<float>(p.pooled_w);
    for (int i = 0; i < p.pooled_h; ++i) {
      const int h0 = std::min(std::max(static_cast<int>(std::floor(static_cast<float>(i) * bin_h)) + y1, 0), p.height);
      const int h1 = std::min(std::max(static_cast<int>(std::ceil(static_cast<float>(i + 1) * bin_h)) + y1, 0), p.height);
      for (int j = 0; j < p.pooled_w; ++j) {
        const int w0 = std::min(std::max(static_cast<int>(std::floor(static_cast<float>(j) * bin_w)) + x1, 0), p.width);
        const int w1 =
            std::min(std::max(static_cast<int>(std::ceil(static_cast<float>(j + 1) * bin_w)) + x1, 0), p.width);
        float* o = out + (static_cast<long long>(i) * p.pooled_w + j) * c;
        if (h1 <= h0 || w1 <= w0) {
          std::fill(o, o + c, 0.0f);
          continue;
        }
        std::fill(o, o + c, -std::numeric_limits<float>::infinity());
        for (int h = h0; h < h1; ++h) {
          for (int w = w0; w < w1; ++w) {
            const float* v = image + (static_cast<long long>(h) * p.width + w) * c;
            for (long long k = 0; k < c; ++k) o[k] = v[k] > o[k] ? v[k] : o[k];
          }
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
