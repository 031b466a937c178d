#include "inference/backend/cpu/kernels/x86/f32_gemm_strassen.h"

#include <algorithm>
#include <cstring>

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x16_avx2.h"
#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu::x86 {
namespace {

using simd::F8;

int Half(int x) { return (x + 1) / 2; }

// dst[i] = a[i] + sign * b[i] (b may be null); n floats.
__attribute__((target("avx2,fma"))) void AddRow(float* dst, const float* a,
                                                const float* b, float sign,
                                                int n) {
  int i = 0;
  if (b == nullptr) {
    std::memcpy(dst, a, sizeof(float) * n);
    return;
  }
  for (; i + 8 <= n; i += 8)
    simd::Store(dst + i, simd::Load<F8>(a + i) + simd::Load<F8>(b + i) * sign);
  for (; i < n; ++i) dst[i] = a[i] + sign * b[i];
}
// dst[i] += sign * src[i].
__attribute__((target("avx2,fma"))) void AccumulateRow(float* dst,
                                                       const float* src,
                                                       float sign, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8)
    simd::Store(dst + i,
                simd::Load<F8>(dst + i) + simd::Load<F8>(src + i) * sign);
  for (; i < n; ++i) dst[i] += sign * src[i];
}
__attribute__((target("avx2,fma"))) void BiasActivationRow(float* c,
                                                           const float* bias,
                                                           FusedActivation act,
                                                           int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    F8 v = simd::Load<F8>(c + i);
    if (bias) v += simd::Load<F8>(bias + i);
    simd::Store(c + i, simd::Clamp(v, act));
  }
  const bool tanh = act == FusedActivation::kTanh;
  for (; i < n; ++i)
    c[i] = ApplyActivation(c[i] + (bias ? bias[i] : 0.0f),
                           tanh ? FusedActivation::kNone : act);
  if (tanh) TanhInPlaceAvx2(c, n);
}

// One operand: a rows x cols block of a matrix, read as zero outside its
// valid part.
struct Block {
  const float* data;
  int ld;
  int rows, cols;  // valid part
};
Block Quadrant(const float* x, int ld, int rows, int cols, int r2, int c2,
               int qi, int qj) {
  Block b;
  b.data = x + static_cast<size_t>(qi * r2) * ld + qj * c2;
  b.ld = ld;
  b.rows = std::max(0, std::min(r2, rows - qi * r2));
  b.cols = std::max(0, std::min(c2, cols - qj * c2));
  return b;
}

// dst (r2 x c2, ld c2) = x + sign * y, zero-padded.
void Combine(const Block& x, const Block* y, float sign, int r2, int c2,
             float* dst) {
  for (int r = 0; r < r2; ++r) {
    float* d = dst + static_cast<size_t>(r) * c2;
    const int xc = r < x.rows ? x.cols : 0;
    const int yc = (y && r < y->rows) ? y->cols : 0;
    const int both = std::min(xc, yc);
    if (both > 0)
      AddRow(d, x.data + static_cast<size_t>(r) * x.ld,
             y->data + static_cast<size_t>(r) * y->ld, sign, both);
    for (int c = both; c < xc; ++c)
      d[c] = x.data[static_cast<size_t>(r) * x.ld + c];
    for (int c = both; c < yc; ++c)
      d[c] = sign * y->data[static_cast<size_t>(r) * y->ld + c];
    for (int c = std::max(xc, yc); c < c2; ++c) d[c] = 0.0f;
  }
}

// The 7 products, as (operand X quadrants) for A and (operand W quadrants)
// for the weights. A = [[A11, A12], [A21, A22]] (m x k); W = B^T with
// B = [[B11, B12], [B21, B22]] (k x n), so B_ij = (W_ji)^T.
struct Term {
  int qi0, qj0;  // first quadrant
  int qi1, qj1;  // second quadrant, or -1
  float sign;    // first + sign * second
};
// A operands: S1 = A11 + A22, S2 = A21 + A22, S3 = A11, S4 = A22,
// S5 = A11 + A12, S6 = A21 - A11, S7 = A12 - A22.
constexpr Term kA[7] = {{0, 0, 1, 1, 1},   {1, 0, 1, 1, 1}, {0, 0, -1, -1, 0},
                        {1, 1, -1, -1, 0}, {0, 0, 0, 1, 1}, {1, 0, 0, 0, -1},
                        {0, 1, 1, 1, -1}};
// B operands: T1 = B11 + B22, T2 = B11, T3 = B12 - B22, T4 = B21 - B11,
// T5 = B22, T6 = B11 + B12, T7 = B21 + B22; in W quadrants (B_ij = W_ji^T).
constexpr Term kW[7] = {{0, 0, 1, 1, 1},  {0, 0, -1, -1, 0}, {1, 0, 1, 1, -1},
                        {0, 1, 0, 0, -1}, {1, 1, -1, -1, 0}, {0, 0, 1, 0, 1},
                        {0, 1, 1, 1, 1}};
// Where each product goes: C11 = P1 + P4 - P5 + P7, C12 = P3 + P5,
// C21 = P2 + P4, C22 = P1 - P2 + P3 + P6 (quadrant, sign), in a fixed order.
struct Use {
  int product, qi, qj;
  float sign;
};
constexpr Use kUses[12] = {{0, 0, 0, 1},  {0, 1, 1, 1}, {1, 1, 0, 1},
                           {1, 1, 1, -1}, {2, 0, 1, 1}, {2, 1, 1, 1},
                           {3, 0, 0, 1},  {3, 1, 0, 1}, {4, 0, 0, -1},
                           {4, 0, 1, 1},  {5, 1, 1, 1}, {6, 0, 0, 1}};

void PrepareLevel(const float* w, int ld, int n, int k, int depth, bool avx512,
                  StrassenWeights* out) {
  if (depth == 0) {
    // Gather the valid n x k block densely, then pack.
    std::vector<float> dense(static_cast<size_t>(n) * k);
    for (int r = 0; r < n; ++r)
      std::memcpy(&dense[static_cast<size_t>(r) * k],
                  w + static_cast<size_t>(r) * ld, sizeof(float) * k);
    const size_t floats =
        avx512 ? PackedWeightsFloats512(n, k) : PackedWeightsFloats(n, k);
    const size_t offset = out->packed.size();
    out->packed.resize(offset + floats);
    if (avx512)
      PackWeightsNK512(dense.data(), n, k, out->packed.data() + offset);
    else
      PackWeightsNK(dense.data(), n, k, out->packed.data() + offset);
    out->leaf_offset.push_back(offset);
    return;
  }
  const int n2 = Half(n), k2 = Half(k);
  std::vector<float> operand(static_cast<size_t>(n2) * k2);
  for (int i = 0; i < 7; ++i) {
    const Term& t = kW[i];
    const Block x = Quadrant(w, ld, n, k, n2, k2, t.qi0, t.qj0);
    if (t.qi1 >= 0) {
      const Block y = Quadrant(w, ld, n, k, n2, k2, t.qi1, t.qj1);
      for (int r = 0; r < n2; ++r) {
        for (int c = 0; c < k2; ++c) {
          const float xv = r < x.rows && c < x.cols
                               ? x.data[static_cast<size_t>(r) * x.ld + c]
                               : 0.0f;
          const float yv = r < y.rows && c < y.cols
                               ? y.data[static_cast<size_t>(r) * y.ld + c]
                               : 0.0f;
          operand[static_cast<size_t>(r) * k2 + c] = xv + t.sign * yv;
        }
      }
    } else {
      for (int r = 0; r < n2; ++r) {
        for (int c = 0; c < k2; ++c) {
          operand[static_cast<size_t>(r) * k2 + c] =
              r < x.rows && c < x.cols
                  ? x.data[static_cast<size_t>(r) * x.ld + c]
                  : 0.0f;
        }
      }
    }
    PrepareLevel(operand.data(), k2, n2, k2, depth - 1, avx512, out);
  }
}

void Recurse(int depth, int m, int n, int k, const float* a, int lda,
             const StrassenWeights& w, size_t* leaf, GemmFn gemm, float* c,
             int ldc, float* scratch) {
  if (depth == 0) {
    gemm(m, n, k, a, lda, w.packed.data() + w.leaf_offset[(*leaf)++], nullptr,
         FusedActivation::kNone, c, ldc);
    return;
  }
  const int m2 = Half(m), n2 = Half(n), k2 = Half(k);
  float* s = scratch;
  float* prod = s + static_cast<size_t>(m2) * k2;
  float* child = prod + static_cast<size_t>(m2) * n2;
  for (int r = 0; r < m; ++r)
    std::memset(c + static_cast<size_t>(r) * ldc, 0, sizeof(float) * n);
  for (int i = 0; i < 7; ++i) {
    const Term& t = kA[i];
    const Block x = Quadrant(a, lda, m, k, m2, k2, t.qi0, t.qj0);
    if (t.qi1 >= 0) {
      const Block y = Quadrant(a, lda, m, k, m2, k2, t.qi1, t.qj1);
      Combine(x, &y, t.sign, m2, k2, s);
    } else {
      Combine(x, nullptr, 0.0f, m2, k2, s);
    }
    Recurse(depth - 1, m2, n2, k2, s, k2, w, leaf, gemm, prod, n2, child);
    for (const Use& u : kUses) {
      if (u.product != i) continue;
      const int rows = std::max(0, std::min(m2, m - u.qi * m2));
      const int cols = std::max(0, std::min(n2, n - u.qj * n2));
      for (int r = 0; r < rows; ++r) {
        AccumulateRow(c + static_cast<size_t>(u.qi * m2 + r) * ldc + u.qj * n2,
                      prod + static_cast<size_t>(r) * n2, u.sign, cols);
      }
    }
  }
}

}  // namespace

void PrepareStrassenWeights(const float* w, int n, int k, int depth,
                            bool avx512, StrassenWeights* out) {
  out->depth = depth;
  out->n = n;
  out->k = k;
  out->wide = avx512;
  out->packed.clear();
  out->leaf_offset.clear();
  PrepareLevel(w, k, n, k, depth, avx512, out);
}

size_t StrassenScratchFloats(int m, int n, int k, int depth) {
  size_t total = 0;
  for (int d = 0; d < depth; ++d) {
    m = Half(m);
    n = Half(n);
    k = Half(k);
    total += static_cast<size_t>(m) * k + static_cast<size_t>(m) * n;
  }
  return total;
}

void GemmStrassen(int m, const float* a, int lda, const StrassenWeights& w,
                  const float* bias, FusedActivation activation, GemmFn gemm,
                  float* c, int ldc, float* scratch) {
  if (w.depth == 0) {
    gemm(m, w.n, w.k, a, lda, w.packed.data(), bias, activation, c, ldc);
    return;
  }
  size_t leaf = 0;
  Recurse(w.depth, m, w.n, w.k, a, lda, w, &leaf, gemm, c, ldc, scratch);
  for (int r = 0; r < m; ++r)
    BiasActivationRow(c + static_cast<size_t>(r) * ldc, bias, activation, w.n);
}

}  // namespace rill::inference::cpu::x86
