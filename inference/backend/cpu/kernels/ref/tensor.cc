#include "inference/backend/cpu/kernels/ref/tensor.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rill::inference::cpu {

void SetNaryParams(const std::vector<int>& out, const std::vector<std::vector<int>>& ins, NaryParams* p) {
  *p = NaryParams{};
  p->rank = static_cast<int>(out.size());
  p->operands = static_cast<int>(ins.size());
  for (int d = 0; d < p->rank; ++d) {
    p->out_dims[d] = out[d];
    p->out_size *= out[d];
  }
  for (int k = 0; k < p->operands; ++k) {
    const std::vector<int>& s = ins[k];
    const int shift = p->rank - static_cast<int>(s.size());
    long long stride = 1;
    for (int d = p->rank - 1; d >= 0; --d) {
      const int dim = d >= shift ? s[d - shift] : 1;
      p->strides[k][d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }
}

void BatchMatMulOffsets(const BatchMatMulParams& p, long long batch, long long* a_off, long long* b_off) {
  long long a = 0, b = 0;
  for (int d = p.batch_rank - 1; d >= 0; --d) {
    const long long i = batch % p.batch_dims[d];
    batch /= p.batch_dims[d];
    a += i * p.a_strides[d];
    b += i * p.b_strides[d];
  }
  const long long mk = static_cast<long long>(p.m) * p.k, kn = static_cast<long long>(p.k) * p.n;
  *a_off = a * mk;
  *b_off = b * kn;
}

void BatchMatMulRef(const BatchMatMulParams& p, const float* a, const float* b, float* c, long long begin,
                    long long end) {
  for (long long batch = begin; batch < end; ++batch) {
    long long ao, bo;
    BatchMatMulOffsets(p, batch, &ao, &bo);
    const float* x = a + ao;
    const float* w = b + bo;
    float* y = c + batch * p.m * p.n;
    for (int i = 0; i < p.m; ++i) {
      for (int j = 0; j < p.n; ++j) {
        float s = 0.0f;
        for (int t = 0; t < p.k; ++t) {
          const float u = p.adj_x ? x[static_cast<long long>(t) * p.m + i] : x[static_cast<long long>(i) * p.k + t];
          const float v = p.adj_y ? w[static_cast<long long>(j) * p.k + t] : w[static_cast<long long>(t) * p.n + j];
          s += u * v;
        }
        y[static_cast<long long>(i) * p.n + j] = s;
      }
    }
  }
}

long long AttentionBiasOffset(const AttentionParams& p, long long batch) {
  long long off = 0;
  for (int d = p.batch_rank - 1; d >= 0; --d) {
    off += (batch % p.batch_dims[d]) * p.bias_strides[d];
    batch /= p.batch_dims[d];
  }
  return off * p.bias_rows * p.n;
}

void AttentionRef(const AttentionParams& p, const float* q, const float* k, const float* v, const float* bias,
                  float* out, long long begin, long long end) {
  const long long qs = static_cast<long long>(p.m) * p.d, ks = static_cast<long long>(p.n) * p.d,
                  vs = static_cast<long long>(p.n) * p.dv, os = static_cast<long long>(p.m) * p.dv;
  for (long long batch = begin; batch < end; ++batch) {
    const float* qb = q + batch * qs;
    const float* kb = k + batch * ks;
    const float* vb = v + batch * vs;
    const float* bb = p.has_bias ? bias + AttentionBiasOffset(p, batch) : nullptr;
    for (int i = 0; i < p.m; ++i) {
      const float* qi = qb + static_cast<long long>(i) * p.d;
      const float* bi = bb != nullptr && p.bias_rows != 1 ? bb + static_cast<long long>(i) * p.n : bb;
      auto score = [&](int j) {
        float s = 0.0f;
        for (int t = 0; t < p.d; ++t) {
          s += qi[t] * (p.k_transposed ? kb[static_cast<long long>(t) * p.n + j] : kb[static_cast<long long>(j) * p.d + t]);
        }
        s *= p.scale;
        return bi != nullptr ? s + bi[j] : s;
      };
      float mx = -INFINITY;
      for (int j = 0; j < p.n; ++j) mx = std::max(mx, score(j));
      float sum = 0.0f;
      for (int j = 0; j < p.n; ++j) sum += std::exp(score(j) - mx);
      float* oi = out + batch * os + static_cast<long long>(i) * p.dv;
      for (int c = 0; c < p.dv; ++c) oi[c] = 0.0f;
      for (int j = 0; j < p.n; ++j) {
        const float w = std::exp(score(j) - mx) / sum;
        const float* vj = vb + static_cast<long long>(j) * p.dv;
        for (int c = 0; c < p.dv; ++c) oi[c] += w * vj[c];
      }
    }
  }
}

void GatherRef(long long outer, int axis, long long inner, const std::vector<int64_t>& indices, const float* x,
               float* y) {
  const long long count = static_cast<long long>(indices.size());
  for (long long o = 0; o < outer; ++o) {
    for (long long i = 0; i < count; ++i) {
      const float* src = x + (o * axis + indices[i]) * inner;
      std::copy(src, src + inner, y + (o * count + i) * inner);
    }
  }
}

void TileRef(const std::vector<int>& in, const std::vector<int>& repeats, const float* x, float* y) {
  const int rank = static_cast<int>(in.size());  // <= NaryParams::kMaxRank (the op checks)
  int out[NaryParams::kMaxRank];
  long long total = 1;
  for (int d = 0; d < rank; ++d) {
    out[d] = in[d] * repeats[d];
    total *= out[d];
  }
  long long in_strides[NaryParams::kMaxRank];
  if (rank > 0) in_strides[rank - 1] = 1;
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * in[d + 1];
  for (long long o = 0; o < total; ++o) {
    long long rest = o, src = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const long long i = rest % out[d];
      rest /= out[d];
      src += (i % in[d]) * in_strides[d];
    }
    y[o] = x[src];
  }
}

void ReduceRef(ReduceRefKind kind, const std::vector<int>& in, const std::vector<bool>& reduce, const float* x,
               float* y) {
  const int rank = static_cast<int>(in.size());  // <= NaryParams::kMaxRank (the op checks)
  // The output's stride per input axis (0 on reduced axes).
  long long out_strides[NaryParams::kMaxRank] = {};
  long long stride = 1, out_size = 1, in_size = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_size *= in[d];
    if (reduce[d]) continue;
    out_strides[d] = stride;
    stride *= in[d];
    out_size *= in[d];
  }
  const float init = kind == ReduceRefKind::kMax   ? -INFINITY
                     : kind == ReduceRefKind::kMin ? INFINITY
                     : kind == ReduceRefKind::kProd ? 1.0f
                                                     : 0.0f;
  std::fill(y, y + out_size, init);
  for (long long i = 0; i < in_size; ++i) {
    long long rest = i, o = 0;
    for (int d = rank - 1; d >= 0; --d) {
      o += (rest % in[d]) * out_strides[d];
      rest /= in[d];
    }
    const float v = x[i];
    switch (kind) {
      case ReduceRefKind::kSum: y[o] += v; break;
      case ReduceRefKind::kL2: y[o] += v * v; break;
      case ReduceRefKind::kProd: y[o] *= v; break;
      // NaN wins, as in ONNX Runtime.
      case ReduceRefKind::kMax: y[o] = (v > y[o] || std::isnan(v)) && !std::isnan(y[o]) ? v : y[o]; break;
      case ReduceRefKind::kMin: y[o] = (v < y[o] || std::isnan(v)) && !std::isnan(y[o]) ? v : y[o]; break;
    }
  }
  if (kind == ReduceRefKind::kL2) {
    for (long long o = 0; o < out_size; ++o) y[o] = std::sqrt(y[o]);
  }
}

void ArgMaxRef(long long outer, int axis, long long inner, bool min, bool last, const float* x, float* y) {
  for (long long o = 0; o < outer; ++o) {
    for (long long i = 0; i < inner; ++i) {
      const float* v = x + o * axis * inner + i;
      int best = 0;
      for (int a = 1; a < axis; ++a) {
        const float u = v[a * inner], b = v[best * inner];
        const bool better = min ? u < b : u > b;
        if (better || (last && u == b)) best = a;
      }
      y[o * inner + i] = static_cast<float>(best);
    }
  }
}

void TopKRef(long long outer, int axis, long long inner, int k, bool largest, const float* x, float* values,
             float* indices, int* order) {
  for (long long o = 0; o < outer; ++o) {
    for (long long i = 0; i < inner; ++i) {
      const float* v = x + o * axis * inner + i;
      std::iota(order, order + axis, 0);
      std::partial_sort(order, order + k, order + axis, [&](int p, int q) {
        const float a = v[p * inner], b = v[q * inner];
        if (a != b) return largest ? a > b : a < b;
        return p < q;
      });
      for (int j = 0; j < k; ++j) {
        const long long at = (o * k + j) * inner + i;
        if (values) values[at] = v[order[j] * inner];
        if (indices) indices[at] = static_cast<float>(order[j]);
      }
    }
  }
}

}  // namespace rill::inference::cpu
