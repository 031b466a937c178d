// RoiTrackingCalculator decides whether to keep last frame's ROI or take
// this frame's re-crop rect (MediaPipe's holistic face/hand tracking):
//
//   node {
//     calculator: "RoiTrackingCalculator"
//     input_stream: "PREV_LANDMARKS:prev_landmarks"      # NormalizedLandmarkList
//     input_stream: "PREV_LANDMARKS_RECT:prev_rect"      # NormalizedRect
//     input_stream: "RECROP_RECT:recrop_rect"            # NormalizedRect
//     input_stream: "IMAGE_SIZE:image_size"              # std::pair<int, int>
//     output_stream: "TRACKING_RECT:tracking_rect"       # NormalizedRect
//     options { [mediapipe.RoiTrackingCalculatorOptions.ext] {
//       rect_requirements { rotation_degrees: 15 translation: 0.1 scale: 0.3 }
//       landmarks_requirements { recrop_rect_margin: -0.2 } } }
//   }
//
// No RECROP_RECT: no output. RECROP_RECT without PREV_LANDMARKS_RECT: the
// re-crop rect. Both: the previous rect when every requirement given holds,
// else the re-crop rect (the packet passed on is the input's own). All
// checks are in pixels along the re-crop rect's axes:
//   iou_requirements: IoU(prev, recrop) (unrotated) >= min_iou;
//   rect_requirements: |rotation change| <= rotation_degrees, center shift
//     along each axis <= translation * that side of the re-crop rect,
//     |width change| and |height change| <= scale * that side;
//   landmarks_requirements: every previous landmark strictly inside the
//     re-crop rect grown by recrop_rect_margin on each side's length.
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/util/rect_util.h"
#include "calculators/util/roi_tracking_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {
namespace {

constexpr char kPrevLandmarksTag[] = "PREV_LANDMARKS";
constexpr char kPrevLandmarksRectTag[] = "PREV_LANDMARKS_RECT";
constexpr char kRecropRectTag[] = "RECROP_RECT";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kTrackingRectTag[] = "TRACKING_RECT";

using ImageSize = std::pair<int, int>;

bool IouSatisfied(const NormalizedRect& prev, const NormalizedRect& recrop,
                  const ImageSize& size, float min_iou) {
  // Only the sizes and the offset between the centers matter for the IoU.
  auto box = [&size](const NormalizedRect& r) {
    Box b;
    b.width = r.width() * size.first;
    b.height = r.height() * size.second;
    b.xmin = r.x_center() * size.first - b.width / 2;
    b.ymin = r.y_center() * size.second - b.height / 2;
    return b;
  };
  return BoxIou(box(prev), box(recrop)) >= min_iou;
}

// `x`, `y` (image fractions) in pixels, turned by `angle`.
std::pair<float, float> Turn(float x, float y, const ImageSize& size,
                             float cosa, float sina) {
  const float px = x * size.first, py = y * size.second;
  return {px * cosa - py * sina, px * sina + py * cosa};
}

bool RectSatisfied(const NormalizedRect& prev, const NormalizedRect& recrop,
                   const ImageSize& size,
                   const RoiTrackingCalculatorOptions::RectRequirements& req) {
  // Turn both centers so that the re-crop rect's sides lie along the axes.
  const float cosa = std::cos(-recrop.rotation());
  const float sina = std::sin(-recrop.rotation());
  const auto [prev_x, prev_y] =
      Turn(prev.x_center(), prev.y_center(), size, cosa, sina);
  const auto [recrop_x, recrop_y] =
      Turn(recrop.x_center(), recrop.y_center(), size, cosa, sina);
  const float prev_w = prev.width() * size.first;
  const float prev_h = prev.height() * size.second;
  const float recrop_w = recrop.width() * size.first;
  const float recrop_h = recrop.height() * size.second;

  float rotation_diff = (prev.rotation() - recrop.rotation()) / M_PI * 180.f;
  if (rotation_diff > 180.f) rotation_diff -= 360.f;
  if (rotation_diff < -180.f) rotation_diff += 360.f;
  bool ok = true;
  if (std::abs(rotation_diff) > req.rotation_degrees()) ok = false;
  if (std::abs(prev_x - recrop_x) > recrop_w * req.translation()) ok = false;
  if (std::abs(prev_y - recrop_y) > recrop_h * req.translation()) ok = false;
  if (std::abs(prev_w - recrop_w) > recrop_w * req.scale()) ok = false;
  if (std::abs(prev_h - recrop_h) > recrop_h * req.scale()) ok = false;
  return ok;
}

bool LandmarksSatisfied(const NormalizedLandmarkList& landmarks,
                        const NormalizedRect& recrop, const ImageSize& size,
                        float margin) {
  // Rotation is clockwise; turning by its negative makes the rect upright.
  const float cosa = std::cos(-recrop.rotation());
  const float sina = std::sin(-recrop.rotation());
  const auto [cx, cy] =
      Turn(recrop.x_center(), recrop.y_center(), size, cosa, sina);
  const float w = recrop.width() * size.first * (1.f + margin);
  const float h = recrop.height() * size.second * (1.f + margin);
  const float left = cx - w * 0.5f, right = cx + w * 0.5f;
  const float top = cy - h * 0.5f, bottom = cy + h * 0.5f;
  for (const auto& lm : landmarks.landmark()) {
    const auto [x, y] = Turn(lm.x(), lm.y(), size, cosa, sina);
    if (!(left < x && x < right && top < y && y < bottom)) return false;
  }
  return true;
}

}  // namespace

class RoiTrackingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<RoiTrackingCalculatorOptions>();
    cc->Inputs().Tag(kPrevLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Inputs().Tag(kPrevLandmarksRectTag).Set<NormalizedRect>();
    cc->Inputs().Tag(kRecropRectTag).Set<NormalizedRect>();
    cc->Inputs().Tag(kImageSizeTag).Set<ImageSize>();
    cc->Outputs().Tag(kTrackingRectTag).Set<NormalizedRect>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<RoiTrackingCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& recrop_in = cc->Inputs().Tag(kRecropRectTag);
    const InputStreamShard& prev_rect_in =
        cc->Inputs().Tag(kPrevLandmarksRectTag);
    OutputStreamShard& out = cc->Outputs().Tag(kTrackingRectTag);
    if (recrop_in.IsEmpty()) return absl::OkStatus();
    if (prev_rect_in.IsEmpty()) {
      out.AddPacket(recrop_in.Value());
      return absl::OkStatus();
    }
    const std::string where =
        absl::StrCat("RoiTrackingCalculator node \"", cc->NodeName(), "\" at ",
                     cc->InputTimestamp().DebugString(), ": ");
    const InputStreamShard& prev_landmarks_in =
        cc->Inputs().Tag(kPrevLandmarksTag);
    const InputStreamShard& size_in = cc->Inputs().Tag(kImageSizeTag);
    if (size_in.IsEmpty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "IMAGE_SIZE is missing"));
    }
    if (options_.has_landmarks_requirements() && prev_landmarks_in.IsEmpty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "PREV_LANDMARKS_RECT arrived without PREV_LANDMARKS"));
    }
    const auto& prev_rect = prev_rect_in.Get<NormalizedRect>();
    const auto& recrop = recrop_in.Get<NormalizedRect>();
    const auto& size = size_in.Get<ImageSize>();
    bool keep = true;
    if (options_.has_iou_requirements() &&
        !IouSatisfied(prev_rect, recrop, size,
                      options_.iou_requirements().min_iou())) {
      keep = false;
    }
    if (options_.has_rect_requirements() &&
        !RectSatisfied(prev_rect, recrop, size,
                       options_.rect_requirements())) {
      keep = false;
    }
    if (options_.has_landmarks_requirements() &&
        !LandmarksSatisfied(
            prev_landmarks_in.Get<NormalizedLandmarkList>(), recrop, size,
            options_.landmarks_requirements().recrop_rect_margin())) {
      keep = false;
    }
    out.AddPacket(keep ? prev_rect_in.Value() : recrop_in.Value());
    return absl::OkStatus();
  }

 private:
  RoiTrackingCalculatorOptions options_;
};
REGISTER_CALCULATOR(RoiTrackingCalculator);

}  // namespace rill
