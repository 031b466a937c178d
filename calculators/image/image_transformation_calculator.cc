// ImageTransformationCalculator rotates (counterclockwise quarter turns),
// flips and resizes an ImageFrame, as MediaPipe's does on CPU.
//
//   node {
//     calculator: "ImageTransformationCalculator"
//     input_stream: "IMAGE:input_video"
//     input_stream: "ROTATION_DEGREES:rotation"     # optional int:
//     0/90/180/270 input_stream: "FLIP_HORIZONTALLY:flip_h"      # optional
//     bool input_stream: "FLIP_VERTICALLY:flip_v"        # optional bool
//     input_stream: "OUTPUT_DIMENSIONS:dims"        # optional pair<int,int>
//     output_stream: "IMAGE:output_video"
//     output_stream: "LETTERBOX_PADDING:padding"    # optional array<float,4>
//     options { [mediapipe.ImageTransformationCalculatorOptions.ext] {
//       output_width: 256 output_height: 256 scale_mode: FIT } }
//   }
//
// ROTATION_DEGREES, FLIP_* and OUTPUT_DIMENSIONS may also be input side
// packets; streams win over side packets, which win over options.
// Order: rotate, flip, then scale to the output size (which is in the
// rotated image's orientation). Scale modes: STRETCH (default), FIT
// (letterbox; LETTERBOX_PADDING gets {left, top, right, bottom} as fractions
// of the output size), FILL_AND_CROP (center crop).
#include <algorithm>
#include <array>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/image/image_transformation_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kRotationTag[] = "ROTATION_DEGREES";
constexpr char kFlipHTag[] = "FLIP_HORIZONTALLY";
constexpr char kFlipVTag[] = "FLIP_VERTICALLY";
constexpr char kDimsTag[] = "OUTPUT_DIMENSIONS";
constexpr char kPaddingTag[] = "LETTERBOX_PADDING";

using Dims = std::pair<int, int>;

template <typename T>
void DeclareOptional(CalculatorContract* cc, const char* tag) {
  if (cc->Inputs().HasTag(tag)) cc->Inputs().Tag(tag).Set<T>();
  if (cc->InputSidePackets().HasTag(tag)) {
    cc->InputSidePackets().Tag(tag).Set<T>();
  }
}

// The value of `tag` from the stream, else the side packet, else nullptr.
template <typename T>
const T* Lookup(CalculatorContext* cc, const char* tag) {
  if (cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty()) {
    return &cc->Inputs().Tag(tag).Get<T>();
  }
  if (cc->InputSidePackets().HasTag(tag)) {
    return &cc->InputSidePackets().Tag(tag).Get<T>();
  }
  return nullptr;
}

class ImageTransformationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<ImageTransformationCalculatorOptions>();
    if (!cc->Inputs().HasTag(kImageTag) || !cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageTransformationCalculator node \"", cc->GetNodeName(),
          "\" needs an IMAGE input stream and an IMAGE output stream "
          "(IMAGE_GPU is not supported: Rill runs on CPU)"));
    }
    cc->Inputs().Tag(kImageTag).Set<ImageFrame>();
    cc->Outputs().Tag(kImageTag).Set<ImageFrame>();
    DeclareOptional<int>(cc, kRotationTag);
    DeclareOptional<bool>(cc, kFlipHTag);
    DeclareOptional<bool>(cc, kFlipVTag);
    DeclareOptional<Dims>(cc, kDimsTag);
    if (cc->Outputs().HasTag(kPaddingTag)) {
      cc->Outputs().Tag(kPaddingTag).Set<std::array<float, 4>>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<ImageTransformationCalculatorOptions>();
    where_ = absl::StrCat("ImageTransformationCalculator node \"",
                          cc->NodeName(), "\": ");
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kImageTag);
    if (in.IsEmpty()) return absl::OkStatus();
    const ImageFrame& input = in.Get<ImageFrame>();
    const int mat_type = formats::GetMatType(input.Format());
    if (mat_type < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where_, "cannot transform ", input.DebugString()));
    }

    // Rotation (counterclockwise degrees).
    int degrees = 0;
    switch (options_.rotation_mode()) {
      case RotationMode::ROTATION_90:
        degrees = 90;
        break;
      case RotationMode::ROTATION_180:
        degrees = 180;
        break;
      case RotationMode::ROTATION_270:
        degrees = 270;
        break;
      default:
        break;
    }
    if (const int* d = Lookup<int>(cc, kRotationTag)) degrees = *d;
    degrees = ((degrees % 360) + 360) % 360;
    if (degrees % 90 != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "rotation must be a multiple of 90 degrees, got ", degrees));
    }
    bool flip_h = options_.flip_horizontally();
    bool flip_v = options_.flip_vertically();
    if (const bool* f = Lookup<bool>(cc, kFlipHTag)) flip_h = *f;
    if (const bool* f = Lookup<bool>(cc, kFlipVTag)) flip_v = *f;

    const cv::Mat src = formats::MatView(&input);
    cv::Mat oriented = src;
    if (degrees == 90) {
      cv::rotate(src, rotated_, cv::ROTATE_90_COUNTERCLOCKWISE);
      oriented = rotated_;
    } else if (degrees == 180) {
      cv::rotate(src, rotated_, cv::ROTATE_180);
      oriented = rotated_;
    } else if (degrees == 270) {
      cv::rotate(src, rotated_, cv::ROTATE_90_CLOCKWISE);
      oriented = rotated_;
    }
    if (flip_h || flip_v) {
      const int code = flip_h && flip_v ? -1 : (flip_h ? 1 : 0);
      cv::flip(oriented, flipped_, code);
      oriented = flipped_;
    }

    int out_w = options_.output_width();
    int out_h = options_.output_height();
    if (const Dims* dims = Lookup<Dims>(cc, kDimsTag)) {
      out_w = dims->first;
      out_h = dims->second;
    }
    if (out_w <= 0) out_w = oriented.cols;
    if (out_h <= 0) out_h = oriented.rows;

    ImageFrame output(input.Format(), out_w, out_h);
    cv::Mat dst = formats::MatView(&output);
    const int interpolation =
        options_.interpolation_mode() ==
                ImageTransformationCalculatorOptions::NEAREST
            ? cv::INTER_NEAREST
            : cv::INTER_LINEAR;
    std::array<float, 4> padding = {0, 0, 0, 0};
    const ScaleMode::Mode mode = options_.scale_mode() == ScaleMode::DEFAULT
                                     ? ScaleMode::STRETCH
                                     : options_.scale_mode();
    if (out_w == oriented.cols && out_h == oriented.rows) {
      oriented.copyTo(dst);
    } else if (mode == ScaleMode::STRETCH) {
      cv::resize(oriented, dst, dst.size(), 0, 0, interpolation);
    } else if (mode == ScaleMode::FIT) {
      const double scale = std::min(static_cast<double>(out_w) / oriented.cols,
                                    static_cast<double>(out_h) / oriented.rows);
      const int w =
          std::max(1, static_cast<int>(std::round(oriented.cols * scale)));
      const int h =
          std::max(1, static_cast<int>(std::round(oriented.rows * scale)));
      const int left = (out_w - w) / 2;
      const int top = (out_h - h) / 2;
      cv::Mat inner = dst(cv::Rect(left, top, w, h));
      cv::resize(oriented, inner, inner.size(), 0, 0, interpolation);
      if (options_.constant_padding()) {
        const auto& c = options_.padding_color();
        const cv::Scalar fill(c.r(), c.g(), c.b(),
                              input.Format() == ImageFormat::SRGBA ? 255 : 0);
        if (top > 0) dst.rowRange(0, top).setTo(fill);
        if (top + h < out_h) dst.rowRange(top + h, out_h).setTo(fill);
        if (left > 0) dst(cv::Rect(0, top, left, h)).setTo(fill);
        if (left + w < out_w) {
          dst(cv::Rect(left + w, top, out_w - left - w, h)).setTo(fill);
        }
      } else {
        // Replicate the edge pixels outward.
        cv::Mat tmp;
        cv::copyMakeBorder(inner, tmp, top, out_h - top - h, left,
                           out_w - left - w,
                           cv::BORDER_REPLICATE | cv::BORDER_ISOLATED);
        tmp.copyTo(dst);
      }
      padding = {static_cast<float>(left) / out_w,
                 static_cast<float>(top) / out_h,
                 static_cast<float>(out_w - left - w) / out_w,
                 static_cast<float>(out_h - top - h) / out_h};
    } else {  // FILL_AND_CROP
      const double scale = std::max(static_cast<double>(out_w) / oriented.cols,
                                    static_cast<double>(out_h) / oriented.rows);
      const int crop_w =
          std::min(oriented.cols, static_cast<int>(std::round(out_w / scale)));
      const int crop_h =
          std::min(oriented.rows, static_cast<int>(std::round(out_h / scale)));
      const cv::Rect crop((oriented.cols - crop_w) / 2,
                          (oriented.rows - crop_h) / 2, crop_w, crop_h);
      cv::resize(oriented(crop), dst, dst.size(), 0, 0, interpolation);
    }
    output.SetAlignmentPaddingAreas();
    cc->Outputs().Tag(kImageTag).AddPacket(
        MakePacket<ImageFrame>(std::move(output)).At(cc->InputTimestamp()));
    if (cc->Outputs().HasTag(kPaddingTag)) {
      cc->Outputs()
          .Tag(kPaddingTag)
          .AddPacket(MakePacket<std::array<float, 4>>(padding).At(
              cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }

 private:
  ImageTransformationCalculatorOptions options_;
  std::string where_;
  cv::Mat rotated_, flipped_;
};

}  // namespace

REGISTER_CALCULATOR(ImageTransformationCalculator);

}  // namespace rill
