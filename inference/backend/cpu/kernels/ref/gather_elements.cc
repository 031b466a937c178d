#include "inference/backend/cpu/kernels/ref/gather_elements.h"

#include <algorithm>
#include <vector>

namespace rill::inference::cpu {

void GatherElementsRef(const Shape& data_shape, const float* data, const Shape& idx_shape, const float* idx,
                       int axis, float* out, long long begin, long long end) {
  const int rank = static_cast<int>(idx_shape.size());
  long long data_strides[8] = {}, idx_dims[8] = {};
  long long stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    data_strides[d] = stride;
    stride *= data_shape[d];
    idx_dims[d] = idx_shape[d];
  }
  const long long dim = data_shape[axis];
  for (long long i = begin; i < end; ++i) {
    long long rest = i, offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const long long coord = rest % idx_dims[d];
      rest /= idx_dims[d];
      if (d != axis) offset += coord * data_strides[d];
    }
    long long k = static_cast<long long>(idx[i]);
    if (k < 0) k += dim;
    k = std::min(std::max(k, 0LL), dim - 1);
    out[i] = data[offset + k * data_strides[axis]];
  }
}

}  // namespace rill::inference::cpu
