#include "inference/backend/cpu/kernels/ref/depth_to_space.h"

namespace rill::inference::cpu {

void DepthToSpaceRef(int batch, int in_h, int in_w, int in_c, int block, const float* in, float* out) {
  const int out_c = in_c / (block * block);
  const int out_h = in_h * block, out_w = in_w * block;
  for (int n = 0; n < batch; ++n) {
    for (int oy = 0; oy < out_h; ++oy) {
      const int y = oy / block, dy = oy % block;
      for (int ox = 0; ox < out_w; ++ox) {
        const int x = ox / block, dx = ox % block;
        const float* src = in + ((static_cast<long long>(n) * in_h + y) * in_w + x) * in_c + (dy * block + dx) * out_c;
        float* dst = out + ((static_cast<long long>(n) * out_h + oy) * out_w + ox) * out_c;
        for (int c = 0; c < out_c; ++c) dst[c] = src[c];
      }
    }
  }
}

}  // namespace rill::inference::cpu
