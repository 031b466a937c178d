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

uint16_t FloatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  bits += 0x7FFFu + ((bits >> 16) & 1u);  // to nearest, ties to even (carries into the exponent)
  return static_cast<uint16_t>(bits >> 16);
}

float Bf16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));  // NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 (or inf): inf
  if (abs < 0x38800000u) {
    // Below 2^-14: a subnormal half, q units of 2^-24 (q may round up to
    // 0x400, the smallest normal, whose encoding it then is).
    const int e = static_cast<int>(abs >> 23);
    if (e < 102) return sign;  // below 2^-25: rounds to zero
    const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - e;  // 14..24
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent, keep 10 mantissa bits, round the 13 dropped
  // (a carry into the exponent is the correct next binade).
  uint32_t h = (abs >> 13) - (112u << 10);
  const uint32_t rem = abs & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
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
