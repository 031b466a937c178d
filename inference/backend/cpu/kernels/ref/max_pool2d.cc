#include <algorithm>
#include <limits>

#include "inference/backend/cpu/kernels/ref/pooling.h"

namespace rill::inference::cpu {

void MaxPool2DRef(const PoolParams& p, const float* in, float* out) {
  for (int n = 0; n < p.batch; ++n) {
    for (int oy = 0; oy < p.out_h; ++oy) {
      const int y0 = std::max(oy * p.stride_h - p.pad_top, 0);
      const int y1 = std::min(oy * p.stride_h - p.pad_top + p.kernel_h, p.in_h);
      for (int ox = 0; ox < p.out_w; ++ox) {
        const int x0 = std::max(ox * p.stride_w - p.pad_left, 0);
        const int x1 = std::min(ox * p.stride_w - p.pad_left + p.kernel_w, p.in_w);
        float* o = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.channels;
        for (int c = 0; c < p.channels; ++c) {
          float acc = -std::numeric_limits<float>::infinity();
          for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) {
              acc = std::max(acc, in[((static_cast<long long>(n) * p.in_h + y) * p.in_w + x) * p.channels + c]);
            }
          }
          o[c] = ApplyActivation(acc, p.activation);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
