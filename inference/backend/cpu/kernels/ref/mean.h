// Reference MEAN over any set of axes of a tensor of rank <= 6.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MEAN_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MEAN_H_

namespace rill::inference::cpu {

struct ReduceParams {
  static constexpr int kMaxRank = 6;
  int rank = 0;
  int in_dims[kMaxRank] = {};
  bool reduce[kMaxRank] = {};
};

void MeanRef(const ReduceParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_MEAN_H_
