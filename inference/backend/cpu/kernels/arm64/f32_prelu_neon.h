// PRELU for aarch64 NEON: x where x >= 0, else x * slope, the slope
// repeating every `slope_period` elements (channels for a per-channel slope,
// 1 for a scalar, n for a slope of x's shape). The reference's selection, so
// its bits (NaN and -0 included).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_PRELU_NEON_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_PRELU_NEON_H_

namespace rill::inference::cpu::arm64 {

// out[i] = x[i] >= 0 ? x[i] : x[i] * slope[i % slope_period] for i < n; x
// and out may be the same buffer.
void PReluNeon(long long n, const float* x, const float* slope, long long slope_period, float* out);

}  // namespace rill::inference::cpu::arm64

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_ARM64_F32_PRELU_NEON_H_
