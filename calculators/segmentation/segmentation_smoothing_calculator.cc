// SegmentationSmoothingCalculator blends a segmentation mask with the
// previous frame's, pixel by pixel, weighting the previous value by how
// uncertain the new one is:
//   out = new + (prev - new) * uncertainty(new) * combine_with_previous_ratio
// where uncertainty(p) = 1 - min(1, x (c1 + x (c2 + x (c3 + x (c4 + x c5)))))
// with x = (p - 0.5)^2, MediaPipe's polynomial fit of 1 - (1 - H(p))^2, H
// the binary entropy: 1 at p = 0.5, falling to 0 towards 0 and 1.
//
//   node {
//     calculator: "SegmentationSmoothingCalculator"
//     input_stream: "MASK:mask"                   # Image, VEC32F1
//     input_stream: "MASK_PREVIOUS:previous_mask" # Image, same size
//     output_stream: "MASK_SMOOTHED:smoothed_mask"
//     options { [mediapipe.SegmentationSmoothingCalculatorOptions.ext] {
//       combine_with_previous_ratio: 0.7 } }
//   }
//
// Without a previous mask at a timestamp the new mask passes unchanged.
// Masks are Rill's segmentation masks (TensorsToSegmentationCalculator's
// MASK): an Image holding a one-channel float ImageFrame.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "calculators/segmentation/segmentation_smoothing_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"

namespace rill {
namespace {

constexpr char kMaskTag[] = "MASK";
constexpr char kPreviousMaskTag[] = "MASK_PREVIOUS";
constexpr char kSmoothedMaskTag[] = "MASK_SMOOTHED";

// The weight of the previous value given the new one.
float Uncertainty(float p) {
  constexpr float c1 = 5.68842f;
  constexpr float c2 = -0.748699f;
  constexpr float c3 = -57.8051f;
  constexpr float c4 = 291.309f;
  constexpr float c5 = -624.717f;
  const float t = p - 0.5f;
  const float x = t * t;
  return 1.0f -
         std::min(1.0f, x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5)))));
}

// One row: out = cur + (prev - cur) * (Uncertainty(cur) * ratio), four
// pixels at a time (GCC/Clang vector extensions; the same operations in
// the same order per pixel, so bit-identical to the scalar tail), since a
// pose mask at the image's size is some 400k pixels per frame.
void SmoothRow(const float* cur, const float* prev, float* out, int n,
               float ratio) {
  typedef float F4 __attribute__((vector_size(16)));
  constexpr float c1 = 5.68842f;
  constexpr float c2 = -0.748699f;
  constexpr float c3 = -57.8051f;
  constexpr float c4 = 291.309f;
  constexpr float c5 = -624.717f;
  int x = 0;
  for (; x + 4 <= n; x += 4) {
    F4 c, p;
    std::memcpy(&c, cur + x, sizeof c);
    std::memcpy(&p, prev + x, sizeof p);
    const F4 t = c - 0.5f;
    const F4 q = t * t;
    const F4 y = q * (c1 + q * (c2 + q * (c3 + q * (c4 + q * c5))));
    const F4 one = {1.0f, 1.0f, 1.0f, 1.0f};
    // std::min(1, y): y where y < 1, else 1 (NaN included).
    const F4 u = 1.0f - (y < one ? y : one);
    const F4 o = c + (p - c) * (u * ratio);
    std::memcpy(out + x, &o, sizeof o);
  }
  for (; x < n; ++x) {
    out[x] = cur[x] + (prev[x] - cur[x]) * (Uncertainty(cur[x]) * ratio);
  }
}

class SegmentationSmoothingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kMaskTag) ||
        !cc->Inputs().HasTag(kPreviousMaskTag) ||
        !cc->Outputs().HasTag(kSmoothedMaskTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SegmentationSmoothingCalculator node \"", cc->GetNodeName(),
          "\" needs MASK and MASK_PREVIOUS input streams and a MASK_SMOOTHED "
          "output stream"));
    }
    cc->Inputs().Tag(kMaskTag).Set<Image>();
    cc->Inputs().Tag(kPreviousMaskTag).Set<Image>();
    cc->Outputs().Tag(kSmoothedMaskTag).Set<Image>();
    cc->UseOptions<SegmentationSmoothingCalculatorOptions>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    ratio_ = cc->Options<SegmentationSmoothingCalculatorOptions>()
                 .combine_with_previous_ratio();
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& current_in = cc->Inputs().Tag(kMaskTag);
    if (current_in.IsEmpty()) return absl::OkStatus();
    const InputStreamShard& previous_in = cc->Inputs().Tag(kPreviousMaskTag);
    if (previous_in.IsEmpty()) {
      cc->Outputs().Tag(kSmoothedMaskTag).AddPacket(current_in.Value());
      return absl::OkStatus();
    }
    const Image& current = current_in.Get<Image>();
    const Image& previous = previous_in.Get<Image>();
    // Only an error spells out where (not every frame).
    auto where = [cc] {
      return absl::StrCat("SegmentationSmoothingCalculator node \"",
                          cc->NodeName(), "\" at ",
                          cc->InputTimestamp().DebugString(), ": ");
    };
    if (current.IsEmpty() || current.image_format() != ImageFormat::VEC32F1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where(), "MASK must be a one-channel float (VEC32F1) image, got ",
          ImageFrame::FormatName(current.image_format())));
    }
    if (previous.IsEmpty() || previous.image_format() != ImageFormat::VEC32F1 ||
        previous.width() != current.width() ||
        previous.height() != current.height()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where(), "MASK_PREVIOUS must be a VEC32F1 image of MASK's size ",
          current.width(), "x", current.height(), ", got ",
          ImageFrame::FormatName(previous.image_format()), " ",
          previous.width(), "x", previous.height()));
    }
    const ImageFrame& cur = *current.GetImageFrameSharedPtr();
    const ImageFrame& prev = *previous.GetImageFrameSharedPtr();
    auto out = std::make_shared<ImageFrame>(ImageFormat::VEC32F1, cur.Width(),
                                            cur.Height());
    for (int y = 0; y < cur.Height(); ++y) {
      SmoothRow(reinterpret_cast<const float*>(cur.Row(y)),
                reinterpret_cast<const float*>(prev.Row(y)),
                reinterpret_cast<float*>(out->MutableRow(y)), cur.Width(),
                ratio_);
    }
    cc->Outputs()
        .Tag(kSmoothedMaskTag)
        .AddPacket(
            MakePacket<Image>(Image(std::move(out))).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  float ratio_ = 0.f;
};

}  // namespace

REGISTER_CALCULATOR(SegmentationSmoothingCalculator);

}  // namespace rill
