#include "inference/backend/cpu/kernels/ref/volume.h"

#include <algorithm>
#include <limits>

namespace rill::inference::cpu {

void Conv3dRefChannels(const ir::Conv3dAttrs& a, const Shape& xs, const Shape& ws, const Shape& ys, const float* x,
                       const float* w, const float* bias, float* y, int n, int o_begin, int o_end) {
  const int cin = xs[1], D = xs[2], H = xs[3], W = xs[4];
  const int cpg = ws[1], kd = ws[2], kh = ws[3], kw = ws[4];
  const int O = ys[1], OD = ys[2], OH = ys[3], OW = ys[4];
  const int opg = O / a.group;
  for (int o = o_begin; o < o_end; ++o) {
    const int g = o / opg;
    const float* wo = w + static_cast<size_t>(o) * cpg * kd * kh * kw;
    float* yo = y + (static_cast<size_t>(n) * O + o) * OD * OH * OW;
    for (int od = 0; od < OD; ++od) {
      for (int oh = 0; oh < OH; ++oh) {
        for (int ow = 0; ow < OW; ++ow) {
          double sum = bias != nullptr ? bias[o] : 0.0;
          for (int c = 0; c < cpg; ++c) {
            const float* xc = x + (static_cast<size_t>(n) * cin + g * cpg + c) * D * H * W;
            for (int t = 0; t < kd; ++t) {
              const int id = od * a.stride[0] - a.pad_begin[0] + t * a.dilation[0];
              if (id < 0 || id >= D) continue;
              for (int i = 0; i < kh; ++i) {
                const int ih = oh * a.stride[1] - a.pad_begin[1] + i * a.dilation[1];
                if (ih < 0 || ih >= H) continue;
                for (int j = 0; j < kw; ++j) {
                  const int iw = ow * a.stride[2] - a.pad_begin[2] + j * a.dilation[2];
                  if (iw < 0 || iw >= W) continue;
                  sum += static_cast<double>(xc[(static_cast<size_t>(id) * H + ih) * W + iw]) *
                         wo[((static_cast<size_t>(c) * kd + t) * kh + i) * kw + j];
                }
              }
            }
          }
          yo[(static_cast<size_t>(od) * OH + oh) * OW + ow] = static_cast<float>(sum);
        }
      }
    }
  }
}

void Conv3dRef(const ir::Conv3dAttrs& a, const Shape& xs, const Shape& ws, const Shape& ys, const float* x,
               const float* w, const float* bias, float* y) {
  for (int n = 0; n < xs[0]; ++n) Conv3dRefChannels(a, xs, ws, ys, x, w, bias, y, n, 0, ys[1]);
}

void ConvTranspose3dRefChannel(const ir::ConvTranspose3dAttrs& a, const Shape& xs, const Shape& ws, const Shape& ys,
                               const float* x, const float* w, const float* bias, float* y, int n, int o) {
  const int cin = xs[1], D = xs[2], H = xs[3], W = xs[4];
  const int opg = ws[1], kd = ws[2], kh = ws[3], kw = ws[4];
  const int O = ys[1], OD = ys[2], OH = ys[3], OW = ys[4];
  const int cpg = cin / a.group, g = o / opg, m = o % opg;
  float* yo = y + (static_cast<size_t>(n) * O + o) * OD * OH * OW;
  // Output position p receives input position i through tap t where
  // p = i * stride - pad_begin + t * dilation.
  for (int od = 0; od < OD; ++od) {
    for (int oh = 0; oh < OH; ++oh) {
      for (int ow = 0; ow < OW; ++ow) {
        double sum = bias != nullptr ? bias[o] : 0.0;
        for (int t = 0; t < kd; ++t) {
          const int pd = od + a.pad_begin[0] - t * a.dilation[0];
          if (pd < 0 || pd % a.stride[0] != 0 || pd / a.stride[0] >= D) continue;
          for (int i = 0; i < kh; ++i) {
            const int ph = oh + a.pad_begin[1] - i * a.dilation[1];
            if (ph < 0 || ph % a.stride[1] != 0 || ph / a.stride[1] >= H) continue;
            for (int j = 0; j < kw; ++j) {
              const int pw = ow + a.pad_begin[2] - j * a.dilation[2];
              if (pw < 0 || pw % a.stride[2] != 0 || pw / a.stride[2] >= W) continue;
              const size_t at = (static_cast<size_t>(pd / a.stride[0]) * H + ph / a.stride[1]) * W + pw / a.stride[2];
              for (int c = 0; c < cpg; ++c) {
                const int ic = g * cpg + c;
                sum += static_cast<double>(x[(static_cast<size_t>(n) * cin + ic) * D * H * W + at]) *
                       w[(((static_cast<size_t>(ic) * opg + m) * kd + t) * kh + i) * kw + j];
              }
            }
          }
        }
        yo[(static_cast<size_t>(od) * OH + oh) * OW + ow] = static_cast<float>(sum);
      }
    }
  }
}

void Pool3dRef(const ir::Pool3dAttrs& a, const Shape& xs, const Shape& ys, const float* x, float* y,
               long long nc_begin, long long nc_end) {
  const int D = xs[2], H = xs[3], W = xs[4];
  const int OD = ys[2], OH = ys[3], OW = ys[4];
  for (long long nc = nc_begin; nc < nc_end; ++nc) {
    const float* xc = x + nc * D * H * W;
    float* yc = y + nc * OD * OH * OW;
    for (int od = 0; od < OD; ++od) {
      for (int oh = 0; oh < OH; ++oh) {
        for (int ow = 0; ow < OW; ++ow) {
          const int d0 = od * a.stride[0] - a.pad_begin[0], h0 = oh * a.stride[1] - a.pad_begin[1],
                    w0 = ow * a.stride[2] - a.pad_begin[2];
          float best = -std::numeric_limits<float>::infinity();
          double sum = 0.0;
          int inside = 0, padded = 0;
          for (int t = 0; t < a.kernel[0]; ++t) {
            for (int i = 0; i < a.kernel[1]; ++i) {
              for (int j = 0; j < a.kernel[2]; ++j) {
                const int id = d0 + t, ih = h0 + i, iw = w0 + j;
                // A window position inside the padded input (ceil mode can
                // reach past it: those positions count for nothing).
                const bool in_padded = id < D + a.pad_end[0] && ih < H + a.pad_end[1] && iw < W + a.pad_end[2];
                if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) {
                  if (in_padded) ++padded;
                  continue;
                }
                const float v = xc[(static_cast<size_t>(id) * H + ih) * W + iw];
                best = std::max(best, v);
                sum += v;
                ++inside;
              }
            }
          }
          const int count = a.count_include_pad ? inside + padded : inside;
          yc[(static_cast<size_t>(od) * OH + oh) * OW + ow] =
              a.max ? best : (count > 0 ? static_cast<float>(sum / count) : 0.0f);
        }
      }
    }
  }
}

}  // namespace rill::inference::cpu
