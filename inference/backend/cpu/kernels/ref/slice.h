// Reference SLICE (strided, any rank <= 6): output index i along axis d
// reads input index begin[d] + i * step[d] (step may be negative). Runs of
// the innermost axis with step 1 are copied whole.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SLICE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SLICE_H_

namespace rill::inference::cpu {

struct SliceParams {
  static constexpr int kMaxRank = 6;
  int rank = 0;
  int in_dims[kMaxRank] = {};
  int out_dims[kMaxRank] = {};
  int begin[kMaxRank] = {};
  int step[kMaxRank] = {};
};

// Output rows (all axes but the innermost, row-major) [row_begin, row_end).
void SliceRef(const SliceParams& p, const float* in, float* out, long long row_begin, long long row_end);

// Rows of the output: the product of its dims but the innermost.
long long SliceRows(const SliceParams& p);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_SLICE_H_
