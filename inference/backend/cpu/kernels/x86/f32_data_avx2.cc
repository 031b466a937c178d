#include "inference/backend/cpu/kernels/x86/f32_data_avx2.h"

#include "inference/backend/cpu/kernels/x86/cpu_features.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <limits>

// GCC 12's avx512fintrin.h max trips -Wmaybe-uninitialized (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {
namespace {

// The window of output pixel (oy, ox) clipped to the input.
struct Window {
  int y0, y1, x0, x1;
};

inline Window Clip(const PoolParams& p, int oy, int ox) {
  Window w;
  w.y0 = std::max(oy * p.stride_h - p.pad_top, 0);
  w.y1 = std::min(oy * p.stride_h - p.pad_top + p.kernel_h, p.in_h);
  w.x0 = std::max(ox * p.stride_w - p.pad_left, 0);
  w.x1 = std::min(ox * p.stride_w - p.pad_left + p.kernel_w, p.in_w);
  return w;
}

__attribute__((target("avx2,fma"))) void Activate(float* o, int n, FusedActivation act) {
  if (act == FusedActivation::kNone) return;
  for (int c = 0; c < n; ++c) o[c] = ApplyActivation(o[c], act);
}

// o[c] = max(o[c], src[c]) / o[c] += src[c] over c in [0, n), 8 at a time.
__attribute__((target("avx2,fma"))) inline void MaxInto(float* o, const float* src, long long n) {
  long long c = 0;
  for (; c + 8 <= n; c += 8) _mm256_storeu_ps(o + c, _mm256_max_ps(_mm256_loadu_ps(o + c), _mm256_loadu_ps(src + c)));
  for (; c < n; ++c) o[c] = std::max(o[c], src[c]);
}
__attribute__((target("avx2,fma"))) inline void AddInto(float* o, const float* src, long long n) {
  long long c = 0;
  for (; c + 8 <= n; c += 8) _mm256_storeu_ps(o + c, _mm256_add_ps(_mm256_loadu_ps(o + c), _mm256_loadu_ps(src + c)));
  for (; c < n; ++c) o[c] += src[c];
}
__attribute__((target("avx2,fma"))) inline void Fill(float* o, float v, long long n) {
  long long c = 0;
  const __m256 vv = _mm256_set1_ps(v);
  for (; c + 8 <= n; c += 8) _mm256_storeu_ps(o + c, vv);
  for (; c < n; ++c) o[c] = v;
}
// o[c] /= d (a true division, as the reference does).
__attribute__((target("avx2,fma"))) inline void DivideBy(float* o, float d, long long n) {
  long long c = 0;
  const __m256 dv = _mm256_set1_ps(d);
  for (; c + 8 <= n; c += 8) _mm256_storeu_ps(o + c, _mm256_div_ps(_mm256_loadu_ps(o + c), dv));
  for (; c < n; ++c) o[c] /= d;
}

// f(in_n, window, out_pixel) for every output pixel of output rows
// [row_begin, row_end) of batch*out_h: the pixel's image, its window clipped
// to the input, and where its channels go.
template <class F>
__attribute__((always_inline)) inline void ForEachPoolPixel(const PoolParams& p, const float* in, float* out,
                                                            int row_begin, int row_end, F&& f) {
  const int ch = p.channels;
  for (int row = row_begin; row < row_end; ++row) {
    const int n = row / p.out_h, oy = row % p.out_h;
    const float* in_n = in + static_cast<long long>(n) * p.in_h * p.in_w * ch;
    for (int ox = 0; ox < p.out_w; ++ox) {
      f(in_n, Clip(p, oy, ox), out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * ch);
    }
  }
}

// Pooling over output rows [row_begin, row_end): every output pixel starts
// at `init`, folds in the pixels of its clipped window with `fold`, and is
// averaged by the window's size when `average` is set.
template <void (*Fold)(float*, const float*, long long)>
__attribute__((target("avx2,fma"))) void Pool2DRows(const PoolParams& p, const float* in, float* out, int row_begin,
                                                    int row_end, float init, bool average) {
  const int ch = p.channels;
  auto pixel = [&](const float* in_n, const Window& w, float* o) __attribute__((target("avx2,fma"))) {
    Fill(o, init, ch);
    for (int y = w.y0; y < w.y1; ++y) {
      for (int x = w.x0; x < w.x1; ++x) Fold(o, in_n + (static_cast<long long>(y) * p.in_w + x) * ch, ch);
    }
    const int count = (w.y1 - w.y0) * (w.x1 - w.x0);
    if (average && count > 0) DivideBy(o, static_cast<float>(count), ch);
    Activate(o, ch, p.activation);
  };
  ForEachPoolPixel(p, in, out, row_begin, row_end, pixel);
}

// The same with AVX-512, accumulating in registers: each output pixel's
// channels go in groups of up to 4 vectors (64 channels) that fold the whole
// window before one store (the AVX2 loop above reads and writes the output
// once per window pixel). Same operations in the same order per channel.
template <bool kMax>
__attribute__((target("avx512f"))) void Pool2DRowsAvx512(const PoolParams& p, const float* in, float* out,
                                                         int row_begin, int row_end) {
  const int ch = p.channels;
  const __m512 init = _mm512_set1_ps(kMax ? -std::numeric_limits<float>::infinity() : 0.0f);
  auto pixel = [&](const float* in_n, const Window& w, float* o) __attribute__((target("avx512f"))) {
    const int count = (w.y1 - w.y0) * (w.x1 - w.x0);
    const __m512 divisor = _mm512_set1_ps(static_cast<float>(count));
    for (int c0 = 0; c0 < ch; c0 += 64) {
      const int left = std::min(64, ch - c0);
      const int vecs = (left + 15) / 16;
      __mmask16 mask[4];
      for (int v = 0; v < 4; ++v) mask[v] = simd::LaneMask(left - 16 * v);
      __m512 acc[4] = {init, init, init, init};
      for (int y = w.y0; y < w.y1; ++y) {
        const float* src = in_n + (static_cast<long long>(y) * p.in_w + w.x0) * ch + c0;
        for (int x = w.x0; x < w.x1; ++x, src += ch) {
          if (vecs == 4 && left == 64) {
#pragma GCC unroll 4
            for (int v = 0; v < 4; ++v) {
              const __m512 s = _mm512_loadu_ps(src + 16 * v);
              acc[v] = kMax ? _mm512_max_ps(acc[v], s) : _mm512_add_ps(acc[v], s);
            }
          } else {
            for (int v = 0; v < vecs; ++v) {
              const __m512 s = _mm512_maskz_loadu_ps(mask[v], src + 16 * v);
              acc[v] = kMax ? _mm512_max_ps(acc[v], s) : _mm512_add_ps(acc[v], s);
            }
          }
        }
      }
      for (int v = 0; v < vecs; ++v) {
        __m512 r = acc[v];
        if (!kMax && count > 0) r = _mm512_div_ps(r, divisor);
        _mm512_mask_storeu_ps(o + c0 + 16 * v, mask[v], r);
      }
    }
    Activate(o, ch, p.activation);
  };
  ForEachPoolPixel(p, in, out, row_begin, row_end, pixel);
}

}  // namespace

void MaxPool2DAvx2Rows(const PoolParams& p, const float* in, float* out, int row_begin, int row_end) {
  if (GetCpuFeatures().avx512f) return Pool2DRowsAvx512<true>(p, in, out, row_begin, row_end);
  Pool2DRows<MaxInto>(p, in, out, row_begin, row_end, -std::numeric_limits<float>::infinity(), false);
}

void AveragePool2DAvx2Rows(const PoolParams& p, const float* in, float* out, int row_begin, int row_end) {
  if (GetCpuFeatures().avx512f) return Pool2DRowsAvx512<false>(p, in, out, row_begin, row_end);
  Pool2DRows<AddInto>(p, in, out, row_begin, row_end, 0.0f, true);
}

bool PlanContiguousMean(const ReduceParams& p, MeanPlan* plan) {
  int first = -1, last = -1;
  for (int d = 0; d < p.rank; ++d) {
    if (!p.reduce[d]) continue;
    if (first < 0) first = d;
    if (last >= 0 && last != d - 1) return false;  // a gap: not one run
    last = d;
  }
  if (first < 0) return false;
  *plan = MeanPlan{};
  for (int d = 0; d < first; ++d) plan->outer *= p.in_dims[d];
  for (int d = first; d <= last; ++d) plan->middle *= p.in_dims[d];
  for (int d = last + 1; d < p.rank; ++d) plan->inner *= p.in_dims[d];
  return true;
}

__attribute__((target("avx2,fma"))) void MeanContiguousAvx2(const MeanPlan& plan, const float* in, float* out) {
  const long long middle = plan.middle, inner = plan.inner;
  const float divisor = middle > 0 ? static_cast<float>(middle) : 1.0f;
  for (long long o = 0; o < plan.outer; ++o) {
    float* dst = out + o * inner;
    const float* src = in + o * middle * inner;
    Fill(dst, 0.0f, inner);
    for (long long m = 0; m < middle; ++m) AddInto(dst, src + m * inner, inner);
    DivideBy(dst, divisor, inner);
  }
}

bool PlanBatched2DTranspose(const TransposeParams& p, TransposePlan* plan) {
  // Axes of size 1 move nothing: number the others in input order, then
  // merge output axes whose input axes are consecutive ((2, 3) -> one axis).
  int input_rank[TransposeParams::kMaxRank];
  for (int d = 0, k = 0; d < p.rank; ++d) input_rank[d] = p.in_dims[d] == 1 ? -1 : k++;
  int groups = 0;
  long long size[TransposeParams::kMaxRank];
  int first[TransposeParams::kMaxRank], last[TransposeParams::kMaxRank];
  for (int i = 0; i < p.rank; ++i) {
    const int r = input_rank[p.perm[i]];
    if (r < 0) continue;
    if (groups > 0 && r == last[groups - 1] + 1) {
      size[groups - 1] *= p.in_dims[p.perm[i]];
      last[groups - 1] = r;
      continue;
    }
    size[groups] = p.in_dims[p.perm[i]];
    first[groups] = last[groups] = r;
    ++groups;
  }
  TransposePlan t;
  for (int d = 0; d < p.rank; ++d) t.total *= p.in_dims[d];
  if (groups <= 1) {  // the identity in memory: rows = 1
    t.rows = 1;
    t.cols = t.total;
  } else if (groups == 2) {
    t.rows = size[1];  // input [rows, cols] = [group 1, group 0]
    t.cols = size[0];
  } else if (groups == 3 && first[0] < first[2] && first[2] < first[1]) {
    t.batch = size[0];
    t.rows = size[2];
    t.cols = size[1];
  } else {
    return false;
  }
  *plan = t;
  return true;
}

namespace {

// out[c][r] = in[r][c] for columns [c0, c1) of a [R, cols] matrix with few
// rows (NCHW -> NHWC of an image: R = 3): 16 columns at a time, each of the
// R output vectors gathered from the R row vectors by masked permutes.
template <int R>
__attribute__((target("avx512f"))) void TransposeFewRowsAvx512(const float* src, long long cols, float* dst,
                                                               long long c0, long long c1) {
  __m512i idx[R];
  __mmask16 mask[R][R] = {};
  for (int j = 0; j < R; ++j) {
    alignas(64) int lane_col[16];
    for (int l = 0; l < 16; ++l) {
      const int k = 16 * j + l;
      lane_col[l] = k / R;
      mask[j][k % R] = static_cast<__mmask16>(mask[j][k % R] | (1u << l));
    }
    idx[j] = _mm512_load_si512(lane_col);
  }
  long long c = c0;
  for (; c + 16 <= c1; c += 16) {
    __m512 v[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) v[r] = _mm512_loadu_ps(src + r * cols + c);
#pragma GCC unroll 8
    for (int j = 0; j < R; ++j) {
      __m512 o = _mm512_setzero_ps();
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) o = _mm512_mask_permutexvar_ps(o, mask[j][r], idx[j], v[r]);
      _mm512_storeu_ps(dst + c * R + 16 * j, o);
    }
  }
  for (; c < c1; ++c) {
    for (int r = 0; r < R; ++r) dst[c * R + r] = src[r * cols + c];
  }
}

}  // namespace

void TransposeBatched2D(const TransposePlan& t, const float* in, float* out) {
  TransposeBatched2DColumns(t, in, out, 0, t.cols);
}

void TransposeBatched2DColumns(const TransposePlan& t, const float* in, float* out, long long c_begin,
                               long long c_end) {
  const long long batch = t.batch, rows = t.rows, cols = t.cols;
  if (rows == 1 || cols == 1) {
    // The identity in memory: per batch, the columns' floats are one run.
    for (long long b = 0; b < batch; ++b) {
      const long long at = b * rows * cols + c_begin * rows;
      std::memcpy(out + at, in + at, static_cast<size_t>((c_end - c_begin) * rows) * sizeof(float));
    }
    return;
  }
  const bool avx512 = GetCpuFeatures().avx512f;
  for (long long b = 0; b < batch; ++b) {
    const float* src = in + b * rows * cols;
    float* dst = out + b * rows * cols;
    if (avx512 && rows <= 4) {
      switch (rows) {
        case 2: TransposeFewRowsAvx512<2>(src, cols, dst, c_begin, c_end); continue;
        case 3: TransposeFewRowsAvx512<3>(src, cols, dst, c_begin, c_end); continue;
        case 4: TransposeFewRowsAvx512<4>(src, cols, dst, c_begin, c_end); continue;
      }
    }
    // out[b][c][r] = in[b][r][c], in tiles that fit L1 on both sides.
    constexpr long long kTile = 32;
    for (long long r0 = 0; r0 < rows; r0 += kTile) {
      const long long r1 = std::min(rows, r0 + kTile);
      for (long long c0 = c_begin; c0 < c_end; c0 += kTile) {
        const long long c1 = std::min(c_end, c0 + kTile);
        for (long long c = c0; c < c1; ++c) {
          for (long long r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
        }
      }
    }
  }
}

void ConcatenationCopy(int num_inputs, const float* const* inputs, const long long* chunk, long long outer,
                       float* out) {
  for (long long o = 0; o < outer; ++o) {
    for (int i = 0; i < num_inputs; ++i) {
      std::memcpy(out, inputs[i] + o * chunk[i], static_cast<size_t>(chunk[i]) * sizeof(float));
      out += chunk[i];
    }
  }
}

void PadCopy(const PadParams& p, const float* in, float* out) {
  if (p.rank == 0) {
    out[0] = in[0];
    return;
  }
  long long out_total = 1;
  bool empty = false;
  for (int d = 0; d < p.rank; ++d) {
    out_total *= p.before[d] + p.in_dims[d] + p.after[d];
    empty = empty || p.in_dims[d] == 0;
  }
  if (empty) {
    std::fill(out, out + out_total, p.value);
    return;
  }
  // q: the innermost padded axis; everything inside it is one block.
  int q = 0;
  for (int d = 0; d < p.rank; ++d) {
    if (p.before[d] != 0 || p.after[d] != 0) q = d;
  }
  long long block = 1;
  for (int d = q + 1; d < p.rank; ++d) block *= p.in_dims[d];
  const long long in_row = p.in_dims[q] * block;
  const long long before = p.before[q] * block, after = p.after[q] * block;
  const long long out_row = before + in_row + after;
  // Odometer over axes [0, q) of the output; rows of padding get the value.
  long long out_strides[PadParams::kMaxRank];
  long long s = out_row;
  for (int d = q - 1; d >= 0; --d) {
    out_strides[d] = s;
    s *= p.before[d] + p.in_dims[d] + p.after[d];
  }
  // Rows made only of padding exist when an outer axis is padded; fill the
  // whole output first then. Otherwise every row is written exactly once.
  bool outer_padded = false;
  for (int d = 0; d < q; ++d) outer_padded = outer_padded || p.before[d] != 0 || p.after[d] != 0;
  if (outer_padded) std::fill(out, out + out_total, p.value);
  int index[PadParams::kMaxRank] = {};
  long long in_offset = 0;
  for (;;) {
    long long o = 0;
    for (int d = 0; d < q; ++d) o += (index[d] + p.before[d]) * out_strides[d];
    float* row = out + o;
    const float* src = in + in_offset;
    if (!outer_padded) {
      for (long long i = 0; i < before; ++i) row[i] = p.value;
      for (long long i = 0; i < after; ++i) row[before + in_row + i] = p.value;
    }
    if (in_row <= 64) {
      // Short rows (channel padding of one pixel): fixed-size copies, no call.
      long long i = 0;
      for (; i + 8 <= in_row; i += 8) __builtin_memcpy(row + before + i, src + i, 8 * sizeof(float));
      for (; i < in_row; ++i) row[before + i] = src[i];
    } else {
      std::memcpy(row + before, src, static_cast<size_t>(in_row) * sizeof(float));
    }
    in_offset += in_row;
    int d = q - 1;
    for (; d >= 0; --d) {
      if (++index[d] < p.in_dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
}

}  // namespace rill::inference::cpu::x86
