#include "inference/backend/cpu/kernels/ref/dequantize.h"

#include <cstring>

namespace rill::inference::cpu {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;  // signed zero
    } else {
      // Subnormal: shift until the implicit bit appears.
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      mantissa &= 0x3FFu;
      bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | (mantissa << 13);
    }
  } else {
    bits = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

void DequantizeFp16Ref(long long n, const uint16_t* in, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = HalfToFloat(in[i]);
}

void DequantizeInt8Ref(long long n, const int8_t* in, float scale, int zero_point, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = scale * static_cast<float>(in[i] - zero_point);
}

void DequantizeUInt8Ref(long long n, const uint8_t* in, float scale, int zero_point, float* out) {
  for (long long i = 0; i < n; ++i) out[i] = scale * static_cast<float>(static_cast<int>(in[i]) - zero_point);
}

}  // namespace rill::inference::cpu
