#include "inference/backend/cpu/ops/roi_align_loops.h"

#include <algorithm>

#include "inference/backend/cpu/kernels/ref/roi_align.h"

namespace rill::inference::cpu {
namespace {

// One axis' samples of a roi: sample i of bin b at [b * grid + i], the
// lower and upper pixel already multiplied by the pixel's stride along
// that axis.
struct AxisTaps {
  int lo[kRoiAlignMaxTaps], hi[kRoiAlignMaxTaps];
  float high[kRoiAlignMaxTaps], low[kRoiAlignMaxTaps];
  bool inside[kRoiAlignMaxTaps];
};

// The reference's sample coordinates (RoiAlignRef: start + b * bin +
// (i + 0.5f) * bin / grid), per axis.
void FillTaps(float start, float bin, int grid, int bins, int n, int stride, AxisTaps* t) {
  for (int b = 0; b < bins; ++b) {
    for (int i = 0; i < grid; ++i) {
      const float v = start + b * bin + (i + 0.5f) * bin / grid;
      const RoiAlignAxisTap a = RoiAlignAxisTapAt(v, n);
      const int k = b * grid + i;
      t->lo[k] = a.lo * stride;
      t->hi[k] = a.hi * stride;
      t->high[k] = a.high;
      t->low[k] = a.low;
      t->inside[k] = a.inside;
    }
  }
}

// A sample's four corners (offsets in pixels x stride) and weights as the
// reference's SampleTap gives them: all zero outside the map.
struct Corners {
  long long o[4];
  float w[4];
};

inline Corners CornersOf(const AxisTaps& ty, int ky, const AxisTaps& tx, int kx) {
  if (!ty.inside[ky] || !tx.inside[kx]) return Corners{{0, 0, 0, 0}, {0, 0, 0, 0}};
  return Corners{{static_cast<long long>(ty.lo[ky]) + tx.lo[kx], static_cast<long long>(ty.lo[ky]) + tx.hi[kx],
                  static_cast<long long>(ty.hi[ky]) + tx.lo[kx], static_cast<long long>(ty.hi[ky]) + tx.hi[kx]},
                 {ty.high[ky] * tx.high[kx], ty.high[ky] * tx.low[kx], ty.low[ky] * tx.high[kx],
                  ty.low[ky] * tx.low[kx]}};
}

constexpr int kBlock = 64;  // channels accumulated at once (NHWC)

}  // namespace

bool RoiAlignLoops(const ir::RoiAlignAttrs& a, const Shape& x_shape, const float* x, const float* roi, int batch,
                   int r, int c_begin, int c_end, float* y) {
  const int channels = x_shape[a.nhwc ? 3 : 1], height = x_shape[a.nhwc ? 1 : 2], width = x_shape[a.nhwc ? 2 : 3];
  const RoiAlignBox box = RoiAlignBoxOf(a, roi);
  const int gh = std::max(box.grid_h, 0), gw = std::max(box.grid_w, 0);
  if (static_cast<long long>(gh) * a.out_h > kRoiAlignMaxTaps || static_cast<long long>(gw) * a.out_w > kRoiAlignMaxTaps) {
    return false;
  }
  const long long plane = static_cast<long long>(height) * width;
  const int step = a.nhwc ? channels : 1;  // a pixel's stride in floats
  AxisTaps ty, tx;
  FillTaps(box.y_start, box.bin_h, gh, a.out_h, height, width * step, &ty);
  FillTaps(box.x_start, box.bin_w, gw, a.out_w, width, step, &tx);
  const long long out_plane = static_cast<long long>(a.out_h) * a.out_w;
  if (a.nhwc) {
    const float* xb = x + static_cast<long long>(batch) * plane * channels;
    for (int c0 = c_begin; c0 < c_end; c0 += kBlock) {
      const int n = std::min(kBlock, c_end - c0);
      float* yc = y + (static_cast<long long>(r) * channels + c0) * out_plane;
      for (int ph = 0; ph < a.out_h; ++ph) {
        for (int pw = 0; pw < a.out_w; ++pw) {
          float acc[kBlock];
          std::fill(acc, acc + n, 0.0f);
          bool first = true;
          for (int iy = 0; iy < gh; ++iy) {
            for (int ix = 0; ix < gw; ++ix) {
              const Corners k = CornersOf(ty, ph * gh + iy, tx, pw * gw + ix);
              const float *p0 = xb + k.o[0] + c0, *p1 = xb + k.o[1] + c0, *p2 = xb + k.o[2] + c0,
                          *p3 = xb + k.o[3] + c0;
              const float w0 = k.w[0], w1 = k.w[1], w2 = k.w[2], w3 = k.w[3];
              if (a.max_mode) {
                for (int c = 0; c < n; ++c) {
                  float v = w0 * p0[c];
                  v = std::max(v, w1 * p1[c]);
                  v = std::max(v, w2 * p2[c]);
                  v = std::max(v, w3 * p3[c]);
                  acc[c] = first ? v : std::max(acc[c], v);
                }
                first = false;
              } else {
                for (int c = 0; c < n; ++c) acc[c] += w0 * p0[c] + w1 * p1[c] + w2 * p2[c] + w3 * p3[c];
              }
            }
          }
          float* out = yc + ph * a.out_w + pw;
          if (a.max_mode) {
            for (int c = 0; c < n; ++c) out[c * out_plane] = acc[c];
          } else {
            for (int c = 0; c < n; ++c) out[c * out_plane] = acc[c] / box.count;
          }
        }
      }
    }
    return true;
  }
  for (int c = c_begin; c < c_end; ++c) {
    const float* xc = x + (static_cast<long long>(batch) * channels + c) * plane;
    float* yc = y + (static_cast<long long>(r) * channels + c) * out_plane;
    for (int ph = 0; ph < a.out_h; ++ph) {
      for (int pw = 0; pw < a.out_w; ++pw) {
        float sum = 0.0f, best = 0.0f;
        bool first = true;
        for (int iy = 0; iy < gh; ++iy) {
          for (int ix = 0; ix < gw; ++ix) {
            const Corners k = CornersOf(ty, ph * gh + iy, tx, pw * gw + ix);
            const float v0 = xc[k.o[0]], v1 = xc[k.o[1]], v2 = xc[k.o[2]], v3 = xc[k.o[3]];
            if (a.max_mode) {
              float v = k.w[0] * v0;
              v = std::max(v, k.w[1] * v1);
              v = std::max(v, k.w[2] * v2);
              v = std::max(v, k.w[3] * v3);
              best = first ? v : std::max(best, v);
              first = false;
            } else {
              sum += k.w[0] * v0 + k.w[1] * v1 + k.w[2] * v2 + k.w[3] * v3;
            }
          }
        }
        yc[ph * a.out_w + pw] = a.max_mode ? best : sum / box.count;
      }
    }
  }
  return true;
}

}  // namespace rill::inference::cpu
