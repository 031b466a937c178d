// Reference DEQUANTIZE: fp16 weights to fp32 (what MediaPipe models store),
// and affine int8/uint8 with one scale and zero point.
#ifndef RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEQUANTIZE_H_
#define RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEQUANTIZE_H_

#include <cstdint>

namespace rill::inference::cpu {

// IEEE 754 binary16 to binary32, exact (subnormals, infinities, NaN kept).
float HalfToFloat(uint16_t h);
// binary32 to binary16, rounded to nearest, ties to even (as F16C's
// vcvtps2ph): overflow to infinity, subnormal halves, NaN stays NaN (quiet).
// Precision::kFp16 packs weights with it.
uint16_t FloatToHalf(float f);
// binary32 to bfloat16 (its upper 16 bits), rounded to nearest, ties to even
// (as AVX512-BF16's vcvtne2ps2bf16 for normal values; NaN stays NaN, quiet),
// and back (exact). Precision::kBf16 rounds weights and activations so.
uint16_t FloatToBf16(float f);
float Bf16ToFloat(uint16_t b);

void DequantizeFp16Ref(long long n, const uint16_t* in, float* out);
void DequantizeInt8Ref(long long n, const int8_t* in, float scale, int zero_point, float* out);
void DequantizeUInt8Ref(long long n, const uint8_t* in, float scale, int zero_point, float* out);

}  // namespace rill::inference::cpu

#endif  // RILL_INFERENCE_BACKEND_CPU_KERNELS_REF_DEQUANTIZE_H_
