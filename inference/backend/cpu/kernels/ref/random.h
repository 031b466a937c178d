// RANDOM (ir/ops/random_ops.h): n values drawn from `gen` in element order;
// p the probabilities (kBernoulli only; kMultinomial: MultinomialRef).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RANDOM_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RANDOM_H_

#include <random>

#include "inference/ir/ops/random_ops.h"

namespace rill::inference::cpu {

void RandomRef(const ir::RandomAttrs& a, std::minstd_rand0* gen, const float* p, long long n, float* y);

// kMultinomial: `samples` class indices per row of logits x ([batch,
// classes]) into y ([batch, samples]); `cdf` holds `classes` doubles.
void MultinomialRef(std::minstd_rand0* gen, const float* x, long long batch, long long classes, long long samples,
                    float* y, double* cdf);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RANDOM_H_
