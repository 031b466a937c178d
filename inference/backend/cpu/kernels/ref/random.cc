#include "inference/backend/cpu/kernels/ref/random.h"

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
  }
}

}  // namespace rill::inference::cpu
