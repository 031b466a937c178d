// RecolorCalculator blends a color into an image where a mask is on: the
// overlay of a segmentation (MASK + IMAGE -> IMAGE), as MediaPipe's
// RecolorCalculator does on CPU.
//
//   node {
//     calculator: "RecolorCalculator"
//     input_stream: "IMAGE:input_video"
//     input_stream: "MASK:segmentation_mask"
//     output_stream: "IMAGE:output_video"
//     options { [mediapipe.RecolorCalculatorOptions.ext] {
//       color { r: 0 g: 0 b: 255 } mask_channel: RED } }
//   }
//
// IMAGE: SRGB or SRGBA. MASK: VEC32F1 (weights 0..1), GRAY8 (0..255), or
// SRGB/SRGBA (mask_channel picks RED or ALPHA, 0..255). A mask of another
// size than the image is resized to it (bilinear). Per pixel, with weight w
// (1 - w when invert_mask) and luminance l of the pixel in 0..1:
//   mix = adjust_with_luminance ? w * l : w
//   out = color * mix + pixel * (1 - mix)
#include <algorithm>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/image/recolor_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kMaskTag[] = "MASK";

class RecolorCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<RecolorCalculatorOptions>();
    if (!cc->Inputs().HasTag(kImageTag) || !cc->Inputs().HasTag(kMaskTag) ||
        !cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RecolorCalculator node \"", cc->GetNodeName(),
          "\" needs IMAGE and MASK input streams and an IMAGE output stream "
          "(IMAGE_GPU/MASK_GPU are not supported: Rill runs on CPU)"));
    }
    cc->Inputs().Tag(kImageTag).Set<ImageFrame>();
    cc->Inputs().Tag(kMaskTag).Set<ImageFrame>();
    cc->Outputs().Tag(kImageTag).Set<ImageFrame>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<RecolorCalculatorOptions>();
    where_ = absl::StrCat("RecolorCalculator node \"", cc->NodeName(), "\": ");
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& image_in = cc->Inputs().Tag(kImageTag);
    if (image_in.IsEmpty()) return absl::OkStatus();
    const ImageFrame& image = image_in.Get<ImageFrame>();
    const InputStreamShard& mask_in = cc->Inputs().Tag(kMaskTag);
    if (mask_in.IsEmpty()) {
      // No mask at this timestamp: the image goes through unchanged.
      cc->Outputs().Tag(kImageTag).AddPacket(image_in.Value());
      return absl::OkStatus();
    }
    if (image.Format() != ImageFormat::SRGB &&
        image.Format() != ImageFormat::SRGBA) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "IMAGE must be SRGB or SRGBA, got ", image.DebugString()));
    }
    const ImageFrame& mask = mask_in.Get<ImageFrame>();

    // Mask weights as float 0..1 at the image's size.
    const cv::Mat mask_mat = formats::MatView(&mask);
    switch (mask.Format()) {
      case ImageFormat::VEC32F1:
        weights_ = mask_mat;
        break;
      case ImageFormat::GRAY8:
        mask_mat.convertTo(weights_, CV_32F, 1.0 / 255.0);
        break;
      case ImageFormat::SRGB:
      case ImageFormat::SRGBA: {
        int channel = 0;
        if (options_.mask_channel() == RecolorCalculatorOptions::ALPHA) {
          if (mask.Format() != ImageFormat::SRGBA) {
            return absl::InvalidArgumentError(absl::StrCat(
                where_, "mask_channel ALPHA needs an SRGBA mask, got ",
                mask.DebugString()));
          }
          channel = 3;
        }
        cv::extractChannel(mask_mat, channel_, channel);
        channel_.convertTo(weights_, CV_32F, 1.0 / 255.0);
        break;
      }
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            where_, "MASK must be VEC32F1, GRAY8, SRGB or SRGBA, got ",
            mask.DebugString()));
    }
    if (weights_.cols != image.Width() || weights_.rows != image.Height()) {
      cv::resize(weights_, resized_, cv::Size(image.Width(), image.Height()), 0,
                 0, cv::INTER_LINEAR);
      weights_ = resized_;
    }

    ImageFrame output(image.Format(), image.Width(), image.Height());
    const int channels = image.NumberOfChannels();
    const float cr = options_.color().r(), cg = options_.color().g(),
                cb = options_.color().b();
    const bool invert = options_.invert_mask();
    const bool luminance = options_.adjust_with_luminance();
    for (int y = 0; y < image.Height(); ++y) {
      const uint8_t* src = image.Row(y);
      uint8_t* dst = output.MutableRow(y);
      const float* w = weights_.ptr<float>(y);
      for (int x = 0; x < image.Width(); ++x) {
        float weight = std::min(1.f, std::max(0.f, w[x]));
        if (invert) weight = 1.f - weight;
        const uint8_t* p = src + x * channels;
        uint8_t* q = dst + x * channels;
        float mix = weight;
        if (luminance) {
          mix *= (0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2]) / 255.f;
        }
        q[0] = static_cast<uint8_t>(cr * mix + p[0] * (1.f - mix) + 0.5f);
        q[1] = static_cast<uint8_t>(cg * mix + p[1] * (1.f - mix) + 0.5f);
        q[2] = static_cast<uint8_t>(cb * mix + p[2] * (1.f - mix) + 0.5f);
        if (channels == 4) q[3] = p[3];
      }
    }
    cc->Outputs().Tag(kImageTag).AddPacket(
        MakePacket<ImageFrame>(std::move(output)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  RecolorCalculatorOptions options_;
  std::string where_;
  cv::Mat weights_, resized_, channel_;
};

}  // namespace

REGISTER_CALCULATOR(RecolorCalculator);

}  // namespace rill
