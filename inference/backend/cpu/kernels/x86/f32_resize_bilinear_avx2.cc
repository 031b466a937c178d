#include "inference/backend/cpu/kernels/x86/f32_resize_bilinear_avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu::x86 {

void ComputeResizeTaps(const ResizeParams& p, std::vector<ResizeTap>* y_taps, std::vector<ResizeTap>* x_taps) {
  y_taps->resize(p.out_h);
  x_taps->resize(p.out_w);
  // The reference kernel's rule, shared.
  const ResizeAxis axis_h = ResizeAxisH(p), axis_w = ResizeAxisW(p);
  for (int y = 0; y < p.out_h; ++y) (*y_taps)[y] = BilinearSourceTap(p, axis_h, y);
  for (int x = 0; x < p.out_w; ++x) (*x_taps)[x] = BilinearSourceTap(p, axis_w, x);
}

__attribute__((target("avx2,fma"))) void ResizeBilinearAvx2(const ResizeParams& p, const ResizeTap* y_taps,
                                                             const ResizeTap* x_taps, const float* in, float* out) {
  const int c_n = p.channels;
  const int vec_end = c_n / 8 * 8;
  for (int n = 0; n < p.batch; ++n) {
    const float* in_n = in + static_cast<long long>(n) * p.in_h * p.in_w * c_n;
    for (int oy = 0; oy < p.out_h; ++oy) {
      const ResizeTap ty = y_taps[oy];
      for (int ox = 0; ox < p.out_w; ++ox) {
        const ResizeTap tx = x_taps[ox];
        float* o = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * c_n;
        if (ty.outside || tx.outside) {
          for (int ch = 0; ch < c_n; ++ch) o[ch] = p.extrapolation_value;
          continue;
        }
        // The weights' products first, then the sum in the reference's
        // order (ONNX Runtime's; TFLite's reference rounds the products in
        // the other order).
        const float wa = tx.w_lo * ty.w_lo, wb = tx.w_hi * ty.w_lo;
        const float wc = tx.w_lo * ty.w_hi, wd = tx.w_hi * ty.w_hi;
        const float* a = in_n + (static_cast<long long>(ty.lo) * p.in_w + tx.lo) * c_n;
        const float* b = in_n + (static_cast<long long>(ty.lo) * p.in_w + tx.hi) * c_n;
        const float* c = in_n + (static_cast<long long>(ty.hi) * p.in_w + tx.lo) * c_n;
        const float* d = in_n + (static_cast<long long>(ty.hi) * p.in_w + tx.hi) * c_n;
        const __m256 va = _mm256_set1_ps(wa), vb = _mm256_set1_ps(wb), vc = _mm256_set1_ps(wc),
                     vd = _mm256_set1_ps(wd);
        int ch = 0;
        for (; ch < vec_end; ch += 8) {
          __m256 acc = _mm256_mul_ps(_mm256_loadu_ps(a + ch), va);
          acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_loadu_ps(b + ch), vb));
          acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_loadu_ps(c + ch), vc));
          acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_loadu_ps(d + ch), vd));
          _mm256_storeu_ps(o + ch, acc);
        }
        for (; ch < c_n; ++ch) o[ch] = a[ch] * wa + b[ch] * wb + c[ch] * wc + d[ch] * wd;
      }
    }
  }
}

}  // namespace rill::inference::cpu::x86
