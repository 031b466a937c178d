// Reference TRANSPOSE of a tensor of rank <= 6: output dim i is input dim
// perm[i].
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TRANSPOSE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TRANSPOSE_H_

namespace rill::inference::cpu {

struct TransposeParams {
  static constexpr int kMaxRank = 6;
  int rank = 0;
  int in_dims[kMaxRank] = {};
  int perm[kMaxRank] = {};
};

void TransposeRef(const TransposeParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_TRANSPOSE_H_
