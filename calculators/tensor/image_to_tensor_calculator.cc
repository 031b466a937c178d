// ImageToTensorCalculator cuts a region out of an image, rotates and scales it
// to the model's input size, and converts the pixels to a tensor in the
// model's value range, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "ImageToTensorCalculator"
//     input_stream: "IMAGE:image"            # ImageFrame or Image
//     input_stream: "NORM_RECT:roi"          # optional NormalizedRect
//     output_stream: "TENSORS:input_tensors" # std::vector<Tensor>, one
//     [1,H,W,C] output_stream: "MATRIX:transform_matrix"          # optional
//     output_stream: "LETTERBOX_PADDING:letterbox_padding"  # optional
//     options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
//       output_tensor_width: 128 output_tensor_height: 128
//       keep_aspect_ratio: true
//       output_tensor_float_range { min: -1 max: 1 }
//       border_mode: BORDER_ZERO } }
//   }
//
// The region is NORM_RECT (centre, size and rotation in radians, relative to
// the image) or the whole image. With keep_aspect_ratio the region grows
// along one axis to the tensor's aspect ratio, so the image lands letterboxed
// in the tensor; LETTERBOX_PADDING says by how much ({left, top, right,
// bottom}, fractions of the tensor). MATRIX (std::array<float, 16>, 4x4
// row-major) maps a point normalized to the tensor to the same point
// normalized to the image: DetectionProjectionCalculator uses it to put
// detections back on the image, padding and rotation included.
//
// The warp is OpenCV's warpAffine (bilinear) followed by one conversion pass
// into the tensor, except where that is slow: warpAffine computes a pixel
// whose taps leave the image in scalar code, several times its cost for a
// pixel inside (unless the border is constant and the pixel wholly
// outside). So a region that leaves an 8-bit image (SRGB, SRGBA, GRAY8)
// under BORDER_REPLICATE (a pose's body region, a hand at the frame's edge)
// is warped and converted in one pass by affine_warp.h instead, whose
// results are bit-identical. SRGB and SRGBA (alpha dropped) give 3
// channels, GRAY8 and VEC32F1 give 1. uint8 images are taken as [0, 255],
// float images as [0, 1].
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/affine_warp.h"
#include "calculators/tensor/image_to_tensor_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/tensor.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kTensorsTag[] = "TENSORS";
constexpr char kMatrixTag[] = "MATRIX";
constexpr char kLetterboxTag[] = "LETTERBOX_PADDING";

// A region of the image in pixels: centre, size, rotation (radians).
struct Roi {
  float cx, cy, w, h, rotation;
};

// The output value of each 8-bit interpolated value, from convertTo itself.
template <typename T>
std::vector<T> ConversionTable(int depth, double scale, double shift) {
  cv::Mat ramp(1, 256, CV_8U), table;
  for (int v = 0; v < 256; ++v) ramp.at<uint8_t>(v) = static_cast<uint8_t>(v);
  ramp.convertTo(table, depth, scale, shift);
  return std::vector<T>(table.ptr<T>(), table.ptr<T>() + 256);
}

// True when every output pixel's four taps lie inside the image: the
// output's corners map inside with a pixel to spare (an affine map takes the
// output rectangle to a parallelogram spanned by its corners; the spare
// pixel covers the fixed point's rounding and the second tap).
bool FootprintInside(const cv::Matx23d& m, int out_w, int out_h, int img_w,
                     int img_h) {
  for (int corner = 0; corner < 4; ++corner) {
    const double x = (corner & 1) ? out_w - 1 : 0,
                 y = (corner & 2) ? out_h - 1 : 0;
    const double sx = m(0, 0) * x + m(0, 1) * y + m(0, 2);
    const double sy = m(1, 0) * x + m(1, 1) * y + m(1, 2);
    if (!(sx >= 1 && sy >= 1 && sx <= img_w - 2 && sy <= img_h - 2))
      return false;
  }
  return true;
}
}  // namespace

class ImageToTensorCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag(kImageTag).SetAny();
    if (cc->Inputs().HasTag(kNormRectTag)) {
      cc->Inputs().Tag(kNormRectTag).Set<NormalizedRect>();
    }
    cc->Outputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    if (cc->Outputs().HasTag(kMatrixTag)) {
      cc->Outputs().Tag(kMatrixTag).Set<std::array<float, 16>>();
    }
    if (cc->Outputs().HasTag(kLetterboxTag)) {
      cc->Outputs().Tag(kLetterboxTag).Set<std::array<float, 4>>();
    }
    const auto& o = cc->Options<ImageToTensorCalculatorOptions>();
    if (o.has_output_tensor_float_range() &&
        !(o.output_tensor_float_range().min() <
          o.output_tensor_float_range().max())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageToTensorCalculatorOptions.output_tensor_float_range: min (",
          o.output_tensor_float_range().min(), ") must be below max (",
          o.output_tensor_float_range().max(), ")"));
    }
    if (o.output_tensor_width() < 0 || o.output_tensor_height() < 0 ||
        (o.output_tensor_width() > 0) != (o.output_tensor_height() > 0)) {
      return absl::InvalidArgumentError(
          "ImageToTensorCalculatorOptions: output_tensor_width and "
          "output_tensor_height must both be set (positive) or both unset");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<ImageToTensorCalculatorOptions>();
    if (options_.has_output_tensor_float_range()) {
      range_min_ = options_.output_tensor_float_range().min();
      range_max_ = options_.output_tensor_float_range().max();
      out_type_ = Tensor::ElementType::kFloat32;
    } else if (options_.has_output_tensor_uint_range()) {
      range_min_ = options_.output_tensor_uint_range().min();
      range_max_ = options_.output_tensor_uint_range().max();
      out_type_ = Tensor::ElementType::kUInt8;
    } else if (options_.has_output_tensor_int_range()) {
      range_min_ = options_.output_tensor_int_range().min();
      range_max_ = options_.output_tensor_int_range().max();
      out_type_ = Tensor::ElementType::kInt8;
    } else {
      return absl::InvalidArgumentError(
          "ImageToTensorCalculatorOptions: set one of "
          "output_tensor_float_range, output_tensor_int_range or "
          "output_tensor_uint_range");
    }
    if (!(range_min_ < range_max_)) {
      return absl::InvalidArgumentError(
          "ImageToTensorCalculatorOptions: the output range's min must be "
          "below its max");
    }
    // 8-bit images: value_in in [0, 255] -> range_min + value_in * scale.
    const double scale = (range_max_ - range_min_) / 255.0;
    switch (out_type_) {
      case Tensor::ElementType::kFloat32:
        lut_f32_ = ConversionTable<float>(CV_32F, scale, range_min_);
        FindLinearLut(lut_f32_.data(), scale, range_min_, &warp_);
        break;
      case Tensor::ElementType::kUInt8:
        lut_u8_ = ConversionTable<uint8_t>(CV_8U, scale, range_min_);
        break;
      default:
        lut_s8_ = ConversionTable<int8_t>(CV_8S, scale, range_min_);
        break;
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Packet& image_packet = cc->Inputs().Tag(kImageTag).Value();
    if (image_packet.IsEmpty()) return absl::OkStatus();
    const ImageFrame* frame = nullptr;
    if (image_packet.Holds<ImageFrame>()) {
      frame = &image_packet.Get<ImageFrame>();
    } else if (image_packet.Holds<Image>()) {
      frame = image_packet.Get<Image>().GetImageFrameSharedPtr().get();
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageToTensorCalculator: IMAGE must be an ImageFrame or an Image, "
          "got ",
          image_packet.DebugTypeName()));
    }
    if (frame == nullptr || frame->IsEmpty()) return absl::OkStatus();
    const int img_w = frame->Width(), img_h = frame->Height();

    Roi roi{img_w * 0.5f, img_h * 0.5f, static_cast<float>(img_w),
            static_cast<float>(img_h), 0.0f};
    if (cc->Inputs().HasTag(kNormRectTag) &&
        !cc->Inputs().Tag(kNormRectTag).IsEmpty()) {
      const auto& r = cc->Inputs().Tag(kNormRectTag).Get<NormalizedRect>();
      if (r.width() <= 0 || r.height() <= 0) {
        // An empty region gives no tensor (MediaPipe does the same).
        return absl::OkStatus();
      }
      roi = {r.x_center() * img_w, r.y_center() * img_h, r.width() * img_w,
             r.height() * img_h, r.rotation()};
    }

    int out_w = options_.output_tensor_width();
    int out_h = options_.output_tensor_height();
    if (out_w <= 0) {
      out_w = std::max(1, static_cast<int>(std::lround(roi.w)));
      out_h = std::max(1, static_cast<int>(std::lround(roi.h)));
    }

    std::array<float, 4> padding = {0, 0, 0, 0};
    if (options_.keep_aspect_ratio()) {
      const float tensor_aspect = static_cast<float>(out_h) / out_w;
      const float roi_aspect = roi.h / roi.w;
      if (tensor_aspect > roi_aspect) {
        const float pad = (1.0f - roi_aspect / tensor_aspect) / 2.0f;
        padding = {0.0f, pad, 0.0f, pad};
        roi.h = roi.w * tensor_aspect;
      } else {
        const float pad = (1.0f - tensor_aspect / roi_aspect) / 2.0f;
        padding = {pad, 0.0f, pad, 0.0f};
        roi.w = roi.h / tensor_aspect;
      }
    }

    // Tensor-normalized (u, v) -> image-normalized (x, y).
    const float c = std::cos(roi.rotation), s = std::sin(roi.rotation);
    const float gw = 1.0f / img_w, gh = 1.0f / img_h;
    std::array<float, 16> m = {};
    m[0] = roi.w * c * gw;
    m[1] = -roi.h * s * gw;
    m[3] = (-0.5f * roi.w * c + 0.5f * roi.h * s + roi.cx) * gw;
    m[4] = roi.w * s * gh;
    m[5] = roi.h * c * gh;
    m[7] = (-0.5f * roi.h * c - 0.5f * roi.w * s + roi.cy) * gh;
    m[10] = roi.w * gw;
    m[15] = 1.0f;

    // Output pixel (x, y) -> source pixel, from the same matrix.
    cv::Matx23d warp(m[0] * img_w / out_w, m[1] * img_w / out_h, m[3] * img_w,
                     m[4] * img_h / out_w, m[5] * img_h / out_h, m[7] * img_h);

    const cv::Mat src = formats::MatView(frame);
    int channels;
    bool is_float;
    switch (frame->Format()) {
      case ImageFormat::SRGB:
      case ImageFormat::SRGBA:
        channels = 3;
        is_float = false;
        break;
      case ImageFormat::GRAY8:
        channels = 1;
        is_float = false;
        break;
      case ImageFormat::VEC32F1:
        channels = 1;
        is_float = true;
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("ImageToTensorCalculator: unsupported image format ",
                         ImageFrame::FormatName(frame->Format()),
                         " (SRGB, SRGBA, GRAY8 or VEC32F1)"));
    }
    const bool zero_border =
        options_.border_mode() == ImageToTensorCalculatorOptions::BORDER_ZERO;
    Tensor tensor(out_type_, Tensor::Shape{1, out_h, out_w, channels});
    if (!is_float && !zero_border &&
        !FootprintInside(warp, out_w, out_h, img_w, img_h) &&
        static_cast<int64_t>(frame->WidthStep()) * img_h < (int64_t{1} << 31)) {
      const WarpSource source{frame->PixelData(), img_w, img_h,
                              static_cast<size_t>(frame->WidthStep()),
                              frame->NumberOfChannels()};
      warp_.m[0] = warp(0, 0);
      warp_.m[1] = warp(0, 1);
      warp_.m[2] = warp(0, 2);
      warp_.m[3] = warp(1, 0);
      warp_.m[4] = warp(1, 1);
      warp_.m[5] = warp(1, 2);
      warp_.out_width = out_w;
      warp_.out_height = out_h;
      warp_.out_channels = channels;
      warp_.zero_border = zero_border;
      switch (out_type_) {
        case Tensor::ElementType::kFloat32:
          AffineWarpRows<float>(source, warp_, lut_f32_.data(),
                                static_cast<float*>(tensor.mutable_raw_data()),
                                0, out_h);
          break;
        case Tensor::ElementType::kUInt8:
          AffineWarpRows<uint8_t>(
              source, warp_, lut_u8_.data(),
              static_cast<uint8_t*>(tensor.mutable_raw_data()), 0, out_h);
          break;
        default:
          AffineWarpRows<int8_t>(
              source, warp_, lut_s8_.data(),
              static_cast<int8_t*>(tensor.mutable_raw_data()), 0, out_h);
          break;
      }
      return Emit(cc, std::move(tensor), m, padding);
    }
    cv::warpAffine(src, warped_, warp, cv::Size(out_w, out_h),
                   cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                   zero_border ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE,
                   cv::Scalar::all(0));
    if (frame->Format() == ImageFormat::SRGBA) {
      cv::cvtColor(warped_, rgb_, cv::COLOR_RGBA2RGB);
      cv::swap(warped_, rgb_);
    }

    // value_in in [0, in_max] -> range_min + value_in * scale.
    const double in_max = is_float ? 1.0 : 255.0;
    const double scale = (range_max_ - range_min_) / in_max;
    const int mat_type = out_type_ == Tensor::ElementType::kFloat32
                             ? CV_MAKETYPE(CV_32F, channels)
                         : out_type_ == Tensor::ElementType::kUInt8
                             ? CV_MAKETYPE(CV_8U, channels)
                             : CV_MAKETYPE(CV_8S, channels);
    cv::Mat dst(out_h, out_w, mat_type, tensor.mutable_raw_data());
    warped_.convertTo(dst, mat_type, scale, range_min_);
    return Emit(cc, std::move(tensor), m, padding);
  }

 private:
  absl::Status Emit(CalculatorContext* cc, Tensor tensor,
                    const std::array<float, 16>& m,
                    const std::array<float, 4>& padding) {
    std::vector<Tensor> tensors;
    tensors.push_back(std::move(tensor));
    cc->Outputs()
        .Tag(kTensorsTag)
        .AddPacket(MakePacket<std::vector<Tensor>>(std::move(tensors))
                       .At(cc->InputTimestamp()));
    if (cc->Outputs().HasTag(kMatrixTag)) {
      cc->Outputs()
          .Tag(kMatrixTag)
          .AddPacket(
              MakePacket<std::array<float, 16>>(m).At(cc->InputTimestamp()));
    }
    if (cc->Outputs().HasTag(kLetterboxTag)) {
      cc->Outputs()
          .Tag(kLetterboxTag)
          .AddPacket(MakePacket<std::array<float, 4>>(padding).At(
              cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }

  ImageToTensorCalculatorOptions options_;
  double range_min_ = 0, range_max_ = 1;
  Tensor::ElementType out_type_ = Tensor::ElementType::kFloat32;
  cv::Mat warped_, rgb_;  // reused across frames (VEC32F1 images)
  // The one-pass warp: the conversion table of the output type, the warp.
  std::vector<float> lut_f32_;
  std::vector<uint8_t> lut_u8_;
  std::vector<int8_t> lut_s8_;
  WarpParams warp_;
};
REGISTER_CALCULATOR(ImageToTensorCalculator);

}  // namespace rill
