// RectToRenderDataCalculator draws rects (MediaPipe's calculator of the same
// name): exactly one of NORM_RECT (NormalizedRect), RECT (Rect), NORM_RECTS
// and RECTS (vectors) in; RENDER_DATA (RenderData) out, one annotation per
// rect: a rectangle, filled rectangle, oval or filled oval (options filled,
// oval) with the rect's rotation, in the option's color and thickness.
//
//   node {
//     calculator: "RectToRenderDataCalculator"
//     input_stream: "NORM_RECTS:hand_rects"
//     output_stream: "RENDER_DATA:hand_rects_render_data"
//     options { [mediapipe.RectToRenderDataCalculatorOptions.ext] {
//       filled: false color { r: 255 g: 0 b: 0 } thickness: 4.0 } }
//   }
//
// An unrotated rect entirely left of or above the image (or, normalized,
// right of or below it) keeps its annotation but with no coordinates, as in
// MediaPipe. Every timestamp with a rect packet gives a RenderData.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/render/rect_to_render_data_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/rect.pb.h"
#include "framework/formats/render_data.pb.h"

namespace rill {
namespace {

constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kRectTag[] = "RECT";
constexpr char kNormRectsTag[] = "NORM_RECTS";
constexpr char kRectsTag[] = "RECTS";
constexpr char kRenderDataTag[] = "RENDER_DATA";

// A new annotation styled by the options; returns its rectangle.
RenderAnnotation::Rectangle* NewRectangle(
    const RectToRenderDataCalculatorOptions& options, RenderData* data) {
  RenderAnnotation* a = data->add_render_annotations();
  a->mutable_color()->set_r(options.color().r());
  a->mutable_color()->set_g(options.color().g());
  a->mutable_color()->set_b(options.color().b());
  a->set_thickness(options.thickness());
  if (options.has_top_left_thickness()) {
    a->mutable_rectangle()->set_top_left_thickness(
        options.top_left_thickness());
  }
  if (options.oval()) {
    return options.filled()
               ? a->mutable_filled_oval()->mutable_oval()->mutable_rectangle()
               : a->mutable_oval()->mutable_rectangle();
  }
  return options.filled() ? a->mutable_filled_rectangle()->mutable_rectangle()
                          : a->mutable_rectangle();
}

void SetRectangle(bool normalized, double xmin, double ymin, double width,
                  double height, double rotation,
                  RenderAnnotation::Rectangle* r) {
  if (rotation == 0.0) {
    if (xmin + width < 0.0 || ymin + height < 0.0) return;
    if (normalized && (xmin > 1.0 || ymin > 1.0)) return;
  }
  r->set_normalized(normalized);
  r->set_left(xmin);
  r->set_top(ymin);
  r->set_right(xmin + width);
  r->set_bottom(ymin + height);
  r->set_rotation(rotation);
}

template <typename R>
void AddRect(const RectToRenderDataCalculatorOptions& options, bool normalized,
             const R& rect, RenderData* data) {
  SetRectangle(normalized, rect.x_center() - rect.width() / 2.f,
               rect.y_center() - rect.height() / 2.f, rect.width(),
               rect.height(), rect.rotation(), NewRectangle(options, data));
}

}  // namespace

class RectToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<RectToRenderDataCalculatorOptions>();
    const int inputs =
        cc->Inputs().HasTag(kNormRectTag) + cc->Inputs().HasTag(kRectTag) +
        cc->Inputs().HasTag(kNormRectsTag) + cc->Inputs().HasTag(kRectsTag);
    if (inputs != 1 || !cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RectToRenderDataCalculator node \"", cc->GetNodeName(),
          "\" needs exactly one of the NORM_RECT, RECT, NORM_RECTS and RECTS "
          "input streams (has ",
          inputs, ") and a RENDER_DATA output stream"));
    }
    if (cc->Inputs().HasTag(kNormRectTag)) {
      cc->Inputs().Tag(kNormRectTag).Set<NormalizedRect>();
    }
    if (cc->Inputs().HasTag(kRectTag)) cc->Inputs().Tag(kRectTag).Set<Rect>();
    if (cc->Inputs().HasTag(kNormRectsTag)) {
      cc->Inputs().Tag(kNormRectsTag).Set<std::vector<NormalizedRect>>();
    }
    if (cc->Inputs().HasTag(kRectsTag)) {
      cc->Inputs().Tag(kRectsTag).Set<std::vector<Rect>>();
    }
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<RectToRenderDataCalculatorOptions>();
    if (options_.has_top_left_thickness() &&
        (options_.filled() || options_.oval())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RectToRenderDataCalculator node \"", cc->NodeName(),
          "\": top_left_thickness works only with filled: false and "
          "oval: false"));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    RenderData data;
    auto has = [cc](const char* tag) {
      return cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty();
    };
    if (has(kNormRectTag)) {
      AddRect(options_, true, cc->Inputs().Tag(kNormRectTag).Get<NormalizedRect>(),
              &data);
    }
    if (has(kRectTag)) {
      AddRect(options_, false, cc->Inputs().Tag(kRectTag).Get<Rect>(), &data);
    }
    if (has(kNormRectsTag)) {
      for (const auto& r :
           cc->Inputs().Tag(kNormRectsTag).Get<std::vector<NormalizedRect>>()) {
        AddRect(options_, true, r, &data);
      }
    }
    if (has(kRectsTag)) {
      for (const auto& r : cc->Inputs().Tag(kRectsTag).Get<std::vector<Rect>>()) {
        AddRect(options_, false, r, &data);
      }
    }
    cc->Outputs().Tag(kRenderDataTag).AddPacket(
        MakePacket<RenderData>(std::move(data)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  RectToRenderDataCalculatorOptions options_;
};
REGISTER_CALCULATOR(RectToRenderDataCalculator);

}  // namespace rill
