// Reference zero padding of a tensor of rank <= 6.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_PAD_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_PAD_H_

namespace rill::inference::cpu {

struct PadParams {
  static constexpr int kMaxRank = 6;
  int rank = 0;
  int in_dims[kMaxRank] = {};
  int before[kMaxRank] = {};
  int after[kMaxRank] = {};
  float value = 0.0f;
};

void PadRef(const PadParams& p, const float* in, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_PAD_H_
