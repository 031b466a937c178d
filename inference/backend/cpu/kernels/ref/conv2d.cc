#include "inference/backend/cpu/kernels/ref/conv2d.h"

namespace rill::inference::cpu {

void Conv2DRef(const ConvParams& p, const float* input, const float* filter, const float* bias, float* output) {
  const int icg = p.in_c / p.groups, ocg = p.out_c / p.groups;
  for (int n = 0; n < p.batch; ++n) {
    const float* in_n = input + static_cast<long long>(n) * p.in_h * p.in_w * p.in_c;
    for (int oy = 0; oy < p.out_h; ++oy) {
      for (int ox = 0; ox < p.out_w; ++ox) {
        float* out = output + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.out_c;
        for (int oc = 0; oc < p.out_c; ++oc) {
          float acc = bias ? bias[oc] : 0.0f;
          const float* f_oc = filter + static_cast<long long>(oc) * p.kernel_h * p.kernel_w * icg;
          const int ic0 = oc / ocg * icg;  // the group's first input channel
          for (int ky = 0; ky < p.kernel_h; ++ky) {
            const int iy = oy * p.stride_h - p.pad_top + ky * p.dilation_h;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int kx = 0; kx < p.kernel_w; ++kx) {
              const int ix = ox * p.stride_w - p.pad_left + kx * p.dilation_w;
              if (ix < 0 || ix >= p.in_w) continue;
              const float* x = in_n + (static_cast<long long>(iy) * p.in_w + ix) * p.in_c + ic0;
              const float* f = f_oc + (ky * p.kernel_w + kx) * icg;
              for (int ic = 0; ic < icg; ++ic) acc += x[ic] * f[ic];
            }
          }
          out[oc] = ApplyActivation(acc, p.activation);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
