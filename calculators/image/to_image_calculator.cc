// ToImageCalculator turns an ImageFrame stream (IMAGE_CPU) into an Image
// stream (IMAGE), as MediaPipe graphs that take `Image` expect. Zero-copy:
// the Image shares the input packet's pixels (and keeps the packet alive).
//
//   node {
//     calculator: "ToImageCalculator"
//     input_stream: "IMAGE_CPU:input_frame"
//     output_stream: "IMAGE:input_image"
//   }
//
// An IMAGE input takes an Image (passed through unchanged) or, as in
// MediaPipe, an ImageFrame (wrapped like IMAGE_CPU).
#include <memory>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"

namespace rill {
namespace {

constexpr char kImageCpuTag[] = "IMAGE_CPU";
constexpr char kImageTag[] = "IMAGE";

class ToImageCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const bool cpu = cc->Inputs().HasTag(kImageCpuTag);
    const bool image = cc->Inputs().HasTag(kImageTag);
    if (cpu == image || !cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ToImageCalculator node \"", cc->GetNodeName(),
          "\" needs one IMAGE_CPU (or IMAGE) input stream and an IMAGE "
          "output stream (IMAGE_GPU is not supported: Rill runs on CPU)"));
    }
    if (cpu) cc->Inputs().Tag(kImageCpuTag).Set<ImageFrame>();
    if (image) cc->Inputs().Tag(kImageTag).SetAny();
    cc->Outputs().Tag(kImageTag).Set<Image>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const bool image_tag = cc->Inputs().HasTag(kImageTag);
    const InputStreamShard& in =
        cc->Inputs().Tag(image_tag ? kImageTag : kImageCpuTag);
    if (in.IsEmpty()) return absl::OkStatus();
    if (image_tag && !in.Value().Holds<ImageFrame>()) {
      if (!in.Value().Holds<Image>()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "ToImageCalculator node \"", cc->NodeName(),
            "\": IMAGE must hold an Image or an ImageFrame, got ",
            in.Value().DebugTypeName()));
      }
      cc->Outputs().Tag(kImageTag).AddPacket(in.Value());
      return absl::OkStatus();
    }
    // An aliasing pointer: it points at the packet's frame and owns a copy
    // of the packet, so the frame lives as long as any Image of it.
    auto holder = std::make_shared<Packet>(in.Value());
    std::shared_ptr<ImageFrame> frame(
        holder, const_cast<ImageFrame*>(&holder->Get<ImageFrame>()));
    cc->Outputs().Tag(kImageTag).AddPacket(
        MakePacket<Image>(std::move(frame)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};

}  // namespace

REGISTER_CALCULATOR(ToImageCalculator);

}  // namespace rill
