#include "inference/backend/cpu/kernels/x86/f32_gemm_6x32_avx512.h"

#include <immintrin.h>

#include <array>
#include <type_traits>
#include <utility>

#include "inference/backend/cpu/kernels/ref/dequantize.h"

#include "inference/backend/cpu/kernels/x86/f32_math.h"
#include "inference/backend/cpu/kernels/x86/f32_simd.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

// GCC 12's avx512fintrin.h builds min/max on _mm512_undefined_ps(), which
// -Wmaybe-uninitialized flags inside inlined intrinsics (a false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace rill::inference::cpu::x86 {

namespace {
constexpr int kMr = 6;
constexpr int kNr = kGemm512Nr;
// k steps per pass over C. A tile sums its whole K in registers and
// stores C once: with chunks of 256 (a 32 KB panel chunk kept in L1) every
// chunk reloaded and stored C, which for the transformers' wide FCs (197 x
// 2304 or 3072 floats, more than the 1 MB L2) came from L3 each time.
// Streaming the whole panel from L2 instead measured 7% faster over
// //benchmarks:fc_gemm's shapes (vit_b_16 qkv/mlp1 10-13%, resnet50's
// K = 576-4608 convolutions 3-9%, none slower; chunks of 1024 were between).
// Past kKcMax the panel would outgrow L2: equal chunks.
constexpr int kKcMax = 8192;
constexpr int kKcHalf = 128;         // k steps per converted chunk of half panels
constexpr int kHalfBufferRows = 48;  // rows from which a half panel is converted once
// Full panels go two at a time (PairKernel512's 6 x 64 tiles) for K > 64
// and at least kPairMinRows rows: over //benchmarks:fc_gemm's shapes 12%
// faster (Zen 5: vit_b_16 qkv 3.9 -> 3.5 ms, Swin-T stage 1 12%), the same
// sums in the same order; at 49 rows (Swin-T stage 4, resnet50 layer 4, a
// thread's row block of 196) 5-20% faster in three alternated rounds. Small
// K keeps the multi-tile calls.
constexpr int kPairMinRows = 48;
}  // namespace

size_t PackedWeightsFloats512(int n, int k) {
  return static_cast<size_t>((n + kNr - 1) / kNr) * kNr * static_cast<size_t>(k);
}

namespace {
// [n, k] row-major into 32-column panels ([panel][k][32], zero columns past
// n), each value through `convert`.
template <typename T, typename Convert>
void PackPanels(const float* w, int n, int k, T* packed, Convert convert) {
  const int panels = (n + kNr - 1) / kNr;
  for (int p = 0; p < panels; ++p) {
    T* dst = packed + static_cast<size_t>(p) * kNr * k;
    for (int kk = 0; kk < k; ++kk) {
      for (int j = 0; j < kNr; ++j) {
        const int col = p * kNr + j;
        dst[kk * kNr + j] = convert(col < n ? w[static_cast<size_t>(col) * k + kk] : 0.0f);
      }
    }
  }
}
}  // namespace

void PackWeightsNK512(const float* w, int n, int k, float* packed) {
  PackPanels(w, n, k, packed, [](float v) { return v; });
}

void PackWeightsNK512Half(const float* w, int n, int k, uint16_t* packed) {
  PackPanels(w, n, k, packed, FloatToHalf);
}

namespace {

// MR rows x NB 16-column vectors of C. NB = 2 is the 6x32 kernel; NB = 1
// takes panels of at most 16 valid columns (N = 16 or 24's last part:
// MobileNet's 16- and 24-channel projections) with up to 12 rows, instead of
// computing 32 columns of which half are padding.
// `res` (null: none): a residual added before the activation, `res_ld`
// floats between its rows, `res_cols` of the tile's columns present in it.
__attribute__((target("avx512f"), always_inline)) inline __m512 LoadPanel(const float* w) { return _mm512_loadu_ps(w); }
__attribute__((target("avx512f"), always_inline)) inline __m512 LoadPanel(const uint16_t* w) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
}

// The accumulators' start: the partial sums in C (`accumulate`) or the bias;
// the store masks of the tile's columns; the residual's lines requested.
template <int MR, int NB>
__attribute__((target("avx512f"), always_inline)) inline void TileStart(__m512 (&acc)[NB][MR], __mmask16 (&mask)[NB],
                                                                        const float* bias32, bool accumulate,
                                                                        const float* c, int ldc, int nr,
                                                                        const float* res, int res_ld) {
  // Columns [0, 16) and [16, 32) each get a store mask for the last panel.
#pragma GCC unroll 4
  for (int v = 0; v < NB; ++v) mask[v] = simd::LaneMask(nr - 16 * v);
  if (accumulate) {
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) acc[v][r] = _mm512_maskz_loadu_ps(mask[v], c + static_cast<size_t>(r) * ldc + 16 * v);
    }
  } else {
#pragma GCC unroll 4
    for (int v = 0; v < NB; ++v) {
      const __m512 b = _mm512_loadu_ps(bias32 + 16 * v);
#pragma GCC unroll 12
      for (int r = 0; r < MR; ++r) acc[v][r] = b;
    }
  }
  if (res != nullptr) {
    // The residual is read after the k loop: ask for its lines now, so the
    // loads do not wait on memory at the end of every tile.
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) _mm_prefetch(reinterpret_cast<const char*>(res + static_cast<size_t>(r) * res_ld + 16 * v), _MM_HINT_T0);
    }
  }
}

// The epilogue: residual, activation, masked stores.
template <int MR, int NB>
__attribute__((target("avx512f"), always_inline)) inline void TileFinish(__m512 (&acc)[NB][MR],
                                                                         const __mmask16 (&mask)[NB],
                                                                         FusedActivation act, float* c, int ldc,
                                                                         int nr, const float* res, int res_ld,
                                                                         int res_cols) {
  if (res != nullptr && res_cols > 0) {
    const int cols = res_cols < nr ? res_cols : nr;
    __mmask16 rmask[NB];
#pragma GCC unroll 4
    for (int v = 0; v < NB; ++v) rmask[v] = simd::LaneMask(cols - 16 * v);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) {
        acc[v][r] = _mm512_add_ps(acc[v][r], _mm512_maskz_loadu_ps(rmask[v], res + static_cast<size_t>(r) * res_ld + 16 * v));
      }
    }
  }
  float lo_s, hi_s;
  if (simd::ClampBounds(act, &lo_s, &hi_s)) {
    const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NB; ++v) acc[v][r] = _mm512_min_ps(_mm512_max_ps(acc[v][r], lo), hi);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NB; ++v) _mm512_mask_storeu_ps(c + static_cast<size_t>(r) * ldc + 16 * v, mask[v], acc[v][r]);
  }
  // tanh on the stored rows, still in L1 (in registers it would inline the
  // function NB * MR times into every kernel).
  if (act == FusedActivation::kTanh) {
    for (int r = 0; r < MR; ++r) TanhInPlaceAvx512(c + static_cast<size_t>(r) * ldc, nr);
  }
}

template <int MR, int NB, typename W>
__attribute__((target("avx512f"), always_inline)) inline void Tile512(int k, const float* a, int lda, const W* w,
                                                                      const float* bias32, bool accumulate,
                                                                      FusedActivation act, float* c, int ldc, int nr,
                                                                      const float* res, int res_ld, int res_cols) {
  __m512 acc[NB][MR];
  __mmask16 mask[NB];
  TileStart<MR, NB>(acc, mask, bias32, accumulate, c, ldc, nr, res, res_ld);
  const float* arow[MR];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) arow[r] = a + static_cast<size_t>(r) * lda;
  for (int p = 0; p < k; ++p) {
    __m512 wv[NB];
#pragma GCC unroll 2
    for (int v = 0; v < NB; ++v) wv[v] = LoadPanel(w + p * kNr + 16 * v);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(arow[r][p]);
#pragma GCC unroll 2
      for (int v = 0; v < NB; ++v) acc[v][r] = _mm512_fmadd_ps(av, wv[v], acc[v][r]);
    }
  }
  TileFinish<MR, NB>(acc, mask, act, c, ldc, nr, res, res_ld, res_cols);
}

// `blocks` tiles of MR rows one below the other in one call. With K <= 64
// (the expand convs of MobileNetV2's blocks: K = 16-64) a call per tile cost
// a third of the time (device Xeon, m1344 n144 k24: 41 -> 66 GMAC/s); with
// larger K it is noise, and calls over thousands of rows measured slower
// (m3136 n64 k64), so the driver hands out up to 8 tiles per call, for
// small K only.
template <int MR, int NB, typename W>
__attribute__((target("avx512f"))) void MicroKernel512(int blocks, int k, const float* a, int lda, const W* w,
                                                        const float* bias32, bool accumulate, FusedActivation act,
                                                        float* c, int ldc, int nr, const float* res, int res_ld,
                                                        int res_cols) {
  for (int b = 0; b < blocks; ++b) {
    Tile512<MR, NB, W>(k, a + static_cast<size_t>(b) * MR * lda, lda, w, bias32, accumulate, act,
                    c + static_cast<size_t>(b) * MR * ldc, ldc, nr,
                    res ? res + static_cast<size_t>(b) * MR * res_ld : nullptr, res_ld, res_cols);
  }
}

// Two neighbouring full panels at once: MR rows x 64 columns (24 zmm
// accumulators at MR = 6), each broadcast of A feeding four FMAs instead of
// two. `w` is the first panel's chunk, `w_next` the second's.
template <int MR>
__attribute__((target("avx512f"))) void PairKernel512(int k, const float* a, int lda, const float* w,
                                                       const float* w_next, const float* bias64, bool accumulate,
                                                       FusedActivation act, float* c, int ldc, const float* res,
                                                       int res_ld, int res_cols) {
  __m512 acc[4][MR];
  __mmask16 mask[4];
  TileStart<MR, 4>(acc, mask, bias64, accumulate, c, ldc, 2 * kNr, res, res_ld);
  const float* arow[MR];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) arow[r] = a + static_cast<size_t>(r) * lda;
  for (int p = 0; p < k; ++p) {
    const __m512 w0 = _mm512_loadu_ps(w + p * kNr), w1 = _mm512_loadu_ps(w + p * kNr + 16);
    const __m512 w2 = _mm512_loadu_ps(w_next + p * kNr), w3 = _mm512_loadu_ps(w_next + p * kNr + 16);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      const __m512 av = _mm512_set1_ps(arow[r][p]);
      acc[0][r] = _mm512_fmadd_ps(av, w0, acc[0][r]);
      acc[1][r] = _mm512_fmadd_ps(av, w1, acc[1][r]);
      acc[2][r] = _mm512_fmadd_ps(av, w2, acc[2][r]);
      acc[3][r] = _mm512_fmadd_ps(av, w3, acc[3][r]);
    }
  }
  TileFinish<MR, 4>(acc, mask, act, c, ldc, 2 * kNr, res, res_ld, res_cols);
}
using PairKernelFn = void (*)(int, const float*, int, const float*, const float*, const float*, bool,
                              FusedActivation, float*, int, const float*, int, int);
template <int... R>
constexpr std::array<PairKernelFn, sizeof...(R) + 1> PairTable(std::integer_sequence<int, R...>) {
  return {nullptr, PairKernel512<R + 1>...};
}
constexpr auto kPairKernels = PairTable(std::make_integer_sequence<int, kMr>{});

template <typename W>
using MicroKernelFn = void (*)(int, int, const float*, int, const W*, const float*, bool, FusedActivation, float*,
                               int, int, const float*, int, int);
// kernels[r]: r rows (1..count), NB 16-column vectors; [0] unused.
template <typename W, int NB, int... R>
constexpr std::array<MicroKernelFn<W>, sizeof...(R) + 1> KernelTable(std::integer_sequence<int, R...>) {
  return {nullptr, MicroKernel512<R + 1, NB, W>...};
}
template <typename W>
constexpr auto kKernels = KernelTable<W, 2>(std::make_integer_sequence<int, kMr>{});
// Narrow panels (at most 16 valid columns): 12 rows per call.
constexpr int kMrNarrow = 12;
template <typename W>
constexpr auto kNarrowKernels = KernelTable<W, 1>(std::make_integer_sequence<int, kMrNarrow>{});

// Half panels: one k chunk of one panel converted to fp32 (exact) into a
// buffer in L1 before the row tiles run over it: 2 conversions per k step,
// shared by all the call's row tiles.
__attribute__((target("avx512f"))) void HalfPanelToFloat(const uint16_t* src, int count, float* dst) {
  for (int i = 0; i < count; i += 16) {
    _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
  }
}

// One panel's share of a k chunk, for both drivers: its columns, the bias
// (first chunk only; 0 after), the residual's columns (last chunk only) and
// the tile family of its width.
struct PanelChunk {
  int col = 0, nr = 0;
  alignas(64) float bias32[kNr] = {};
  const float* res = nullptr;  // residual + col, or null
  int res_cols = 0;
  bool narrow = false;  // at most 16 valid columns: the 12x16 tiles
  int max_rows = kMr;

  PanelChunk(int p, int n, const float* bias, bool first, bool last, const float* residual, int res_c) {
    col = p * kNr;
    nr = n - col < kNr ? n - col : kNr;
    if (bias && first) {
      for (int j = 0; j < nr; ++j) bias32[j] = bias[col + j];
    }
    // The residual joins at the last k chunk, before the activation.
    if (last && residual != nullptr && col < res_c) {
      res = residual + col;
      res_cols = res_c - col;
    }
    narrow = nr <= 16;
    max_rows = narrow ? kMrNarrow : kMr;
  }
};

// `rows` in tiles of near-equal height, at most `max_rows` (49 = 4 x 6 + 5 x
// 5, not 8 x 6 + 1: a one-row tile costs most of a full one): the first
// `tall` tiles have `low + 1` rows, the others `low`.
struct RowTiles {
  int tiles, tall, low;
  RowTiles(int rows, int max_rows)
      : tiles((rows + max_rows - 1) / max_rows), tall(rows % tiles), low(rows / tiles) {}
};

// W = float (PackWeightsNK512) or uint16_t (PackWeightsNK512Half).
template <typename W>
void GemmDriver(int m, int n, int k, const float* a, int lda, const W* packed_w, const float* bias,
                FusedActivation activation, float* c, int ldc, const float* residual, int res_ld, int res_c) {
  constexpr bool kHalf = std::is_same_v<W, uint16_t>;
  // Half panels with many rows: converted once per chunk of kKcHalf k steps
  // into wbuf (16 KB of fp32, which with the rows of A stays in a 32 KB L1),
  // shared by all row tiles; with few rows the microkernel converts in its
  // registers (2 conversions per k step and tile). The sums continue across
  // chunks in the same order, so neither changes a result.
  alignas(64) float wbuf[kHalf ? kKcHalf * kNr : 1];
  const bool buffered = kHalf && m >= kHalfBufferRows;
  const int chunks = k > kKcMax ? (k + kKcMax - 1) / kKcMax : 1;
  const int kChunk = buffered ? kKcHalf : (k + chunks - 1) / chunks;
  const int panels = (n + kNr - 1) / kNr;
  for (int k0 = 0; k0 < k || k0 == 0; k0 += kChunk) {
    const int kc = k - k0 < kChunk ? k - k0 : kChunk;
    const bool first = k0 == 0;
    const bool last = k0 + kc >= k;
    const FusedActivation act = last ? activation : FusedActivation::kNone;
    for (int p = 0; p < panels; ++p) {
      const PanelChunk pc(p, n, bias, first, last, residual, res_c);
      const W* wp = packed_w + static_cast<size_t>(p) * kNr * k + static_cast<size_t>(k0) * kNr;
      if constexpr (!kHalf) {
        if (kc > 64 && m >= kPairMinRows && p + 1 < panels && n - pc.col >= 2 * kNr) {
          // Two full panels: 6 x 64 tiles.
          const PanelChunk next(p + 1, n, bias, first, last, residual, res_c);
          alignas(64) float bias64[2 * kNr];
          for (int j = 0; j < kNr; ++j) {
            bias64[j] = pc.bias32[j];
            bias64[kNr + j] = next.bias32[j];
          }
          const RowTiles split(m, kMr);
          for (int t = 0, row = 0; t < split.tiles; ++t) {
            const int mr = t < split.tall ? split.low + 1 : split.low;
            kPairKernels[mr](kc, a + static_cast<size_t>(row) * lda + k0, lda, wp, wp + static_cast<size_t>(kNr) * k,
                             bias64, !first, act, c + static_cast<size_t>(row) * ldc + pc.col, ldc,
                             pc.res ? pc.res + static_cast<size_t>(row) * res_ld : nullptr, res_ld, pc.res_cols);
            row += mr;
          }
          ++p;
          continue;
        }
      }
      // A call takes all tiles of one height (K <= 64) or one tile.
      const RowTiles split(m, pc.max_rows);
      auto rows = [&](auto* w) {
        using T = std::remove_const_t<std::remove_pointer_t<decltype(w)>>;
        const MicroKernelFn<T>* kernels = pc.narrow ? kNarrowKernels<T>.data() : kKernels<T>.data();
        for (int run = 0, row = 0; run < 2; ++run) {
          const int count = run == 0 ? split.tall : split.tiles - split.tall;
          const int mr = run == 0 ? split.low + 1 : split.low;
          if (mr == 0) continue;
          const int batch = kc <= 64 ? 8 : 1;
          for (int done = 0; done < count; done += batch) {
            const int per_call = count - done < batch ? count - done : batch;
            kernels[mr](per_call, kc, a + static_cast<size_t>(row) * lda + k0, lda, w, pc.bias32, !first, act,
                        c + static_cast<size_t>(row) * ldc + pc.col, ldc, pc.nr,
                        pc.res ? pc.res + static_cast<size_t>(row) * res_ld : nullptr, res_ld, pc.res_cols);
            row += per_call * mr;
          }
        }
      };
      if (buffered) {
        HalfPanelToFloat(reinterpret_cast<const uint16_t*>(wp), kc * kNr, wbuf);
        rows(static_cast<const float*>(wbuf));
      } else {
        rows(wp);
      }
    }
    if (k == 0) break;
  }
}

}  // namespace

void GemmF32Avx512(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                   FusedActivation activation, float* c, int ldc) {
  GemmDriver(m, n, k, a, lda, packed_w, bias, activation, c, ldc, nullptr, 0, 0);
}

void GemmF32Avx512Residual(int m, int n, int k, const float* a, int lda, const float* packed_w, const float* bias,
                           FusedActivation activation, float* c, int ldc, const float* residual, int res_ld,
                           int res_c) {
  GemmDriver(m, n, k, a, lda, packed_w, bias, activation, c, ldc, residual, res_ld, res_c);
}

void GemmF16wAvx512(int m, int n, int k, const float* a, int lda, const uint16_t* packed_w, const float* bias,
                    FusedActivation activation, float* c, int ldc) {
  GemmDriver(m, n, k, a, lda, packed_w, bias, activation, c, ldc, nullptr, 0, 0);
}

void GemmF16wAvx512Residual(int m, int n, int k, const float* a, int lda, const uint16_t* packed_w,
                            const float* bias, FusedActivation activation, float* c, int ldc, const float* residual,
                            int res_ld, int res_c) {
  GemmDriver(m, n, k, a, lda, packed_w, bias, activation, c, ldc, residual, res_ld, res_c);
}

namespace {

template <typename W>
__attribute__((target("avx512f"))) void Gemv(int n, int k, const float* x, const W* packed_w, const float* bias,
                                              FusedActivation activation, float* y) {
  const int panels = (n + kNr - 1) / kNr;
  float lo_s, hi_s;
  const bool clamp = simd::ClampBounds(activation, &lo_s, &hi_s);
  const __m512 lo = _mm512_set1_ps(lo_s), hi = _mm512_set1_ps(hi_s);
  for (int p = 0; p < panels; ++p) {
    const W* w = packed_w + static_cast<size_t>(p) * kNr * k;
    __m512 even0 = _mm512_setzero_ps(), even1 = _mm512_setzero_ps();
    __m512 odd0 = _mm512_setzero_ps(), odd1 = _mm512_setzero_ps();
    int kk = 0;
    for (; kk + 2 <= k; kk += 2) {
      const __m512 x0 = _mm512_set1_ps(x[kk]), x1 = _mm512_set1_ps(x[kk + 1]);
      even0 = _mm512_fmadd_ps(x0, LoadPanel(w + kk * kNr), even0);
      even1 = _mm512_fmadd_ps(x0, LoadPanel(w + kk * kNr + 16), even1);
      odd0 = _mm512_fmadd_ps(x1, LoadPanel(w + kk * kNr + 32), odd0);
      odd1 = _mm512_fmadd_ps(x1, LoadPanel(w + kk * kNr + 48), odd1);
    }
    if (kk < k) {
      const __m512 x0 = _mm512_set1_ps(x[kk]);
      even0 = _mm512_fmadd_ps(x0, LoadPanel(w + kk * kNr), even0);
      even1 = _mm512_fmadd_ps(x0, LoadPanel(w + kk * kNr + 16), even1);
    }
    const int col = p * kNr;
    const int nr = n - col < kNr ? n - col : kNr;
    const __mmask16 m0 = simd::LaneMask(nr), m1 = simd::LaneMask(nr - 16);
    __m512 y0 = _mm512_add_ps(even0, odd0), y1 = _mm512_add_ps(even1, odd1);
    if (bias) {
      y0 = _mm512_add_ps(y0, _mm512_maskz_loadu_ps(m0, bias + col));
      y1 = _mm512_add_ps(y1, _mm512_maskz_loadu_ps(m1, bias + col + 16));
    }
    if (clamp) {
      y0 = _mm512_min_ps(_mm512_max_ps(y0, lo), hi);
      y1 = _mm512_min_ps(_mm512_max_ps(y1, lo), hi);
    } else if (activation == FusedActivation::kTanh) {
      y0 = vmath::Tanh(y0);
      y1 = vmath::Tanh(y1);
    }
    _mm512_mask_storeu_ps(y + col, m0, y0);
    _mm512_mask_storeu_ps(y + col + 16, m1, y1);
  }
}
}  // namespace

void GemvF32Avx512(int n, int k, const float* x, const float* packed_w, const float* bias, FusedActivation activation,
                   float* y) {
  Gemv(n, k, x, packed_w, bias, activation, y);
}

void GemvF16wAvx512(int n, int k, const float* x, const uint16_t* packed_w, const float* bias,
                    FusedActivation activation, float* y) {
  Gemv(n, k, x, packed_w, bias, activation, y);
}

// ---- bfloat16 ----

size_t PackedWeightsBf16(int n, int k) {
  return static_cast<size_t>((n + kNr - 1) / kNr) * kNr * static_cast<size_t>(Bf16PanelDepth(k));
}

void PackWeightsNK512Bf16(const float* w, int n, int k, Bf16* packed) {
  const int panels = (n + kNr - 1) / kNr;
  const int pairs = Bf16PanelDepth(k) / 2;
  for (int p = 0; p < panels; ++p) {
    for (int q = 0; q < pairs; ++q) {
      Bf16* dst = packed + (static_cast<size_t>(p) * pairs + q) * 2 * kNr;
      for (int j = 0; j < kNr; ++j) {
        const int col = p * kNr + j;
        for (int e = 0; e < 2; ++e) {
          const int kk = 2 * q + e;
          dst[2 * j + e].bits = FloatToBf16(col < n && kk < k ? w[static_cast<size_t>(col) * k + kk] : 0.0f);
        }
      }
    }
  }
}

void PanelsToBf16(const float* panels, int n, int k, Bf16* packed) {
  const int count = (n + kNr - 1) / kNr;
  const int pairs = Bf16PanelDepth(k) / 2;
  for (int p = 0; p < count; ++p) {
    const float* src = panels + static_cast<size_t>(p) * kNr * k;
    Bf16* dst = packed + static_cast<size_t>(p) * pairs * 2 * kNr;
    for (int kk = 0; kk < 2 * pairs; ++kk) {
      for (int j = 0; j < kNr; ++j) {
        dst[(kk / 2) * 2 * kNr + 2 * j + kk % 2].bits = FloatToBf16(kk < k ? src[kk * kNr + j] : 0.0f);
      }
    }
  }
}

namespace {

constexpr int kKcPairs = 128;      // k pairs per chunk (256 k steps)
constexpr int kBf16RowBlock = 48;  // rows per converted block: 48 x 128 pairs x 4 B = 24 KB

// Rows [0, rows) of A, k steps [k0, k0 + kc), rounded to bf16 pairs: dst row
// r holds `pairs` 32-bit words (a[2q], a[2q + 1]), an odd last step paired
// with 0 (the packed weights' padding is 0 as well).
__attribute__((target("avx512f,avx512bf16"))) void RowsToBf16(const float* a, int lda, int rows, int k0, int kc,
                                                                int pairs, uint32_t* dst) {
  for (int r = 0; r < rows; ++r) {
    const float* src = a + static_cast<size_t>(r) * lda + k0;
    uint32_t* d = dst + static_cast<size_t>(r) * pairs;
    int i = 0;
    for (; i + 32 <= kc; i += 32) {
      const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + i + 16), _mm512_loadu_ps(src + i));
      _mm512_storeu_si512(d + i / 2, reinterpret_cast<const __m512i&>(v));
    }
    if (i < kc) {
      const int rem = kc - i;
      const __m512 lo = _mm512_maskz_loadu_ps(simd::LaneMask(rem), src + i);
      const __m512 hi = _mm512_maskz_loadu_ps(simd::LaneMask(rem - 16), src + i + 16);
      const __m512bh v = _mm512_cvtne2ps_pbh(hi, lo);
      _mm512_mask_storeu_epi32(d + i / 2, simd::LaneMask((rem + 1) / 2), reinterpret_cast<const __m512i&>(v));
    }
  }
}

// MR rows x NB 16-column vectors over `pairs` k pairs: per pair NB panel
// loads, MR broadcasts of A's pair, MR x NB vdpbf16ps.
template <int MR, int NB>
__attribute__((target("avx512f,avx512bf16"))) void TileBf16(int pairs, const uint32_t* a, int lda, const Bf16* w,
                                                              const float* bias32, bool accumulate,
                                                              FusedActivation act, float* c, int ldc, int nr,
                                                              const float* res, int res_ld, int res_cols) {
  __m512 acc[NB][MR];
  __mmask16 mask[NB];
  TileStart<MR, NB>(acc, mask, bias32, accumulate, c, ldc, nr, res, res_ld);
  for (int q = 0; q < pairs; ++q) {
    __m512bh wv[NB];
#pragma GCC unroll 2
    for (int v = 0; v < NB; ++v) {
      const __m512i bits = _mm512_loadu_si512(w + static_cast<size_t>(q) * 2 * kNr + 32 * v);
      wv[v] = reinterpret_cast<const __m512bh&>(bits);
    }
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      const __m512i pair = _mm512_set1_epi32(static_cast<int>(a[static_cast<size_t>(r) * lda + q]));
      const __m512bh av = reinterpret_cast<const __m512bh&>(pair);
#pragma GCC unroll 2
      for (int v = 0; v < NB; ++v) acc[v][r] = _mm512_dpbf16_ps(acc[v][r], av, wv[v]);
    }
  }
  TileFinish<MR, NB>(acc, mask, act, c, ldc, nr, res, res_ld, res_cols);
}

using Bf16KernelFn = void (*)(int, const uint32_t*, int, const Bf16*, const float*, bool, FusedActivation, float*,
                              int, int, const float*, int, int);
template <int NB, int... R>
constexpr std::array<Bf16KernelFn, sizeof...(R) + 1> Bf16KernelTable(std::integer_sequence<int, R...>) {
  return {nullptr, TileBf16<R + 1, NB>...};
}
constexpr auto kBf16Kernels = Bf16KernelTable<2>(std::make_integer_sequence<int, kMr>{});
constexpr auto kBf16NarrowKernels = Bf16KernelTable<1>(std::make_integer_sequence<int, kMrNarrow>{});

// k chunks of 256 steps; per chunk, blocks of 48 rows converted once and run
// against every panel (a panel's chunk, 16 KB, comes from L2 per block).
void GemmDriverBf16(int m, int n, int k, const float* a, int lda, const Bf16* packed_w, const float* bias,
                    FusedActivation activation, float* c, int ldc, const float* residual, int res_ld, int res_c) {
  alignas(64) uint32_t abuf[kBf16RowBlock * kKcPairs];
  const int total_pairs = Bf16PanelDepth(k) / 2;
  const int panels = (n + kNr - 1) / kNr;
  for (int q0 = 0; q0 < total_pairs || q0 == 0; q0 += kKcPairs) {
    const int pairs = total_pairs - q0 < kKcPairs ? total_pairs - q0 : kKcPairs;
    const int k0 = 2 * q0;
    const int kc = k - k0 < 2 * pairs ? k - k0 : 2 * pairs;
    const bool first = q0 == 0;
    const bool last = q0 + pairs >= total_pairs;
    const FusedActivation act = last ? activation : FusedActivation::kNone;
    for (int r0 = 0; r0 < m; r0 += kBf16RowBlock) {
      const int rb = m - r0 < kBf16RowBlock ? m - r0 : kBf16RowBlock;
      RowsToBf16(a + static_cast<size_t>(r0) * lda, lda, rb, k0, kc, pairs, abuf);
      for (int p = 0; p < panels; ++p) {
        const PanelChunk pc(p, n, bias, first, last, residual, res_c);
        const Bf16* wp = packed_w + (static_cast<size_t>(p) * total_pairs + q0) * 2 * kNr;
        // The row block's residual rows: pc.res is row 0's.
        const float* res = pc.res ? pc.res + static_cast<size_t>(r0) * res_ld : nullptr;
        const Bf16KernelFn* kernels = pc.narrow ? kBf16NarrowKernels.data() : kBf16Kernels.data();
        const RowTiles split(rb, pc.max_rows);
        for (int t = 0, row = 0; t < split.tiles; ++t) {
          const int mr = t < split.tall ? split.low + 1 : split.low;
          kernels[mr](pairs, abuf + static_cast<size_t>(row) * pairs, pairs, wp, pc.bias32, !first, act,
                      c + static_cast<size_t>(r0 + row) * ldc + pc.col, ldc, pc.nr,
                      res ? res + static_cast<size_t>(row) * res_ld : nullptr, res_ld, pc.res_cols);
          row += mr;
        }
      }
    }
    if (k == 0) break;
  }
}

}  // namespace

void GemmBf16Avx512(int m, int n, int k, const float* a, int lda, const Bf16* packed_w, const float* bias,
                    FusedActivation activation, float* c, int ldc) {
  GemmDriverBf16(m, n, k, a, lda, packed_w, bias, activation, c, ldc, nullptr, 0, 0);
}

void GemmBf16Avx512Residual(int m, int n, int k, const float* a, int lda, const Bf16* packed_w, const float* bias,
                            FusedActivation activation, float* c, int ldc, const float* residual, int res_ld,
                            int res_c) {
  GemmDriverBf16(m, n, k, a, lda, packed_w, bias, activation, c, ldc, residual, res_ld, res_c);
}

}  // namespace rill::inference::cpu::x86
