#include "inference/backend/cpu/kernels/arm64/f32_prelu_neon.h"

#include <arm_neon.h>

namespace rill::inference::cpu::arm64 {
namespace {

// A slope period shorter than half this is repeated into a stack buffer of
// about this many floats, so narrow channel counts still run whole vectors.
constexpr long long kRepeat = 256;

void Run(long long n, const float* x, const float* slope, float* out) {
  const float32x4_t zero = vdupq_n_f32(0.0f);
  long long i = 0;
  for (; i + 8 <= n; i += 8) {
    const float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4);
    const float32x4_t p0 = vmulq_f32(v0, vld1q_f32(slope + i));
    const float32x4_t p1 = vmulq_f32(v1, vld1q_f32(slope + i + 4));
    // x where x >= 0 (false for NaN: the product, as the reference).
    vst1q_f32(out + i, vbslq_f32(vcgeq_f32(v0, zero), v0, p0));
    vst1q_f32(out + i + 4, vbslq_f32(vcgeq_f32(v1, zero), v1, p1));
  }
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = vld1q_f32(x + i);
    vst1q_f32(out + i, vbslq_f32(vcgeq_f32(v, zero), v, vmulq_f32(v, vld1q_f32(slope + i))));
  }
  for (; i < n; ++i) out[i] = x[i] >= 0.0f ? x[i] : x[i] * slope[i];
}

}  // namespace

void PReluNeon(long long n, const float* x, const float* slope, long long slope_period, float* out) {
  if (slope_period >= n) {
    Run(n, x, slope, out);
    return;
  }
  float repeated[kRepeat];
  if (slope_period < kRepeat / 2) {
    const long long copies = kRepeat / slope_period;
    for (long long c = 0; c < copies; ++c) {
      for (long long j = 0; j < slope_period; ++j) repeated[c * slope_period + j] = slope[j];
    }
    slope_period *= copies;
    slope = repeated;
  }
  for (long long base = 0; base < n; base += slope_period) {
    Run(n - base < slope_period ? n - base : slope_period, x + base, slope, out + base);
  }
}

}  // namespace rill::inference::cpu::arm64
