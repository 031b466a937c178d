#include "inference/backend/cpu/kernels/x86/f32_attention_avx512.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "inference/backend/cpu/kernels/x86/f32_math.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"

// GCC 12's avx512fintrin.h builds shuffles on _mm512_undefined_ps(), which
// -Wmaybe-uninitialized flags inside inlined intrinsics (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {

namespace {

constexpr int kMr = 6;  // rows per register tile
constexpr int kNb = 4;  // 16-float vectors per tile row: 64 columns
constexpr int kCols = 16 * kNb;
constexpr int kRowBlock = AttentionKernels::kRowBlock;

long long Round16(long long v) { return (v + 15) / 16 * 16; }

// x[i] (row i of a 16 x 16 block) becomes column i. Three steps, each
// pairing the results of the last: 2 x 2 blocks of single floats within each
// 128-bit lane (unpack), 2 x 2 blocks of float pairs (shuffle_ps), then the
// 4 x 4 grid of 128-bit lanes (two rounds of shuffle_f32x4).
__attribute__((target("avx512f"), always_inline)) inline void Transpose16(__m512 (&x)[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(x[i], x[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(x[i], x[i + 1]);
  }
  // u[4g + c]: in 128-bit lane L, rows 4g..4g+3 of column 4L + c.
  __m512 u[16];
  for (int g = 0; g < 4; ++g) {
    const __m512 lo01 = t[4 * g], hi01 = t[4 * g + 1], lo23 = t[4 * g + 2], hi23 = t[4 * g + 3];
    u[4 * g + 0] = _mm512_shuffle_ps(lo01, lo23, _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * g + 1] = _mm512_shuffle_ps(lo01, lo23, _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * g + 2] = _mm512_shuffle_ps(hi01, hi23, _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * g + 3] = _mm512_shuffle_ps(hi01, hi23, _MM_SHUFFLE(3, 2, 3, 2));
  }
  // Lanes (0, 2) and (1, 3) of row groups 0|1 and 2|3, then of those.
  for (int c = 0; c < 4; ++c) {
    const __m512 even01 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
    const __m512 odd01 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
    const __m512 even23 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
    const __m512 odd23 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
    x[c] = _mm512_shuffle_f32x4(even01, even23, 0x88);       // lane 0: column c
    x[8 + c] = _mm512_shuffle_f32x4(even01, even23, 0xDD);   // lane 2: column 8 + c
    x[4 + c] = _mm512_shuffle_f32x4(odd01, odd23, 0x88);     // lane 1: column 4 + c
    x[12 + c] = _mm512_shuffle_f32x4(odd01, odd23, 0xDD);    // lane 3: column 12 + c
  }
}

// The scores' epilogue: scale (skipped at 1), then the bias row (null:
// none) of each tile row, `bias_step` floats apart (0: one row for all).
struct Epilogue {
  float scale = 1.0f;
  const float* bias = nullptr;
  long long bias_step = 0;
  const float* row_scale = nullptr;  // P V's: each row times its softmax's 1 / sum
};

// c[MR, NB * 16] = a[MR, k] b[k, NB * 16] (a's rows lda apart, b's ldb),
// the last vector of each row masked to `last` (loads and stores).
template <int MR, int NB>
__attribute__((target("avx512f"))) void Tile(int k, const float* a, long long lda, const float* b, long long ldb,
                                             __mmask16 last, float* c, long long ldc, const Epilogue& e) {
  __m512 acc[MR][NB];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    __m512 bv[NB];
#pragma GCC unroll 4
    for (int v = 0; v < NB - 1; ++v) bv[v] = _mm512_loadu_ps(bp + 16 * v);
    bv[NB - 1] = _mm512_maskz_loadu_ps(last, bp + 16 * (NB - 1));
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  if (e.scale != 1.0f) {
    const __m512 s = _mm512_set1_ps(e.scale);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_mul_ps(acc[r][v], s);
    }
  }
  if (e.bias != nullptr) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const float* br = e.bias + r * e.bias_step;
#pragma GCC unroll 4
      for (int v = 0; v < NB - 1; ++v) acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_loadu_ps(br + 16 * v));
      acc[r][NB - 1] = _mm512_add_ps(acc[r][NB - 1], _mm512_maskz_loadu_ps(last, br + 16 * (NB - 1)));
    }
  }
  if (e.row_scale != nullptr) {
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m512 s = _mm512_set1_ps(e.row_scale[r]);
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) acc[r][v] = _mm512_mul_ps(acc[r][v], s);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NB - 1; ++v) _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
    _mm512_mask_storeu_ps(c + r * ldc + 16 * (NB - 1), last, acc[r][NB - 1]);
  }
}

using TileFn = void (*)(int, const float*, long long, const float*, long long, __mmask16, float*, long long,
                        const Epilogue&);
template <int MR, int... V>
constexpr std::array<TileFn, kNb> TileRow(std::integer_sequence<int, V...>) {
  return {Tile<MR, V + 1>...};
}
template <int... R>
constexpr std::array<std::array<TileFn, kNb>, kMr> TileTable(std::integer_sequence<int, R...>) {
  return {TileRow<R + 1>(std::make_integer_sequence<int, kNb>{})...};
}
// kTiles[rows - 1][vectors - 1]
constexpr auto kTiles = TileTable(std::make_integer_sequence<int, kMr>{});

// c[rows, cols] = a[rows, k] b[k, cols] in tiles of at most kMr rows (of
// near-equal heights) and kCols columns, columns outermost (b's block stays
// in L1 across the row tiles). `e.bias` is row 0's, column 0's.
void Product(int rows, int cols, int k, const float* a, long long lda, const float* b, long long ldb, float* c,
             long long ldc, const Epilogue& e) {
  const int tiles = (rows + kMr - 1) / kMr;
  if (tiles == 0) return;
  const int low = rows / tiles, tall = rows % tiles;
  for (int c0 = 0; c0 < cols; c0 += kCols) {
    const int width = std::min(kCols, cols - c0);
    const int vectors = (width + 15) / 16;
    const __mmask16 last = simd::LaneMask(width - 16 * (vectors - 1));
    for (int t = 0, r = 0; t < tiles; ++t) {
      const int mr = t < tall ? low + 1 : low;
      Epilogue te = e;
      if (te.bias != nullptr) te.bias += r * te.bias_step + c0;
      if (te.row_scale != nullptr) te.row_scale += r;
      kTiles[mr - 1][vectors - 1](k, a + r * lda, lda, b + c0, ldb, last, c + r * ldc + c0, ldc, te);
      r += mr;
    }
  }
}

// Each of `rows` rows of n scores (`ld` apart) becomes exp(s - max of its
// row), and inv[row] 1 / their sum: the softmax but for the division, which
// P V's epilogue applies to its sums. Four accumulators per reduction.
__attribute__((target("avx512f"))) void ExpRows(int rows, int n, float* s, long long ld, float* inv) {
  const int full = n / 16 * 16;
  const __mmask16 tail = simd::LaneMask(n - full);
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int i = 0; i < rows; ++i) {
    float* x = s + i * ld;
    __m512 mx[4] = {neg_inf, neg_inf, neg_inf, neg_inf};
    int j = 0;
    for (; j + 64 <= full; j += 64) {
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) mx[u] = _mm512_max_ps(mx[u], _mm512_loadu_ps(x + j + 16 * u));
    }
    for (; j < full; j += 16) mx[0] = _mm512_max_ps(mx[0], _mm512_loadu_ps(x + j));
    if (full < n) mx[1] = _mm512_mask_max_ps(mx[1], tail, mx[1], _mm512_maskz_loadu_ps(tail, x + full));
    const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(mx[0], mx[1]),
                                                                         _mm512_max_ps(mx[2], mx[3]))));
    __m512 sum[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    j = 0;
    for (; j + 32 <= full; j += 32) {
#pragma GCC unroll 2
      for (int u = 0; u < 2; ++u) {
        const __m512 e = vmath::ExpScalef(_mm512_sub_ps(_mm512_loadu_ps(x + j + 16 * u), m));
        _mm512_storeu_ps(x + j + 16 * u, e);
        sum[u] = _mm512_add_ps(sum[u], e);
      }
    }
    for (; j < full; j += 16) {
      const __m512 e = vmath::ExpScalef(_mm512_sub_ps(_mm512_loadu_ps(x + j), m));
      _mm512_storeu_ps(x + j, e);
      sum[0] = _mm512_add_ps(sum[0], e);
    }
    if (full < n) {
      const __m512 e = vmath::ExpScalef(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, x + full), m));
      _mm512_mask_storeu_ps(x + full, tail, e);
      sum[1] = _mm512_mask_add_ps(sum[1], tail, sum[1], e);
    }
    inv[i] = 1.0f / _mm512_reduce_add_ps(_mm512_add_ps(sum[0], sum[1]));
  }
}

}  // namespace

__attribute__((target("avx512f"))) void TransposeToRowsAvx512(const float* in, int rows, int cols, long long ld_in,
                                                               float* out, long long ld_out) {
  for (int r0 = 0; r0 < rows; r0 += 16) {
    const int rr = std::min(16, rows - r0);
    for (int c0 = 0; c0 < cols; c0 += 16) {
      const int cc = std::min(16, cols - c0);
      const __mmask16 cm = simd::LaneMask(cc);
      __m512 x[16];
      for (int i = 0; i < 16; ++i) {
        x[i] = i < rr ? _mm512_maskz_loadu_ps(cm, in + (r0 + i) * ld_in + c0) : _mm512_setzero_ps();
      }
      Transpose16(x);
      for (int j = 0; j < cc; ++j) _mm512_storeu_ps(out + (c0 + j) * ld_out + r0, x[j]);
    }
  }
}

size_t AttentionKeysFloatsAvx512(int n, int d) { return static_cast<size_t>(d) * Round16(n); }

void AttentionKeysAvx512(const AttentionHead& h, float* keys) {
  // K^T as given needs no copy (AttentionRowsAvx512 reads it in place).
  if (!h.k_transposed) TransposeToRowsAvx512(h.k, h.n, h.d, h.ldk, keys, Round16(h.n));
}

size_t AttentionScoresFloatsAvx512(int n) { return static_cast<size_t>(kRowBlock) * n; }

void AttentionRowsAvx512(const AttentionHead& h, const float* keys, int r0, int r1, float* scores) {
  const float* kt = h.k_transposed ? h.k : keys;
  const long long ldkt = h.k_transposed ? h.ldk : Round16(h.n);
  for (int b0 = r0; b0 < r1; b0 += kRowBlock) {
    const int rows = std::min(kRowBlock, r1 - b0);
    Epilogue e;
    e.scale = h.scale;
    if (h.bias != nullptr) {
      e.bias = h.bias_per_query ? h.bias + b0 * h.bias_ld : h.bias;
      e.bias_step = h.bias_per_query ? h.bias_ld : 0;
    }
    Product(rows, h.n, h.d, h.q + b0 * h.ldq, h.ldq, kt, ldkt, scores, h.n, e);
    float inv[kRowBlock];
    ExpRows(rows, h.n, scores, h.n, inv);
    Epilogue normalize;
    normalize.row_scale = inv;
    Product(rows, h.dv, h.n, scores, h.n, h.v, h.ldv, h.out + b0 * h.ldo, h.ldo, normalize);
  }
}

}  // namespace rill::inference::cpu::x86
