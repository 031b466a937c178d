// RANDOM: ONNX's RandomUniform, RandomNormal, their *Like forms,
// Bernoulli and Multinomial, imported only with a seed (docs/design.md,
// "How to add an op"). Each execution owns a generator (std::minstd_rand0, the C++
// library's default_random_engine) seeded once with the seed's value as an
// unsigned integer when first prepared, and advanced by every run, so
// consecutive runs of one session draw new values and two sessions of one
// model draw the same sequence. Values come from the C++ library's
// distributions in element order, on one thread (independent of the thread
// count). That is what ONNX Runtime 1.30's CPU kernels do too, so built on
// the same library (libstdc++) a first run gives its values; the contract is
// the distribution, not the values.
//   kUniform:   [a, b) uniformly (low, high; float rounding can give b, as
//               in ONNX Runtime).
//   kNormal:    normal with mean a and standard deviation b.
//   kBernoulli: input p (probabilities) -> 1 where a draw from [0, 1) is
//               below p, else 0: 1 with probability p, as the operator is
//               defined (ONNX Runtime 1.30 runs ONNX's function body,
//               Greater(draw, p): 1 with probability 1 - p).
//   kMultinomial: input [batch, classes] of unnormalized log-probabilities
//               -> [batch, samples] class indices (whole numbers as float32):
//               per row, the cumulative sums (in double) of exp(logit - the
//               row's largest finite logit) over the finite logits, and per
//               sample a uniform draw from [0, 1) in double times the total,
//               placed by upper_bound (ONNX Runtime's algorithm, whose
//               generator also advances from run to run).
// Inputs: none (the output's shape is `shape`), or one whose shape the
// output takes (the *Like forms; Bernoulli's probabilities).
#ifndef RILL_INFERENCE_IR_OPS_RANDOM_OPS_H_
#define RILL_INFERENCE_IR_OPS_RANDOM_OPS_H_

#include <cstdint>
#include <vector>

#include "inference/ir/graph.h"

namespace rill::inference::ir {

struct RandomAttrs : TypedAttrs {
  enum class Kind { kUniform, kNormal, kBernoulli, kMultinomial };
  Kind kind = Kind::kUniform;
  float a = 0.0f, b = 1.0f;
  uint32_t seed = 0;
  std::vector<int> shape;  // without an input
  int samples = 1;         // kMultinomial's sample_size
};

OpType RandomOp();

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_OPS_RANDOM_OPS_H_
