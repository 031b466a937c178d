// SLICE's per-axis arithmetic (ONNX Slice semantics), shared by shape
// inference and the kernels: negative starts/ends count from the end, then
// clamp to the axis ([0, dim] for a positive step, [-1, dim - 1] for a
// negative one), and the axis keeps ceil(|end - start| / |step|) elements.
#ifndef RILL_INFERENCE_IR_SLICE_GEOMETRY_H_
#define RILL_INFERENCE_IR_SLICE_GEOMETRY_H_

#include <algorithm>
#include <vector>

namespace rill::inference::ir {

// First element and element count of one axis of size `dim`; step != 0.
inline void SliceAxis(int dim, long long start, long long end, int step, int* first, int* count) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<long long>(start, 0, dim);
    end = std::clamp<long long>(end, 0, dim);
    *first = static_cast<int>(start);
    *count = end > start ? static_cast<int>((end - start + step - 1) / step) : 0;
  } else {
    start = std::clamp<long long>(start, 0, dim - 1);
    end = std::clamp<long long>(end, -1, dim - 1);
    *first = static_cast<int>(start);
    *count = start > end ? static_cast<int>((start - end - step - 1) / -step) : 0;
  }
}

// SLICE's starts and ends with the run-time values of its inputs 1 and 2
// (OpAttrs::slice_runtime_axes) written over the attributes'; `starts` /
// `ends` null for an absent input. False when a values count does not match
// the axes.
inline bool SliceBounds(const std::vector<long long>& start_attr, const std::vector<long long>& end_attr,
                        const std::vector<int>& axes, const std::vector<long long>* starts,
                        const std::vector<long long>* ends, std::vector<long long>* start,
                        std::vector<long long>* end) {
  *start = start_attr;
  *end = end_attr;
  for (int k = 0; k < 2; ++k) {
    const std::vector<long long>* v = k == 0 ? starts : ends;
    if (v == nullptr) continue;
    if (v->size() != axes.size()) return false;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] < 0 || axes[i] >= static_cast<int>(start->size())) return false;
      (k == 0 ? *start : *end)[axes[i]] = std::clamp<long long>((*v)[i], -(1LL << 40), 1LL << 40);
    }
  }
  return true;
}

}  // namespace rill::inference::ir

#endif  // RILL_INFERENCE_IR_SLICE_GEOMETRY_H_
