// The bilinear affine warp behind ImageToTensorCalculator, fused with the
// conversion to the tensor's element type: one pass from the 8-bit source
// pixels straight into the tensor, no intermediate image.
//
// The result is bit-identical to what the calculator computed before with
// OpenCV (4.x):
//
//   cv::warpAffine(src, tmp, M, size, INTER_LINEAR | WARP_INVERSE_MAP,
//                  BORDER_CONSTANT (0) or BORDER_REPLICATE);
//   tmp.convertTo(dst, type, scale, shift);
//
// because it does OpenCV's arithmetic: source coordinates in fixed point
// (1/1024 per pixel rounded to the nearest 1/32, as warpAffine's block
// loop), four taps weighted by products of those 1/32 fractions summed in
// integers and rounded (remap's 8-bit bilinear), and the conversion of each
// of the 256 possible 8-bit results taken from a table that convertTo itself
// filled (so its rounding, fused multiply-add or not, is the one used). Taps
// outside the image count as 0 (zero border) or as the nearest edge pixel
// (replicate), as remap's border handling does. Where OpenCV handles pixels
// near the border one at a time in scalar code, this handles every pixel the
// same way (taps at clamped addresses, outside weights zeroed), which is what
// makes it faster on regions that leave the image (a pose's body region, a
// hand near the frame's edge).
//
// The only difference: source coordinates beyond +-2^19 pixels (a matrix far
// outside any image) are clamped before rounding, where OpenCV's fixed point
// would overflow.
#ifndef RILL_CALCULATORS_TENSOR_AFFINE_WARP_H_
#define RILL_CALCULATORS_TENSOR_AFFINE_WARP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rill {

// An 8-bit interleaved image: `channels` bytes per pixel (1, 3 or 4), rows
// `step` bytes apart.
struct WarpSource {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  size_t step = 0;
  int channels = 0;
};

// What to compute: the output pixel (x, y) samples the source at
// (m[0] x + m[1] y + m[2], m[3] x + m[4] y + m[5]) (pixel centres at
// integers, as warpAffine with WARP_INVERSE_MAP); the output has
// `out_channels` (the source's first 1 or 3 channels) per pixel, rows
// out_width * out_channels elements apart.
struct WarpParams {
  double m[6] = {1, 0, 0, 0, 1, 0};
  int out_width = 0;
  int out_height = 0;
  int out_channels = 0;
  bool zero_border = true;  // else replicate
  // Float outputs only: when `linear`, lut[v] equals
  // float(double(v) * scale + shift) for every v (FindLinearLut checks), and
  // the outputs are computed that way, four lanes at a time, instead of
  // looked up.
  bool linear = false;
  double scale = 1, shift = 0;
};

// Sets p->linear, scale and shift when the 256 entries of `lut` are a
// linear map computed in double and rounded once to float (true of
// convertTo's tables for the usual ranges, [0, 1] and [-1, 1]).
void FindLinearLut(const float* lut, double scale, double shift, WarpParams* p);

// Output rows [row_begin, row_end) of the warp; `lut[v]` is the output value
// of the 8-bit interpolated value v. Rows are independent: disjoint ranges
// may run on different threads. `dst` points at row 0. Supported:
// (channels, out_channels) of (1, 1), (3, 3), (4, 3).
template <typename T>
void AffineWarpRows(const WarpSource& src, const WarpParams& p, const T* lut,
                    T* dst, int row_begin, int row_end);

extern template void AffineWarpRows<float>(const WarpSource&, const WarpParams&,
                                           const float*, float*, int, int);
extern template void AffineWarpRows<uint8_t>(const WarpSource&,
                                             const WarpParams&, const uint8_t*,
                                             uint8_t*, int, int);
extern template void AffineWarpRows<int8_t>(const WarpSource&,
                                            const WarpParams&, const int8_t*,
                                            int8_t*, int, int);

}  // namespace rill

#endif  // RILL_CALCULATORS_TENSOR_AFFINE_WARP_H_
