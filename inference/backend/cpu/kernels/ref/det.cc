#include "inference/backend/cpu/kernels/ref/det.h"

#include <cmath>
#include <utility>

namespace rill::inference::cpu {

void DetRef(long long m, const float* x, float* y, long long begin, long long end, double* a) {
  for (long long b = begin; b < end; ++b) {
    const float* src = x + b * m * m;
    for (long long i = 0; i < m * m; ++i) a[i] = src[i];
    double det = 1.0;
    for (long long col = 0; col < m; ++col) {
      long long pivot = col;
      for (long long r = col + 1; r < m; ++r) {
        if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col])) pivot = r;
      }
      if (a[pivot * m + col] == 0.0) {
        det = 0.0;
        break;
      }
      if (pivot != col) {
        for (long long k = 0; k < m; ++k) std::swap(a[pivot * m + k], a[col * m + k]);
        det = -det;
      }
      const double p = a[col * m + col];
      det *= p;
      for (long long r = col + 1; r < m; ++r) {
        const double f = a[r * m + col] / p;
        for (long long k = col; k < m; ++k) a[r * m + k] -= f * a[col * m + k];
      }
    }
    y[b] = static_cast<float>(det);
  }
}

}  // namespace rill::inference::cpu
