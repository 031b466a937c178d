// ImagePropertiesCalculator reports an image's size, as MediaPipe's
// calculator of the same name: SIZE is std::pair<int, int> (width, height)
// of IMAGE (Image) or IMAGE_CPU (ImageFrame). Segmentation graphs feed it to
// TensorsToSegmentationCalculator's OUTPUT_SIZE so the mask comes out at the
// image's size.
//
// (It lives here rather than in calculators/image because only the
// segmentation graphs use it so far.)
#include <utility>

#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"

namespace rill {

class ImagePropertiesCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    const bool image = cc->Inputs().HasTag("IMAGE");
    const bool cpu = cc->Inputs().HasTag("IMAGE_CPU");
    if (image == cpu) {
      return absl::InvalidArgumentError(
          "ImagePropertiesCalculator needs exactly one of IMAGE (Image) and "
          "IMAGE_CPU (ImageFrame)");
    }
    if (image) cc->Inputs().Tag("IMAGE").SetAny();
    if (cpu) cc->Inputs().Tag("IMAGE_CPU").Set<ImageFrame>();
    cc->Outputs().Tag("SIZE").Set<std::pair<int, int>>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    int w = 0, h = 0;
    if (cc->Inputs().HasTag("IMAGE_CPU")) {
      if (cc->Inputs().Tag("IMAGE_CPU").IsEmpty()) return absl::OkStatus();
      const auto& f = cc->Inputs().Tag("IMAGE_CPU").Get<ImageFrame>();
      w = f.Width();
      h = f.Height();
    } else {
      const Packet& p = cc->Inputs().Tag("IMAGE").Value();
      if (p.IsEmpty()) return absl::OkStatus();
      if (p.Holds<Image>()) {
        w = p.Get<Image>().width();
        h = p.Get<Image>().height();
      } else if (p.Holds<ImageFrame>()) {
        w = p.Get<ImageFrame>().Width();
        h = p.Get<ImageFrame>().Height();
      } else {
        return absl::InvalidArgumentError(
            "ImagePropertiesCalculator: IMAGE must hold an Image or an "
            "ImageFrame, got " +
            p.DebugTypeName());
      }
    }
    cc->Outputs().Tag("SIZE").AddPacket(
        MakePacket<std::pair<int, int>>(w, h).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(ImagePropertiesCalculator);

}  // namespace rill
