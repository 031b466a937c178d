#include "inference/backend/cpu/kernels/x86/f32_binary_avx2.h"

#include <immintrin.h>

#include <algorithm>

#include "inference/backend/cpu/kernels/x86/f32_math.h"
#include "inference/backend/cpu/kernels/x86/f32_transcendental.h"

namespace rill::inference::cpu::x86 {
namespace {

template <BinaryOp kOp>
__attribute__((target("avx2,fma"))) inline __m256 Apply(__m256 x, __m256 y) {
  switch (kOp) {
    case BinaryOp::kAdd: return _mm256_add_ps(x, y);
    case BinaryOp::kSub: return _mm256_sub_ps(x, y);
    case BinaryOp::kMul: return _mm256_mul_ps(x, y);
    case BinaryOp::kDiv: return _mm256_div_ps(x, y);
  }
  return x;
}

template <BinaryOp kOp>
inline float ApplyScalar(float x, float y) {
  switch (kOp) {
    case BinaryOp::kAdd: return x + y;
    case BinaryOp::kSub: return x - y;
    case BinaryOp::kMul: return x * y;
    case BinaryOp::kDiv: return x / y;
  }
  return x;
}

template <BinaryOp kOp>
__attribute__((target("avx2,fma"))) void Run(long long n, const float* a, const float* b, long long period,
                                              FusedActivation act, float* out) {
  const bool clamp = act == FusedActivation::kRelu || act == FusedActivation::kRelu6 ||
                     act == FusedActivation::kReluN1To1;
  const bool tanh = act == FusedActivation::kTanh;
  const __m256 lo = _mm256_set1_ps(act == FusedActivation::kReluN1To1 ? -1.0f : 0.0f);
  const __m256 hi = _mm256_set1_ps(act == FusedActivation::kRelu6 ? 6.0f
                                   : act == FusedActivation::kReluN1To1 ? 1.0f : 3.402823466e38f);
  for (long long base = 0; base < n; base += period) {
    const long long len = n - base < period ? n - base : period;
    const float* x = a + base;
    float* y = out + base;
    long long i = 0;
    for (; i + 8 <= len; i += 8) {
      __m256 v = Apply<kOp>(_mm256_loadu_ps(x + i), _mm256_loadu_ps(b + i));
      if (clamp) v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
      if (tanh) v = vmath::Tanh(v);
      _mm256_storeu_ps(y + i, v);
    }
    for (long long j = i; j < len; ++j) {
      y[j] = ApplyActivation(ApplyScalar<kOp>(x[j], b[j]), clamp ? act : FusedActivation::kNone);
    }
    if (tanh) TanhInPlaceAvx2(y + i, len - i);  // the vector tanh's bits on the tail too
  }
}

}  // namespace

void BinaryAvx2(BinaryOp op, long long n, const float* a, const float* b, long long b_period, FusedActivation act,
                float* out) {
  if (b_period == 1 && n > 1) {
    // A scalar: broadcast it over a short stack buffer's worth per pass (a
    // single element goes below, not back here: the fuzzer found the loop).
    float lane[64];
    for (float& v : lane) v = b[0];
    for (long long base = 0; base < n; base += 64) {
      const long long len = n - base < 64 ? n - base : 64;
      BinaryAvx2(op, len, a + base, lane, len, act, out + base);
    }
    return;
  }
  switch (op) {
    case BinaryOp::kAdd: Run<BinaryOp::kAdd>(n, a, b, b_period, act, out); break;
    case BinaryOp::kSub: Run<BinaryOp::kSub>(n, a, b, b_period, act, out); break;
    case BinaryOp::kMul: Run<BinaryOp::kMul>(n, a, b, b_period, act, out); break;
    case BinaryOp::kDiv: Run<BinaryOp::kDiv>(n, a, b, b_period, act, out); break;
  }
}

__attribute__((target("avx2,fma"))) void HardSwishAvx2(long long n, const float* in, float* out) {
  const __m256 three = _mm256_set1_ps(3.0f), six = _mm256_set1_ps(6.0f), zero = _mm256_setzero_ps();
  long long i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    const __m256 gate = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(x, three), zero), six);
    _mm256_storeu_ps(out + i, _mm256_div_ps(_mm256_mul_ps(x, gate), six));
  }
  for (; i < n; ++i) {
    const float x = in[i];
    out[i] = x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
}

__attribute__((target("avx2,fma"))) void ResidualAddAvx2(const float* residual, int res_c, float* y, int out_c,
                                                         long long row_begin, long long row_end, int col_begin,
                                                         int col_end, FusedActivation act) {
  const bool clamp = act == FusedActivation::kRelu || act == FusedActivation::kRelu6 ||
                     act == FusedActivation::kReluN1To1;
  const bool tanh = act == FusedActivation::kTanh;
  const __m256 lo = _mm256_set1_ps(act == FusedActivation::kReluN1To1 ? -1.0f : 0.0f);
  const __m256 hi = _mm256_set1_ps(act == FusedActivation::kRelu6 ? 6.0f
                                   : act == FusedActivation::kReluN1To1 ? 1.0f : 3.402823466e38f);
  // Channels [col_begin, add_end) get the skip; [add_end, col_end) only the activation.
  const int add_end = col_end < res_c ? col_end : (res_c > col_begin ? res_c : col_begin);
  for (long long r = row_begin; r < row_end; ++r) {
    float* row = y + r * out_c;
    const float* skip = residual + r * res_c;
    int c = col_begin;
    for (; c + 8 <= add_end; c += 8) {
      __m256 v = _mm256_add_ps(_mm256_loadu_ps(row + c), _mm256_loadu_ps(skip + c));
      if (clamp) v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
      _mm256_storeu_ps(row + c, v);
    }
    for (; c < add_end; ++c) row[c] = ApplyActivation(row[c] + skip[c], tanh ? FusedActivation::kNone : act);
    // tanh on the row's window as a whole: the GEMM epilogue's bits.
    if (tanh) TanhInPlaceAvx2(row + col_begin, col_end - col_begin);
    if (!clamp) continue;
    for (; c + 8 <= col_end; c += 8) _mm256_storeu_ps(row + c, _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(row + c), lo), hi));
    for (; c < col_end; ++c) row[c] = ApplyActivation(row[c], act);
  }
}

}  // namespace rill::inference::cpu::x86
