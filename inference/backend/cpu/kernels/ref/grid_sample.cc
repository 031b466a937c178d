#include "inference/backend/cpu/kernels/ref/grid_sample.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
namespace {

using Attrs = ir::GridSampleAttrs;

// A normalized coordinate in [-1, 1] to a pixel coordinate.
float Denormalize(float v, int length, bool align_corners) {
  return align_corners ? (v + 1.0f) / 2.0f * (length - 1) : ((v + 1.0f) * length - 1.0f) / 2.0f;
}

// v folded into [lo, hi] by reflecting at both ends.
float Reflect(float v, float lo, float hi) {
  const float range = hi - lo;
  if (range <= 0.0f) return lo;
  if (v < lo) {
    const float d = lo - v;
    const int k = static_cast<int>(d / range);
    const float r = d - k * range;
    return k % 2 == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const float d = v - hi;
    const int k = static_cast<int>(d / range);
    const float r = d - k * range;
    return k % 2 == 0 ? hi - r : lo + r;
  }
  return v;
}

// The pixel at integer (r, c) of one channel, by the padding mode outside.
float PixelAt(const Attrs& a, const float* img, int H, int W, long long r, long long c, const float* bounds) {
  switch (a.padding) {
    case Attrs::PaddingMode::kZeros:
      return r >= 0 && r < H && c >= 0 && c < W ? img[r * W + c] : 0.0f;
    case Attrs::PaddingMode::kBorder:
      r = std::clamp<long long>(r, 0, H - 1);
      c = std::clamp<long long>(c, 0, W - 1);
      return img[r * W + c];
    case Attrs::PaddingMode::kReflection:
      c = static_cast<long long>(Reflect(static_cast<float>(c), bounds[0], bounds[2]));
      r = static_cast<long long>(Reflect(static_cast<float>(r), bounds[1], bounds[3]));
      r = std::clamp<long long>(r, 0, H - 1);
      c = std::clamp<long long>(c, 0, W - 1);
      return img[r * W + c];
  }
  return 0.0f;
}

// Cubic convolution weights (a = -0.75) of the four taps around t in [0, 1).
void CubicWeights(float t, float w[4]) {
  constexpr float a = -0.75f;
  auto near = [&](float d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  auto far = [&](float d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

}  // namespace

void GridSampleRef(const Attrs& a, const Shape& xs, const Shape& gs, const float* x, const float* grid, float* y,
                   int n, int row_begin, int row_end) {
  const int C = xs[1], H = xs[2], W = xs[3];
  const int Ho = gs[1], Wo = gs[2];
  // Where the image's edges lie in pixel coordinates: the corner pixels'
  // centres with align_corners, their outer edges without.
  const float bounds[4] = {a.align_corners ? 0.0f : -0.5f, a.align_corners ? 0.0f : -0.5f,
                           a.align_corners ? W - 1.0f : W - 0.5f, a.align_corners ? H - 1.0f : H - 0.5f};
  for (int oy = row_begin; oy < row_end; ++oy) {
    for (int ox = 0; ox < Wo; ++ox) {
      const float* g = grid + ((static_cast<size_t>(n) * Ho + oy) * Wo + ox) * 2;
      float px = Denormalize(g[0], W, a.align_corners);
      float py = Denormalize(g[1], H, a.align_corners);
      if (a.mode != Attrs::Mode::kBicubic && (px < bounds[0] || px > bounds[2] || py < bounds[1] || py > bounds[3])) {
        if (a.padding == Attrs::PaddingMode::kBorder) {
          px = std::clamp(px, 0.0f, W - 1.0f);
          py = std::clamp(py, 0.0f, H - 1.0f);
        } else if (a.padding == Attrs::PaddingMode::kReflection) {
          px = Reflect(px, bounds[0], bounds[2]);
          py = Reflect(py, bounds[1], bounds[3]);
        }
      }
      for (int c = 0; c < C; ++c) {
        const float* img = x + (static_cast<size_t>(n) * C + c) * H * W;
        float v = 0.0f;
        if (a.mode == Attrs::Mode::kNearest) {
          v = PixelAt(a, img, H, W, static_cast<long long>(std::nearbyint(py)),
                      static_cast<long long>(std::nearbyint(px)), bounds);
        } else if (a.mode == Attrs::Mode::kBilinear) {
          const long long x1 = static_cast<long long>(std::floor(px)), y1 = static_cast<long long>(std::floor(py));
          const float dx1 = px - x1, dy1 = py - y1, dx2 = 1.0f - dx1, dy2 = 1.0f - dy1;
          const float p11 = PixelAt(a, img, H, W, y1, x1, bounds), p12 = PixelAt(a, img, H, W, y1, x1 + 1, bounds);
          const float p21 = PixelAt(a, img, H, W, y1 + 1, x1, bounds),
                      p22 = PixelAt(a, img, H, W, y1 + 1, x1 + 1, bounds);
          v = dy2 * (dx2 * p11 + dx1 * p12) + dy1 * (dx2 * p21 + dx1 * p22);
        } else {
          const long long x0 = static_cast<long long>(std::floor(px)) - 1,
                          y0 = static_cast<long long>(std::floor(py)) - 1;
          float wx[4], wy[4];
          CubicWeights(px - (x0 + 1), wx);
          CubicWeights(py - (y0 + 1), wy);
          for (int i = 0; i < 4; ++i) {
            float row = 0.0f;
            for (int j = 0; j < 4; ++j) row += wx[j] * PixelAt(a, img, H, W, y0 + i, x0 + j, bounds);
            v += wy[i] * row;
          }
        }
        y[((static_cast<size_t>(n) * C + c) * Ho + oy) * Wo + ox] = v;
      }
    }
  }
}

}  // namespace rill::inference::cpu
