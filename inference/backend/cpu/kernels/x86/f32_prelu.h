// PRELU for x86 (AVX2 and AVX-512): x where x >= 0, else x * slope, with the
// slope repeating every `slope_period` elements (the channel count for
// TFLite's per-channel [C] or [1, 1, C] slope, 1 for a scalar, n for a slope
// of x's shape). The same selection as PReluRef, so the results are
// bit-identical to the reference (NaN and -0 included).
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_PRELU_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_PRELU_H_

namespace rill::inference::cpu::x86 {

// out[i] = x[i] >= 0 ? x[i] : x[i] * slope[i % slope_period] for i < n; x
// and out may be the same buffer (a conv's epilogue applies it in place).
void PReluAvx2(long long n, const float* x, const float* slope, long long slope_period, float* out);
void PReluAvx512(long long n, const float* x, const float* slope, long long slope_period, float* out);

}  // namespace rill::inference::cpu::x86

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_X86_F32_PRELU_H_
