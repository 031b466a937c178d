#include "inference/backend/cpu/kernels/ref/random.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rill::inference::cpu {

void RandomRef(const ir::RandomAttrs& a, std::minstd_rand0* gen, const float* p, long long n, float* y) {
  switch (a.kind) {
    case ir::RandomAttrs::Kind::kUniform: {
      std::uniform_real_distribution<float> d(a.a, a.b);
      for (long long i = 0; i < n; ++i) y[i] = d(*gen);
      break;
    }
    case ir::RandomAttrs::Kind::kNormal: {
      std::normal_distribution<float> d(a.a, a.b);
      for (long long i = 0; i < n; ++i) y[i] = d(*gen);
      break;
    }
    case ir::RandomAttrs::Kind::kBernoulli: {
      std::uniform_real_distribution<float> d(0.0f, 1.0f);
      for (long long i = 0; i < n; ++i) y[i] = d(*gen) < p[i] ? 1.0f : 0.0f;
      break;
    }
    case ir::RandomAttrs::Kind::kMultinomial: break;  // MultinomialRef
  }
}

void MultinomialRef(std::minstd_rand0* gen, const float* x, long long batch, long long classes, long long samples,
                    float* y, double* cdf) {
  std::uniform_real_distribution<double> d(0.0, 1.0);
  for (long long b = 0; b < batch; ++b) {
    const float* row = x + b * classes;
    float largest = std::numeric_limits<float>::lowest();
    for (long long j = 0; j < classes; ++j) {
      if (std::isfinite(row[j])) largest = std::max(largest, row[j]);
    }
    double total = 0.0;
    for (long long j = 0; j < classes; ++j) {
      if (std::isfinite(row[j])) total += std::exp(static_cast<double>(row[j]) - static_cast<double>(largest));
      cdf[j] = total;
    }
    for (long long s = 0; s < samples; ++s) {
      const double at = d(*gen) * total;
      y[b * samples + s] = static_cast<float>(std::upper_bound(cdf, cdf + classes, at) - cdf);
    }
  }
}

}  // namespace rill::inference::cpu
