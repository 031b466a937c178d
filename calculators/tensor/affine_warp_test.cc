#include "calculators/tensor/affine_warp.h"

#include <cmath>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"

namespace rill {
namespace {

// The output of one case as OpenCV computes it: warpAffine (bilinear,
// inverse map), alpha dropped, then convertTo; and as AffineWarpRows does
// (in two row ranges, as two threads would).
struct Case {
  int src_w, src_h, channels;  // channels 1, 3 or 4 (RGBA in, RGB out)
  int out_w, out_h;
  double m[6];
  bool zero_border;
  int depth;  // CV_32F, CV_8U or CV_8S
  double scale, shift;
  bool linear = false;  // float outputs computed, not looked up
};

std::string Describe(const Case& c) {
  char s[256];
  std::snprintf(s, sizeof s,
                "src %dx%dx%d out %dx%d m [%g %g %g; %g %g %g] %s depth %d "
                "scale %g shift %g%s",
                c.src_w, c.src_h, c.channels, c.out_w, c.out_h, c.m[0], c.m[1],
                c.m[2], c.m[3], c.m[4], c.m[5],
                c.zero_border ? "zero" : "replicate", c.depth, c.scale, c.shift,
                c.linear ? " linear" : "");
  return s;
}

template <typename T>
void Check(const Case& c, const cv::Mat& src) {
  const int out_c = c.channels == 1 ? 1 : 3;
  cv::Mat warped, expected;
  cv::warpAffine(
      src, warped, cv::Matx23d(c.m[0], c.m[1], c.m[2], c.m[3], c.m[4], c.m[5]),
      cv::Size(c.out_w, c.out_h), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
      c.zero_border ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE,
      cv::Scalar::all(0));
  if (c.channels == 4) cv::cvtColor(warped, warped, cv::COLOR_RGBA2RGB);
  warped.convertTo(expected, CV_MAKETYPE(c.depth, out_c), c.scale, c.shift);

  cv::Mat ramp(1, 256, CV_8U), lut;
  for (int v = 0; v < 256; ++v) ramp.at<uint8_t>(v) = static_cast<uint8_t>(v);
  ramp.convertTo(lut, c.depth, c.scale, c.shift);

  // The pixels in a buffer of exactly their size, so that a read past the
  // last pixel shows under AddressSanitizer (--config=asan).
  ASSERT_TRUE(src.isContinuous());
  const std::vector<uint8_t> pixels(src.data,
                                    src.data + src.total() * src.elemSize());
  WarpSource s{pixels.data(), src.cols, src.rows, src.step, c.channels};
  WarpParams p;
  for (int i = 0; i < 6; ++i) p.m[i] = c.m[i];
  p.out_width = c.out_w;
  p.out_height = c.out_h;
  p.out_channels = out_c;
  p.zero_border = c.zero_border;
  // Float outputs: both the table lookup and the linear path, whose table
  // is found linear for the usual ranges.
  const bool linear = std::is_same<T, float>::value && c.linear;
  if (linear) {
    FindLinearLut(reinterpret_cast<const float*>(lut.ptr<T>()), c.scale,
                  c.shift, &p);
    ASSERT_TRUE(p.linear) << Describe(c);
  }
  // Guard elements after the output catch writes past its end; the later
  // rows are warped first, so that the earlier range writing into them
  // would show.
  const size_t size = static_cast<size_t>(c.out_w) * c.out_h * out_c;
  std::vector<T> got(size + 8, T(77));
  const int split = c.out_h / 3;
  AffineWarpRows<T>(s, p, lut.ptr<T>(), got.data(), split, c.out_h);
  AffineWarpRows<T>(s, p, lut.ptr<T>(), got.data(), 0, split);
  for (size_t i = size; i < got.size(); ++i) {
    ASSERT_EQ(got[i], T(77)) << Describe(c) << ": wrote past the end";
  }
  got.resize(size);

  ASSERT_TRUE(expected.isContinuous());
  const T* want = expected.ptr<T>();
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0 && mismatches++ == 0)
      first = i;
  }
  EXPECT_EQ(mismatches, 0u)
      << Describe(c) << ": first at element " << first << " got " << +got[first]
      << " want " << +want[first];
}

void RunCase(const Case& c, cv::RNG& rng) {
  cv::Mat src(c.src_h, c.src_w, CV_8UC(c.channels));
  rng.fill(src, cv::RNG::UNIFORM, 0, 256);
  switch (c.depth) {
    case CV_32F:
      Check<float>(c, src);
      break;
    case CV_8U:
      Check<uint8_t>(c, src);
      break;
    default:
      Check<int8_t>(c, src);
      break;
  }
}

// Random rotations, scales, shears and translations, some far outside the
// image, some axis-aligned (letterboxed full images), every channel layout,
// border and output type.
TEST(AffineWarpTest, BitIdenticalToWarpAffineThenConvertTo) {
  cv::RNG rng(20261127);
  const int depths[] = {CV_32F, CV_32F, CV_8U, CV_8S};
  for (int trial = 0; trial < 400; ++trial) {
    Case c;
    c.channels = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 3 : 4;
    c.src_w = rng.uniform(1, 200);
    c.src_h = rng.uniform(1, 150);
    c.out_w = rng.uniform(1, 90);
    c.out_h = rng.uniform(1, 90);
    const double angle = rng.uniform(-3.3, 3.3);
    const double scale = rng.uniform(0.05, 4.0);
    const double cs = std::cos(angle) * scale, sn = std::sin(angle) * scale;
    const double tx = rng.uniform(-1.5, 2.5) * c.src_w,
                 ty = rng.uniform(-1.5, 2.5) * c.src_h;
    if (trial % 5 == 0) {  // axis-aligned, as a letterboxed full image
      const double sx = static_cast<double>(c.src_w) / c.out_w;
      c.m[0] = sx;
      c.m[1] = 0;
      c.m[2] = rng.uniform(-20.0, 5.0);
      c.m[3] = 0;
      c.m[4] = sx;
      c.m[5] = rng.uniform(-20.0, 5.0);
    } else {
      c.m[0] = cs;
      c.m[1] = -sn * rng.uniform(0.7, 1.3);
      c.m[2] = tx;
      c.m[3] = sn;
      c.m[4] = cs * rng.uniform(0.7, 1.3);
      c.m[5] = ty;
    }
    c.zero_border = trial % 2 == 0;
    c.depth = depths[trial % 4];
    const bool signed_range = trial % 7 < 3;
    c.scale = c.depth == CV_32F ? (signed_range ? 2.0 / 255 : 1.0 / 255)
                                : rng.uniform(0.1, 1.5);
    c.shift = c.depth == CV_32F ? (signed_range ? -1.0 : 0.0)
                                : rng.uniform(-128.0, 64.0);
    c.linear = trial % 8 < 4;
    RunCase(c, rng);
  }
}

// The sizes and regions the tracking graphs use: a rotated face region of a
// 720x528 frame to 192x192, a hand region leaving the frame to 224x224, a
// body region larger than the frame to 256x256, the full frame letterboxed
// to 128x128.
TEST(AffineWarpTest, TrackingGraphSizes) {
  cv::RNG rng(7);
  const double a = 0.3, s = 1.1;
  const Case cases[] = {
      {720,
       528,
       3,
       192,
       192,
       {s * std::cos(a), -s * std::sin(a), 300, s * std::sin(a),
        s * std::cos(a), 120},
       true,
       CV_32F,
       1.0 / 255,
       0},
      {720,
       528,
       3,
       224,
       224,
       {1.3, 0.4, 600, -0.4, 1.3, 350},
       false,
       CV_32F,
       2.0 / 255,
       -1},
      {720,
       528,
       4,
       256,
       256,
       {3.1, -0.2, -100, 0.2, 3.1, -150},
       false,
       CV_32F,
       1.0 / 255,
       0},
      {720,
       528,
       3,
       128,
       128,
       {5.625, 0, 0, 0, 5.625, -96},
       true,
       CV_32F,
       2.0 / 255,
       -1},
  };
  for (Case c : cases) {
    for (bool linear : {false, true}) {
      c.linear = linear;
      RunCase(c, rng);
    }
  }
}

// A row range writes only its rows.
TEST(AffineWarpTest, WritesOnlyItsRows) {
  cv::Mat src(10, 10, CV_8UC3, cv::Scalar(200, 100, 50));
  WarpSource s{src.data, 10, 10, src.step, 3};
  WarpParams p;
  p.out_width = 4;
  p.out_height = 4;
  p.out_channels = 3;
  std::vector<float> lut(256);
  for (int v = 0; v < 256; ++v) lut[v] = static_cast<float>(v);
  std::vector<float> out(4 * 4 * 3, -1.0f);
  AffineWarpRows<float>(s, p, lut.data(), out.data(), 1, 3);
  for (int y = 0; y < 4; ++y) {
    for (int i = 0; i < 12; ++i) {
      const float want = (y == 1 || y == 2) ? (i % 3 == 0   ? 200
                                               : i % 3 == 1 ? 100
                                                            : 50)
                                            : -1;
      EXPECT_EQ(out[y * 12 + i], want) << "row " << y << " element " << i;
    }
  }
}

}  // namespace
}  // namespace rill
