// RectToRenderScaleCalculator gives the scale to draw an object's
// annotations at (MediaPipe's calculator of the same name): the longer side
// of NORM_RECT in pixels (IMAGE_SIZE, std::pair<int, int>) times
// `multiplier`, as a float on RENDER_SCALE. Fed into
// LandmarksToRenderDataCalculator's RENDER_SCALE so lines grow with the
// object.
//
//   node {
//     calculator: "RectToRenderScaleCalculator"
//     input_stream: "NORM_RECT:roi"
//     input_stream: "IMAGE_SIZE:image_size"
//     output_stream: "RENDER_SCALE:render_scale"
//     options { [mediapipe.RectToRenderScaleCalculatorOptions.ext] {
//       multiplier: 0.0012 } }
//   }
//
// At a timestamp with IMAGE_SIZE but no rect the scale is `multiplier`
// itself; with process_timestamp_bounds that also happens when only a
// timestamp bound passes (no packet at all).
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/render/rect_to_render_scale_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/rect.pb.h"

namespace rill {
namespace {

constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kRenderScaleTag[] = "RENDER_SCALE";

}  // namespace

class RectToRenderScaleCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const auto& options = cc->Options<RectToRenderScaleCalculatorOptions>();
    cc->Inputs().Tag(kNormRectTag).Set<NormalizedRect>();
    cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
    cc->Outputs().Tag(kRenderScaleTag).Set<float>();
    cc->SetProcessTimestampBounds(options.process_timestamp_bounds());
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<RectToRenderScaleCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    OutputStreamShard& out = cc->Outputs().Tag(kRenderScaleTag);
    const Timestamp ts = cc->InputTimestamp();
    if (cc->Inputs().Tag(kNormRectTag).IsEmpty()) {
      out.AddPacket(MakePacket<float>(options_.multiplier()).At(ts));
      return absl::OkStatus();
    }
    if (cc->Inputs().Tag(kImageSizeTag).IsEmpty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RectToRenderScaleCalculator node \"", cc->NodeName(), "\" at ",
          ts.DebugString(), ": NORM_RECT arrived without IMAGE_SIZE"));
    }
    const auto& size =
        cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
    const auto& rect = cc->Inputs().Tag(kNormRectTag).Get<NormalizedRect>();
    const float side = std::max(rect.width() * size.first,
                                rect.height() * size.second);
    out.AddPacket(MakePacket<float>(side * options_.multiplier()).At(ts));
    return absl::OkStatus();
  }

 private:
  RectToRenderScaleCalculatorOptions options_;
};
REGISTER_CALCULATOR(RectToRenderScaleCalculator);

}  // namespace rill
