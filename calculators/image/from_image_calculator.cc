// FromImageCalculator turns an Image stream (IMAGE) into an ImageFrame
// stream (IMAGE_CPU). Zero-copy: the output frame adopts the Image's pixels
// and keeps the Image's storage alive.
//
//   node {
//     calculator: "FromImageCalculator"
//     input_stream: "IMAGE:image"
//     output_stream: "IMAGE_CPU:frame"
//     output_stream: "SOURCE_ON_GPU:on_gpu"   # optional: bool, always false
//   }
#include <memory>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"

namespace rill {
namespace {

constexpr char kImageCpuTag[] = "IMAGE_CPU";
constexpr char kImageTag[] = "IMAGE";
constexpr char kSourceOnGpuTag[] = "SOURCE_ON_GPU";

class FromImageCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag(kImageTag) ||
        !cc->Outputs().HasTag(kImageCpuTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FromImageCalculator node \"", cc->GetNodeName(),
          "\" needs an IMAGE input stream and an IMAGE_CPU output stream "
          "(IMAGE_GPU is not supported: Rill runs on CPU)"));
    }
    cc->Inputs().Tag(kImageTag).Set<Image>();
    cc->Outputs().Tag(kImageCpuTag).Set<ImageFrame>();
    // MediaPipe's CPU graphs read it to decide whether to flip the image;
    // Rill's images are on the CPU.
    if (cc->Outputs().HasTag(kSourceOnGpuTag)) {
      cc->Outputs().Tag(kSourceOnGpuTag).Set<bool>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kImageTag);
    if (in.IsEmpty()) return absl::OkStatus();
    std::shared_ptr<ImageFrame> source =
        in.Get<Image>().GetImageFrameSharedPtr();
    if (source == nullptr || source->IsEmpty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FromImageCalculator node \"", cc->NodeName(), "\": empty Image at ",
          cc->InputTimestamp().DebugString()));
    }
    ImageFrame view(source->Format(), source->Width(), source->Height(),
                    source->WidthStep(), source->MutablePixelData(),
                    [source](uint8_t*) mutable { source.reset(); });
    cc->Outputs()
        .Tag(kImageCpuTag)
        .AddPacket(
            MakePacket<ImageFrame>(std::move(view)).At(cc->InputTimestamp()));
    if (cc->Outputs().HasTag(kSourceOnGpuTag)) {
      cc->Outputs().Tag(kSourceOnGpuTag).AddPacket(
          MakePacket<bool>(false).At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_CALCULATOR(FromImageCalculator);

}  // namespace rill
