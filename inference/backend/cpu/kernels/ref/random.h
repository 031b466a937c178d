// RANDOM (ir/ops/random_ops.h): n values drawn from `gen` in element order;
// p the probabilities (kBernoulli only).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RANDOM_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RANDOM_H_

#include <random>

#include "inference/ir/ops/random_ops.h"

namespace rill::inference::cpu {

void RandomRef(const ir::RandomAttrs& a, std::minstd_rand0* gen, const float* p, long long n, float* y);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_RANDOM_H_
