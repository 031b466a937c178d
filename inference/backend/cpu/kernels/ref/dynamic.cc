#include "inference/backend/cpu/kernels/ref/dynamic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace rill::inference::cpu {

long long CountNonZeroRef(const float* x, long long n) {
  long long count = 0;
  for (long long i = 0; i < n; ++i) count += x[i] != 0.0f;
  return count;
}

void NonZeroRef(const Shape& x_shape, const float* x, long long count, float* y) {
  const int rank = static_cast<int>(x_shape.size());
  const long long n = NumElements(x_shape);
  long long j = 0;
  for (long long i = 0; i < n; ++i) {
    if (x[i] == 0.0f) continue;
    long long rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      y[d * count + j] = static_cast<float>(rest % x_shape[d]);
      rest /= x_shape[d];
    }
    if (rank == 0) y[j] = 0.0f;
    ++j;
  }
}

bool GatherNdRef(const Shape& data_shape, const float* data, const Shape& idx_shape, const float* idx, int batch_dims,
                 float* y) {
  const int q = idx_shape.back();
  long long batches = 1;
  for (int d = 0; d < batch_dims; ++d) batches *= data_shape[d];
  long long slice = 1;  // elements each index tuple picks
  for (size_t d = batch_dims + q; d < data_shape.size(); ++d) slice *= data_shape[d];
  long long per_batch_data = slice;
  for (int d = batch_dims; d < batch_dims + q; ++d) per_batch_data *= data_shape[d];
  long long tuples = NumElements(idx_shape) / q;  // over every batch
  const long long per_batch_tuples = batches > 0 ? tuples / batches : 0;
  bool ok = true;
  for (long long t = 0; t < tuples; ++t) {
    const long long b = per_batch_tuples > 0 ? t / per_batch_tuples : 0;
    long long offset = 0;
    bool inside = true;
    for (int k = 0; k < q; ++k) {
      const int dim = data_shape[batch_dims + k];
      long long i = static_cast<long long>(std::llround(idx[t * q + k]));
      if (i < 0) i += dim;
      if (i < 0 || i >= dim) inside = false;
      offset = offset * dim + i;
    }
    float* out = y + t * slice;
    if (!inside) {
      std::fill(out, out + slice, 0.0f);
      ok = false;
      continue;
    }
    const float* src = data + b * per_batch_data + offset * slice;
    std::copy(src, src + slice, out);
  }
  return ok;
}

bool ScatterElementsRef(const Shape& data_shape, const Shape& idx_shape, const float* idx, const float* updates,
                        int axis, int reduction, float* y) {
  const int rank = static_cast<int>(idx_shape.size());
  // On the stack up to rank 8: steady-state runs allocate nothing.
  constexpr int kStackRank = 8;
  long long strides_stack[kStackRank];
  int at_stack[kStackRank];
  std::vector<long long> strides_heap;
  std::vector<int> at_heap;
  if (rank > kStackRank) {
    strides_heap.resize(rank);
    at_heap.resize(rank);
  }
  long long* strides = rank > kStackRank ? strides_heap.data() : strides_stack;
  // The element's index in idx_shape, counted up as i advances (no
  // division per element), and its offset in y without the axis' term.
  int* at = rank > kStackRank ? at_heap.data() : at_stack;
  for (int d = 0; d < rank; ++d) {
    strides[d] = 1;
    at[d] = 0;
  }
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * data_shape[d + 1];
  const long long n = NumElements(idx_shape);
  long long base = 0;
  bool ok = true;
  for (long long i = 0; i < n; ++i) {
    long long k = static_cast<long long>(std::llround(idx[i]));
    if (k < 0) k += data_shape[axis];
    if (k >= 0 && k < data_shape[axis]) {
      float& v = y[base + k * strides[axis]];
      const float u = updates[i];
      switch (reduction) {
        case 1: v += u; break;
        case 2: v *= u; break;
        case 3: v = std::max(v, u); break;
        case 4: v = std::min(v, u); break;
        default: v = u; break;
      }
    } else {
      ok = false;
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++at[d] < idx_shape[d]) {
        if (d != axis) base += strides[d];
        break;
      }
      if (d != axis) base -= static_cast<long long>(idx_shape[d] - 1) * strides[d];
      at[d] = 0;
    }
  }
  return ok;
}

bool ScatterNdRef(const Shape& data_shape, const Shape& idx_shape, const float* idx, const float* updates,
                  int reduction, float* y) {
  const int q = idx_shape.back();
  long long slice = 1;  // elements each index tuple addresses
  for (size_t d = q; d < data_shape.size(); ++d) slice *= data_shape[d];
  const long long tuples = q > 0 ? NumElements(idx_shape) / q : 0;
  bool ok = true;
  for (long long t = 0; t < tuples; ++t) {
    long long offset = 0;
    bool inside = true;
    for (int k = 0; k < q; ++k) {
      const int dim = data_shape[k];
      long long i = static_cast<long long>(std::llround(idx[t * q + k]));
      if (i < 0) i += dim;
      if (i < 0 || i >= dim) inside = false;
      offset = offset * dim + i;
    }
    if (!inside) {
      ok = false;
      continue;
    }
    float* v = y + offset * slice;
    const float* u = updates + t * slice;
    switch (reduction) {
      case 1: for (long long j = 0; j < slice; ++j) v[j] += u[j]; break;
      case 2: for (long long j = 0; j < slice; ++j) v[j] *= u[j]; break;
      case 3: for (long long j = 0; j < slice; ++j) v[j] = std::max(v[j], u[j]); break;
      case 4: for (long long j = 0; j < slice; ++j) v[j] = std::min(v[j], u[j]); break;
      default: std::copy(u, u + slice, v); break;
    }
  }
  return ok;
}

namespace {

// Corners of box i as (x_min, y_min, x_max, y_max).
void Corners(const float* b, bool center, float* c) {
  if (center) {
    c[0] = b[0] - b[2] / 2;
    c[2] = b[0] + b[2] / 2;
    c[1] = b[1] - b[3] / 2;
    c[3] = b[1] + b[3] / 2;
  } else {  // (y1, x1, y2, x2), either corner first
    c[0] = std::min(b[1], b[3]);
    c[2] = std::max(b[1], b[3]);
    c[1] = std::min(b[0], b[2]);
    c[3] = std::max(b[0], b[2]);
  }
}

// As ONNX Runtime: no suppression for empty or degenerate boxes. p and q
// hold (x_min, y_min, x_max, y_max, area).
inline bool Suppresses(const float* p, const float* q, float iou_threshold) {
  const float ix0 = std::max(p[0], q[0]), ix1 = std::min(p[2], q[2]);
  if (ix1 <= ix0) return false;
  const float iy0 = std::max(p[1], q[1]), iy1 = std::min(p[3], q[3]);
  if (iy1 <= iy0) return false;
  const float inter = (ix1 - ix0) * (iy1 - iy0);
  if (inter <= 0.0f) return false;
  const float uni = p[4] + q[4] - inter;
  if (p[4] <= 0.0f || q[4] <= 0.0f || uni <= 0.0f) return false;
  return inter / uni > iou_threshold;
}

}  // namespace

long long NonMaxSuppressionRef(const NmsParams& p, const float* boxes, const float* scores, int* order,
                               int* selected, float* corners, float* y) {
  long long written = 0;
  if (p.max_per_class <= 0) return 0;
  for (int b = 0; b < p.batches; ++b) {
    const float* bb = boxes + static_cast<long long>(b) * p.boxes * 4;
    // Corners and area of every box once, not per pair.
    for (int i = 0; i < p.boxes; ++i) {
      float* c = corners + 5 * static_cast<long long>(i);
      Corners(bb + 4 * i, p.center_point_box, c);
      c[4] = (c[2] - c[0]) * (c[3] - c[1]);
    }
    for (int c = 0; c < p.classes; ++c) {
      const float* s = scores + (static_cast<long long>(b) * p.classes + c) * p.boxes;
      int candidates = 0;
      for (int i = 0; i < p.boxes; ++i) {
        if (!p.has_score_threshold || s[i] > p.score_threshold) order[candidates++] = i;
      }
      // By score, ties by index (what a stable sort gives; std::sort
      // allocates nothing, steady-state runs allocate nothing).
      std::sort(order, order + candidates,
                [&](int u, int v) { return s[u] > s[v] || (!(s[v] > s[u]) && u < v); });
      int kept = 0;
      for (int k = 0; k < candidates && kept < p.max_per_class; ++k) {
        const int i = order[k];
        const float* ci = corners + 5 * static_cast<long long>(i);
        bool keep = true;
        for (int j = 0; j < kept && keep; ++j) {
          keep = !Suppresses(corners + 5 * static_cast<long long>(selected[j]), ci, p.iou_threshold);
        }
        if (!keep) continue;
        selected[kept++] = i;
        y[3 * written] = static_cast<float>(b);
        y[3 * written + 1] = static_cast<float>(c);
        y[3 * written + 2] = static_cast<float>(i);
        ++written;
      }
    }
  }
  return written;
}

}  // namespace rill::inference::cpu
