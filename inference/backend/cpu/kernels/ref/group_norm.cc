#include "inference/backend/cpu/kernels/ref/group_norm.h"

#include <cmath>

namespace rill::inference::cpu {

void GroupNormRef(const ir::GroupNormAttrs& a, const Shape& xs, const float* x, const float* scale,
                  const float* bias, float* y, int n, int g) {
  const int channels = a.channels_last ? xs[3] : xs[1];
  long long spatial = 1;
  if (a.channels_last) {
    spatial = static_cast<long long>(xs[1]) * xs[2];
  } else {
    for (size_t d = 2; d < xs.size(); ++d) spatial *= xs[d];
  }
  const int cpg = channels / a.groups;
  const size_t batch = static_cast<size_t>(channels) * spatial;
  // Element (c, s) of batch n.
  auto at = [&](int c, long long s) -> size_t {
    return n * batch + (a.channels_last ? static_cast<size_t>(s) * channels + c : static_cast<size_t>(c) * spatial + s);
  };
  double sum = 0.0, sq = 0.0;
  for (int c = g * cpg; c < (g + 1) * cpg; ++c) {
    for (long long s = 0; s < spatial; ++s) {
      const double v = x[at(c, s)];
      sum += v;
      sq += v * v;
    }
  }
  const double count = static_cast<double>(cpg) * spatial;
  const double mean = sum / count;
  const double var = std::max(0.0, sq / count - mean * mean);
  const double inv = 1.0 / std::sqrt(var + a.epsilon);
  for (int c = g * cpg; c < (g + 1) * cpg; ++c) {
    for (long long s = 0; s < spatial; ++s) {
      y[at(c, s)] = static_cast<float>((x[at(c, s)] - mean) * inv * scale[c] + bias[c]);
    }
  }
}

}  // namespace rill::inference::cpu
