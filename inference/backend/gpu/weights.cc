// The GPU backends' weight layouts and fp16 conversion (weights.h).
#include "inference/backend/gpu/weights.h"

#include <cstring>

namespace rill::inference::gpu {

uint16_t ToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past the largest half
  if (abs < 0x38800000u) {                                                // subnormal half or zero
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);
    if (shift > 24) return static_cast<uint16_t>(sign);
    // The float is m * 2^(e - 150), a subnormal half h * 2^-24: h is m
    // shifted right by 126 - e, rounded to nearest even.
    const uint32_t half = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    return static_cast<uint16_t>(sign | (half + (rest > mid || (rest == mid && (half & 1)))));
  }
  const uint32_t base = ((abs >> 13) - (112u << 10));
  const uint32_t rest = abs & 0x1fffu;
  return static_cast<uint16_t>(sign | (base + (rest > 0x1000u || (rest == 0x1000u && (base & 1)))));
}

float FromHalf(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalize
      int e = -1;
      uint32_t m = mant;
      do {
        ++e;
        m <<= 1;
      } while (!(m & 0x400u));
      x = sign | ((112u - e) << 23) | ((m & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::vector<uint16_t> ToHalves(const std::vector<float>& values) {
  std::vector<uint16_t> h(values.size());
  for (size_t i = 0; i < values.size(); ++i) h[i] = ToHalf(values[i]);
  return h;
}

std::vector<float> ConstFloats(const TensorBinding* b) {
  const float* f = static_cast<const float*>(b->host());
  return std::vector<float>(f, f + NumElements(b->shape));
}

std::vector<float> BiasOrZeros(const TensorBinding* bias, int n) {
  if (!bias) return std::vector<float>(n, 0.0f);
  const float* f = static_cast<const float*>(bias->host());
  return std::vector<float>(f, f + n);
}

std::vector<float> PackConvFilter(const float* w, int out_c, int kh, int kw, int icg) {
  const int blocks = (out_c + 3) / 4;
  std::vector<float> packed(static_cast<size_t>(blocks) * kh * kw * icg * 4, 0.0f);
  for (int oc = 0; oc < out_c; ++oc) {
    for (int t = 0; t < kh * kw; ++t) {
      for (int ic = 0; ic < icg; ++ic) {
        packed[((static_cast<size_t>(oc / 4) * kh * kw + t) * icg + ic) * 4 + oc % 4] =
            w[(static_cast<size_t>(oc) * kh * kw + t) * icg + ic];
      }
    }
  }
  return packed;
}

std::vector<float> PackGemmFilter(const float* w, int out_c, int k) {
  std::vector<float> packed(static_cast<size_t>(out_c) * k);
  for (int oc = 0; oc < out_c; ++oc) {
    for (int i = 0; i < k; ++i) packed[static_cast<size_t>(i) * out_c + oc] = w[static_cast<size_t>(oc) * k + i];
  }
  return packed;
}

std::vector<float> PackDepthwiseFilterNc4(const float* w, int kh, int kw, int c) {
  const int taps = kh * kw, c4s = (c + 3) / 4;
  std::vector<float> out(static_cast<size_t>(c4s) * taps * 4, 0.0f);
  for (int t = 0; t < taps; ++t) {
    for (int ch = 0; ch < c; ++ch) out[(static_cast<size_t>(ch / 4) * taps + t) * 4 + ch % 4] = w[t * c + ch];
  }
  return out;
}

std::vector<float> PackPointwiseFilterNc4(const float* w, int out_c, int in_c) {
  const int ic_padded = (in_c + 3) / 4 * 4, oc4s = (out_c + 3) / 4;
  std::vector<float> out(static_cast<size_t>(oc4s) * ic_padded * 4, 0.0f);
  for (int o = 0; o < out_c; ++o) {
    for (int k = 0; k < in_c; ++k) {
      out[(static_cast<size_t>(o / 4) * ic_padded + k) * 4 + o % 4] = w[static_cast<size_t>(o) * in_c + k];
    }
  }
  return out;
}

std::vector<float> PadToBlocks(std::vector<float> values) {
  values.resize((values.size() + 3) / 4 * 4, 0.0f);
  return values;
}

std::vector<float> WinogradFilter23(const float* w, int out_c, int in_c) {
  static const float kG[4][3] = {{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f}, {0.0f, 0.0f, 1.0f}};
  std::vector<float> u(static_cast<size_t>(16) * in_c * out_c);
  for (int o = 0; o < out_c; ++o) {
    for (int c = 0; c < in_c; ++c) {
      float g[3][3], gg[4][3];
      for (int ky = 0; ky < 3; ++ky) {
        for (int kx = 0; kx < 3; ++kx) g[ky][kx] = w[((static_cast<size_t>(o) * 3 + ky) * 3 + kx) * in_c + c];
      }
      for (int i = 0; i < 4; ++i) {
        for (int kx = 0; kx < 3; ++kx) gg[i][kx] = kG[i][0] * g[0][kx] + kG[i][1] * g[1][kx] + kG[i][2] * g[2][kx];
      }
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          const float v = gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2];
          u[(static_cast<size_t>(i * 4 + j) * in_c + c) * out_c + o] = v;
        }
      }
    }
  }
  return u;
}

}  // namespace rill::inference::gpu
