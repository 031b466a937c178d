#include "inference/backend/cpu/kernels/ref/resize_separable.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace rill::inference::cpu {
namespace {

// Keys' cubic convolution weights of the 4 pixels around a coordinate whose
// distance past its floor is s, with parameter a (ONNX Runtime's expression
// and order).
void CubicCoefficients(float s, float a, float c[4]) {
  const float t = std::fabs(s);
  c[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
  c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  c[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
  c[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
}

// Pillow's filters, as ONNX Runtime's antialiased resize evaluates them.
float LinearFilter(float x) {
  if (x < 0.0f) x = -x;
  return x < 1.0f ? 1.0f - x : 0.0f;
}
float CubicFilter(float x, float a) {
  if (x < 0.0f) x = -x;
  if (x < 1.0f) return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1;
  if (x < 2.0f) return (((x - 5.0f) * x + 8.f) * x - 4.f) * a;
  return 0.0f;
}

void CubicTaps(const ResizeSeparableParams& p, const ResizeAxis& axis, bool rows, ResizeTaps* t) {
  const int in = axis.in_size;
  t->taps = 4;
  for (int o = 0; o < axis.out_size; ++o) {
    const float src = OnnxSourceCoordinate(p.coordinate, axis, o);
    t->outside[o] = p.coordinate == ir::ResizeCoordinate::kTfCropAndResize && OutsideInput(src, in);
    const int64_t base = static_cast<int64_t>(std::floor(src));
    float c[4];
    CubicCoefficients(src - static_cast<float>(base), p.cubic_coeff_a, c);
    float sum = 1.0f;
    if (p.exclude_outside) {
      sum = 0.0f;
      for (int i = 0; i < 4; ++i) {
        const int64_t at = base - 1 + i;
        if (at < 0 || at >= in) c[i] = 0.0f;
        sum += c[i];
      }
    }
    for (int i = 0; i < 4; ++i) {
      t->index[o * 4 + i] = static_cast<int>(std::clamp<int64_t>(base - 1 + i, 0, in - 1));
      // Along W each weight is divided by the sum before it multiplies;
      // along H the products are divided (ONNX Runtime's two orders).
      t->weight[o * 4 + i] = rows ? c[i] : c[i] / sum;
    }
    t->divisor[o] = rows ? sum : 1.0f;
  }
}

void AntialiasTaps(const ResizeSeparableParams& p, const ResizeAxis& axis, ResizeTaps* t) {
  const int in = axis.in_size;
  const bool cubic = p.filter == ResizeFilter::kAntialiasCubic;
  const float rscale = EffectiveScale(axis);
  const float scale = 1.0f / rscale;  // input pixels per output pixel
  const float half = cubic ? 2.0f : 1.0f;
  const float support = scale >= 1.0f ? half * scale : half;
  const int window = static_cast<int>(std::ceil(support)) * 2 + 1;
  const float inv_scale = scale >= 1.0f ? 1.0f / scale : 1.0f;
  t->taps = window;
  t->index.assign(static_cast<size_t>(axis.out_size) * window, 0);
  t->weight.assign(static_cast<size_t>(axis.out_size) * window, 0.0f);
  std::vector<float> w;
  for (int o = 0; o < axis.out_size; ++o) {
    const float center = 0.5f + (scale == 1.0f ? static_cast<float>(o) : OnnxSourceCoordinate(p.coordinate, axis, o));
    t->outside[o] = p.coordinate == ir::ResizeCoordinate::kTfCropAndResize && OutsideInput(center - 0.5f, in);
    const int64_t min_real = static_cast<int64_t>(std::floor(center - support + 0.5f));
    const int64_t max_real = static_cast<int64_t>(std::floor(center + support + 0.5f));
    const int64_t min_cut = std::max<int64_t>(min_real, 0), max_cut = std::min<int64_t>(max_real, in);
    const int64_t lo = p.exclude_outside ? min_cut : min_real;
    const int64_t n = (p.exclude_outside ? max_cut : max_real) - lo;
    w.assign(static_cast<size_t>(std::max<int64_t>(n, window)) + 1, 0.0f);
    float total = 0.0f;
    for (int64_t x = 0; x < n; ++x) {
      const float d = (static_cast<float>(x + lo) - center + 0.5f) * inv_scale;
      w[x] = cubic ? CubicFilter(d, p.cubic_coeff_a) : LinearFilter(d);
      total += w[x];
    }
    if (!p.exclude_outside && max_cut > min_cut) {
      // Weights of taps past an edge go to the edge pixel. (A window wholly
      // outside the input has no edge pixel: its source is outside too, the
      // output tf_crop_and_resize's extrapolation_value.)
      const int64_t before = lo < 0 ? -lo : 0;
      for (int64_t x = 0; x < before; ++x) w[before] += w[x];
      const int64_t after = n + lo > in ? n + lo - in : 0;
      for (int64_t x = n - after; x < n; ++x) w[n - after - 1] += w[x];
      if (before > 0) {
        for (int64_t x = 0; x < max_cut - min_cut; ++x) w[x] = w[x + before];
      }
    }
    const float inv_total = total == 0.0f ? 1.0f : 1.0f / total;
    const int64_t count = std::min<int64_t>(std::max<int64_t>(max_cut - min_cut, 0), window);
    for (int64_t x = 0; x < window; ++x) {
      const size_t at = static_cast<size_t>(o) * window + x;
      t->index[at] = static_cast<int>(std::clamp<int64_t>(min_cut + std::min(x, count - 1), 0, in - 1));
      t->weight[at] = x < count ? w[x] * inv_total : 0.0f;
    }
    t->divisor[o] = 1.0f;
  }
}

}  // namespace

void ComputeResizeSeparableTaps(const ResizeSeparableParams& p, bool rows, ResizeTaps* taps) {
  const ResizeAxis axis = rows ? ResizeAxisH(p) : ResizeAxisW(p);
  taps->divisor.assign(axis.out_size, 1.0f);
  taps->outside.assign(axis.out_size, 0);
  if (p.filter == ResizeFilter::kCubic) {
    taps->index.assign(static_cast<size_t>(axis.out_size) * 4, 0);
    taps->weight.assign(static_cast<size_t>(axis.out_size) * 4, 0.0f);
    CubicTaps(p, axis, rows, taps);
  } else {
    AntialiasTaps(p, axis, taps);
  }
}

void ResizeSeparableRef(const ResizeSeparableParams& p, const ResizeTaps& rows, const ResizeTaps& cols,
                        const float* in, float* out) {
  const long long row_stride = static_cast<long long>(p.in_w) * p.channels;
  for (int n = 0; n < p.batch; ++n) {
    const float* in_n = in + static_cast<long long>(n) * p.in_h * row_stride;
    for (int oy = 0; oy < p.out_h; ++oy) {
      const int* yi = &rows.index[static_cast<size_t>(oy) * rows.taps];
      const float* yw = &rows.weight[static_cast<size_t>(oy) * rows.taps];
      for (int ox = 0; ox < p.out_w; ++ox) {
        const int* xi = &cols.index[static_cast<size_t>(ox) * cols.taps];
        const float* xw = &cols.weight[static_cast<size_t>(ox) * cols.taps];
        float* o = out + ((static_cast<long long>(n) * p.out_h + oy) * p.out_w + ox) * p.channels;
        if (rows.outside[oy] || cols.outside[ox]) {
          for (int c = 0; c < p.channels; ++c) o[c] = p.extrapolation_value;
          continue;
        }
        for (int c = 0; c < p.channels; ++c) {
          float acc = 0.0f;
          for (int i = 0; i < rows.taps; ++i) {
            const float* row = in_n + yi[i] * row_stride + c;
            float r = 0.0f;
            for (int j = 0; j < cols.taps; ++j) r += xw[j] * row[static_cast<long long>(xi[j]) * p.channels];
            acc += r * yw[i] / rows.divisor[oy];
          }
          o[c] = acc;
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
