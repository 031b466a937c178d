// RectTransformationCalculator scales, shifts and squares rects (MediaPipe's
// calculator of the same name). Exactly one input of NORM_RECT
// (NormalizedRect), NORM_RECTS (std::vector<NormalizedRect>), RECT (Rect) or
// RECTS (std::vector<Rect>); the normalized forms also take IMAGE_SIZE
// (std::pair<int, int>, width and height) so that shifts under rotation and
// squaring happen in pixels. The one untagged output has the input's type.
//
//   node {
//     calculator: "RectTransformationCalculator"
//     input_stream: "NORM_RECT:roi"
//     input_stream: "IMAGE_SIZE:image_size"
//     output_stream: "roi_scaled"
//     options { [mediapipe.RectTransformationCalculatorOptions.ext] {
//       scale_x: 1.5 scale_y: 1.5 shift_y: -0.1 square_long: true } }
//   }
//
// The shift runs along the rect's own sides: by shift_x of its width along
// its x side and shift_y of its height along its y side, turned by the
// rect's rotation (plus the rotation option, which, as in MediaPipe, only
// turns the shift; the output's rotation field is the input's). Squaring
// uses the long or short side, then the scales apply. A normalized rect
// waits for IMAGE_SIZE at its timestamp: without it nothing is emitted.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/util/rect_transformation_calculator.pb.h"
#include "calculators/util/rect_util.h"
#include "framework/calculator_base.h"
#include "framework/formats/rect.pb.h"

namespace rill {
namespace {

constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kNormRectsTag[] = "NORM_RECTS";
constexpr char kRectTag[] = "RECT";
constexpr char kRectsTag[] = "RECTS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";

bool HasPacket(CalculatorContext* cc, const char* tag) {
  return cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty();
}

}  // namespace

class RectTransformationCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<RectTransformationCalculatorOptions>();
    const std::string where = absl::StrCat(
        "RectTransformationCalculator node \"", cc->GetNodeName(), "\"");
    const int inputs = cc->Inputs().HasTag(kNormRectTag) +
                       cc->Inputs().HasTag(kNormRectsTag) +
                       cc->Inputs().HasTag(kRectTag) +
                       cc->Inputs().HasTag(kRectsTag);
    if (inputs != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       " needs exactly one of the NORM_RECT, NORM_RECTS, RECT "
                       "and RECTS input streams, has ",
                       inputs));
    }
    if (cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " needs one untagged output stream"));
    }
    const bool normalized =
        cc->Inputs().HasTag(kNormRectTag) || cc->Inputs().HasTag(kNormRectsTag);
    if (normalized && !cc->Inputs().HasTag(kImageSizeTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " transforms normalized rects, so it needs an IMAGE_SIZE "
                 "input stream"));
    }
    if (cc->Inputs().HasTag(kImageSizeTag)) {
      cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
    }
    if (cc->Inputs().HasTag(kRectTag)) {
      cc->Inputs().Tag(kRectTag).Set<Rect>();
      cc->Outputs().Index(0).Set<Rect>();
    }
    if (cc->Inputs().HasTag(kRectsTag)) {
      cc->Inputs().Tag(kRectsTag).Set<std::vector<Rect>>();
      cc->Outputs().Index(0).Set<std::vector<Rect>>();
    }
    if (cc->Inputs().HasTag(kNormRectTag)) {
      cc->Inputs().Tag(kNormRectTag).Set<NormalizedRect>();
      cc->Outputs().Index(0).Set<NormalizedRect>();
    }
    if (cc->Inputs().HasTag(kNormRectsTag)) {
      cc->Inputs().Tag(kNormRectsTag).Set<std::vector<NormalizedRect>>();
      cc->Outputs().Index(0).Set<std::vector<NormalizedRect>>();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<RectTransformationCalculatorOptions>();
    const std::string where = absl::StrCat(
        "RectTransformationCalculator node \"", cc->NodeName(), "\": ");
    if (options_.has_rotation() && options_.has_rotation_degrees()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "set rotation or rotation_degrees, not both"));
    }
    if (options_.has_square_long() && options_.has_square_short()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "set square_long or square_short, not both"));
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const Timestamp ts = cc->InputTimestamp();
    if (HasPacket(cc, kRectTag)) {
      Rect rect = cc->Inputs().Tag(kRectTag).Get<Rect>();
      TransformRect(&rect);
      cc->Outputs().Index(0).AddPacket(MakePacket<Rect>(rect).At(ts));
    }
    if (HasPacket(cc, kRectsTag)) {
      std::vector<Rect> rects =
          cc->Inputs().Tag(kRectsTag).Get<std::vector<Rect>>();
      for (Rect& rect : rects) TransformRect(&rect);
      cc->Outputs().Index(0).AddPacket(
          MakePacket<std::vector<Rect>>(std::move(rects)).At(ts));
    }
    if (!HasPacket(cc, kImageSizeTag)) return absl::OkStatus();
    const auto& size =
        cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
    if (HasPacket(cc, kNormRectTag)) {
      NormalizedRect rect =
          cc->Inputs().Tag(kNormRectTag).Get<NormalizedRect>();
      TransformNormalizedRect(&rect, size.first, size.second);
      cc->Outputs().Index(0).AddPacket(MakePacket<NormalizedRect>(rect).At(ts));
    }
    if (HasPacket(cc, kNormRectsTag)) {
      std::vector<NormalizedRect> rects =
          cc->Inputs().Tag(kNormRectsTag).Get<std::vector<NormalizedRect>>();
      for (NormalizedRect& rect : rects) {
        TransformNormalizedRect(&rect, size.first, size.second);
      }
      cc->Outputs().Index(0).AddPacket(
          MakePacket<std::vector<NormalizedRect>>(std::move(rects)).At(ts));
    }
    return absl::OkStatus();
  }

 private:
  // The angle the shift is turned by.
  float ShiftRotation(float rotation) const {
    if (options_.has_rotation()) {
      return NormalizeRadians(rotation + options_.rotation());
    }
    if (options_.has_rotation_degrees()) {
      return NormalizeRadians(rotation +
                              M_PI * options_.rotation_degrees() / 180.f);
    }
    return rotation;
  }

  void TransformRect(Rect* rect) const {
    float width = rect->width();
    float height = rect->height();
    const float rotation = ShiftRotation(rect->rotation());
    const float sx = width * options_.shift_x();
    const float sy = height * options_.shift_y();
    if (rotation == 0.f) {
      rect->set_x_center(rect->x_center() + sx);
      rect->set_y_center(rect->y_center() + sy);
    } else {
      const float c = std::cos(rotation), s = std::sin(rotation);
      rect->set_x_center(rect->x_center() + (sx * c - sy * s));
      rect->set_y_center(rect->y_center() + (sx * s + sy * c));
    }
    if (options_.square_long()) {
      width = height = std::max(width, height);
    } else if (options_.square_short()) {
      width = height = std::min(width, height);
    }
    rect->set_width(width * options_.scale_x());
    rect->set_height(height * options_.scale_y());
  }

  void TransformNormalizedRect(NormalizedRect* rect, int image_width,
                               int image_height) const {
    float width = rect->width();
    float height = rect->height();
    const float rotation = ShiftRotation(rect->rotation());
    if (rotation == 0.f) {
      rect->set_x_center(rect->x_center() + width * options_.shift_x());
      rect->set_y_center(rect->y_center() + height * options_.shift_y());
    } else {
      // The shift in pixels, turned, then back to fractions of each axis.
      const float sx = image_width * width * options_.shift_x();
      const float sy = image_height * height * options_.shift_y();
      const float c = std::cos(rotation), s = std::sin(rotation);
      rect->set_x_center(rect->x_center() + (sx * c - sy * s) / image_width);
      rect->set_y_center(rect->y_center() + (sx * s + sy * c) / image_height);
    }
    if (options_.square_long() || options_.square_short()) {
      const float w = width * image_width, h = height * image_height;
      const float side =
          options_.square_long() ? std::max(w, h) : std::min(w, h);
      width = side / image_width;
      height = side / image_height;
    }
    rect->set_width(width * options_.scale_x());
    rect->set_height(height * options_.scale_y());
  }

  RectTransformationCalculatorOptions options_;
};
REGISTER_CALCULATOR(RectTransformationCalculator);

}  // namespace rill
