#include "inference/backend/cpu/kernels/ref/mediapipe_transforms.h"

#include <algorithm>
#include <cmath>

namespace rill::inference::cpu {
namespace {

// c = a * b, 4x4 row-major (c may not alias).
void MatMul4(const float* a, const float* b, float* c) {
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 4; ++k) {
      float sum = 0.0f;
      for (int i = 0; i < 4; ++i) sum += a[r * 4 + i] * b[i * 4 + k];
      c[r * 4 + k] = sum;
    }
  }
}

void Identity4(float* m) {
  for (int i = 0; i < 16; ++i) m[i] = i % 5 == 0 ? 1.0f : 0.0f;
}

// m = m * f.
void Then(float* m, const float* f) {
  float t[16];
  MatMul4(m, f, t);
  std::copy(t, t + 16, m);
}

}  // namespace

void Landmarks2TransformMatrixRef(const ir::Landmarks2TransformMatrixAttrs& a, const float* landmarks,
                                  float* matrix) {
  const float* left = landmarks + 3 * a.left_rotation_idx;
  const float* right = landmarks + 3 * a.right_rotation_idx;
  // The rotation that brings the left-right line to the target angle.
  const float r = a.target_rotation_radians - std::atan2(right[1] - left[1], right[0] - left[0]);
  const float cr = std::cos(r), sr = std::sin(r);
  // The subset's bounding box in the rotated frame.
  float min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  bool first = true;
  for (const auto& [i, j] : a.subset_idxs) {
    for (int idx : {i, j}) {
      const float x = landmarks[3 * idx], y = landmarks[3 * idx + 1];
      const float rx = cr * x - sr * y, ry = sr * x + cr * y;
      if (first) {
        min_x = max_x = rx;
        min_y = max_y = ry;
        first = false;
      }
      min_x = std::min(min_x, rx);
      max_x = std::max(max_x, rx);
      min_y = std::min(min_y, ry);
      max_y = std::max(max_y, ry);
    }
  }
  const float width = max_x - min_x, height = max_y - min_y;
  // The box's centre back in the landmarks' frame (rotated by -r).
  const float mx = (min_x + max_x) / 2, my = (min_y + max_y) / 2;
  const float cx = cr * mx + sr * my, cy = -sr * mx + cr * my;
  // T(centre) * R(-r) * S(scale) * T(-output / 2).
  Identity4(matrix);
  float f[16];
  Identity4(f);
  f[3] = cx;
  f[7] = cy;
  Then(matrix, f);
  Identity4(f);
  f[0] = cr;
  f[1] = sr;
  f[4] = -sr;
  f[5] = cr;
  Then(matrix, f);
  Identity4(f);
  f[0] = a.scale_x * width / static_cast<float>(a.output_width);
  f[5] = a.scale_y * height / static_cast<float>(a.output_height);
  Then(matrix, f);
  Identity4(f);
  f[3] = -static_cast<float>(a.output_width) / 2;
  f[7] = -static_cast<float>(a.output_height) / 2;
  Then(matrix, f);
}

void TransformLandmarksRef(const float* m, int count, int dims, const float* in, float* out) {
  for (int l = 0; l < count; ++l) {
    const float x = in[l * dims], y = in[l * dims + 1];
    out[l * dims] = m[0] * x + m[1] * y + m[3];
    out[l * dims + 1] = m[4] * x + m[5] * y + m[7];
    if (dims == 3) out[l * dims + 2] = in[l * dims + 2];
  }
}

void TransformTensorBilinearRef(const TransformTensorParams& p, const float* m, const float* in, float* out,
                                int row_begin, int row_end) {
  const int c = p.channels;
  // Sampling at pixel centres: (u, v) = M (j + 1/2, i + 1/2) - 1/2.
  const float u0 = m[3] + 0.5f * (m[0] + m[1]) - 0.5f;
  const float v0 = m[7] + 0.5f * (m[4] + m[5]) - 0.5f;
  auto at = [&](int y, int x) -> const float* {
    return y < 0 || x < 0 || y >= p.in_h || x >= p.in_w ? nullptr : in + (static_cast<size_t>(y) * p.in_w + x) * c;
  };
  for (int i = row_begin; i < row_end; ++i) {
    for (int j = 0; j < p.out_w; ++j) {
      float* o = out + (static_cast<size_t>(i) * p.out_w + j) * c;
      const float u = m[0] * j + m[1] * i + u0;
      const float v = m[4] * j + m[5] * i + v0;
      // NaN coordinates are outside too.
      if (!(u >= 0.0f && u <= static_cast<float>(p.in_w - 1) && v >= 0.0f && v <= static_cast<float>(p.in_h - 1))) {
        std::fill(o, o + c, 0.0f);
        continue;
      }
      const float fu = std::floor(u), fv = std::floor(v);
      const int x0 = static_cast<int>(fu), y0 = static_cast<int>(fv);
      const float wx = u - fu, wy = v - fv;
      // The far neighbours lie past the edge only when their weight is 0.
      const float* q00 = at(y0, x0);
      const float* q01 = at(y0, x0 + 1);
      const float* q10 = at(y0 + 1, x0);
      const float* q11 = at(y0 + 1, x0 + 1);
      for (int k = 0; k < c; ++k) {
        const float top = (1.0f - wx) * q00[k] + (q01 ? wx * q01[k] : 0.0f);
        const float bottom = q10 ? (1.0f - wx) * q10[k] + (q11 ? wx * q11[k] : 0.0f) : 0.0f;
        o[k] = (1.0f - wy) * top + wy * bottom;
      }
    }
  }
}

}  // namespace rill::inference::cpu
