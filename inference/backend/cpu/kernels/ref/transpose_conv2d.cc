#include "inference/backend/cpu/kernels/ref/transpose_conv2d.h"

namespace rill::inference::cpu {

void TransposeConv2DRef(const ConvParams& p, const float* input, const float* filter, const float* bias,
                        float* output) {
  const long long out_size = static_cast<long long>(p.batch) * p.out_h * p.out_w * p.out_c;
  const int icg = p.in_c / p.groups, ocg = p.out_c / p.groups;
  for (long long i = 0; i < out_size; ++i) output[i] = 0.0f;
  for (int n = 0; n < p.batch; ++n) {
    for (int iy = 0; iy < p.in_h; ++iy) {
      for (int ix = 0; ix < p.in_w; ++ix) {
        const float* x = input + ((static_cast<long long>(n) * p.in_h + iy) * p.in_w + ix) * p.in_c;
        for (int ky = 0; ky < p.kernel_h; ++ky) {
          const int oy = iy * p.stride_h - p.pad_top + ky;
          if (oy < 0 || oy >= p.out_h) continue;
          for (int kx = 0; kx < p.kernel_w; ++kx) {
            const int ox = ix * p.stride_w - p.pad_left + kx;
            if (ox < 0 || ox >= p.out_w) continue;
            float* out = output + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.out_c;
            for (int oc = 0; oc < p.out_c; ++oc) {
              const float* f = filter + ((static_cast<long long>(oc) * p.kernel_h + ky) * p.kernel_w + kx) * icg;
              const float* xg = x + oc / ocg * icg;  // the group's input channels
              float acc = 0.0f;
              for (int ic = 0; ic < icg; ++ic) acc += xg[ic] * f[ic];
              out[oc] += acc;
            }
          }
        }
      }
    }
  }
  for (long long i = 0; i < out_size; ++i) {
    const float b = bias ? bias[i % p.out_c] : 0.0f;
    output[i] = ApplyActivation(output[i] + b, p.activation);
  }
}

}  // namespace rill::inference::cpu
