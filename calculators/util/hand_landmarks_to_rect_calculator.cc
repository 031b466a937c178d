// HandLandmarksToRectCalculator finds the hand's ROI for the next frame from
// its landmarks (MediaPipe's hand_landmark module calculator):
//
//   node {
//     calculator: "HandLandmarksToRectCalculator"
//     input_stream: "NORM_LANDMARKS:hand_landmarks"  # NormalizedLandmarkList
//     input_stream: "IMAGE_SIZE:image_size"          # std::pair<int, int>
//     output_stream: "NORM_RECT:hand_rect_from_landmarks"
//   }
//
// Of the 21 hand landmarks it uses the wrist, the thumb's first three and
// two joints of each finger (0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18); any
// other count is taken as that subset already. The rotation makes the
// vector from the wrist (0) to the mean of the middle finger's PIP and the
// index/ring PIPs' midpoint (list entries 4, 6, 8 of the subset) point up.
// The rect is the smallest one of that rotation around the landmarks (in
// pixels); it is not enlarged here (RectTransformationCalculator does that).
// Needs IMAGE_SIZE at the landmarks' timestamp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calculators/util/rect_util.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {
namespace {

constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";

// Entries of the 12-landmark subset.
constexpr int kWrist = 0;
constexpr int kIndexPip = 4;
constexpr int kMiddlePip = 6;
constexpr int kRingPip = 8;
constexpr int kNumHandLandmarks = 21;
constexpr int kSubset[] = {0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18};

float HandRotation(const NormalizedLandmarkList& lms, float w, float h) {
  const float x0 = lms.landmark(kWrist).x() * w;
  const float y0 = lms.landmark(kWrist).y() * h;
  float x1 = (lms.landmark(kIndexPip).x() + lms.landmark(kRingPip).x()) / 2.f;
  float y1 = (lms.landmark(kIndexPip).y() + lms.landmark(kRingPip).y()) / 2.f;
  x1 = (x1 + lms.landmark(kMiddlePip).x()) / 2.f * w;
  y1 = (y1 + lms.landmark(kMiddlePip).y()) / 2.f * h;
  return NormalizeRadians(M_PI * 0.5f - std::atan2(-(y1 - y0), x1 - x0));
}

NormalizedRect LandmarksToRect(const NormalizedLandmarkList& lms, int width,
                               int height) {
  const float w = width, h = height;
  const float rotation = HandRotation(lms, w, h);
  const float reverse = NormalizeRadians(-rotation);
  // Maxima start at FLT_MIN as in MediaPipe (coordinates here are >= 0 in
  // practice, and the rotated ones straddle 0).
  float min_x = std::numeric_limits<float>::max(), min_y = min_x;
  float max_x = std::numeric_limits<float>::min(), max_y = max_x;
  for (const auto& lm : lms.landmark()) {
    min_x = std::min(min_x, lm.x());
    max_x = std::max(max_x, lm.x());
    min_y = std::min(min_y, lm.y());
    max_y = std::max(max_y, lm.y());
  }
  const float center_x = (max_x + min_x) / 2.f;
  const float center_y = (max_y + min_y) / 2.f;
  // Bounds of the landmarks turned upright, in pixels about that center.
  min_x = min_y = std::numeric_limits<float>::max();
  max_x = max_y = std::numeric_limits<float>::min();
  const float cr = std::cos(reverse), sr = std::sin(reverse);
  for (const auto& lm : lms.landmark()) {
    const float x = (lm.x() - center_x) * w;
    const float y = (lm.y() - center_y) * h;
    const float px = x * cr - y * sr;
    const float py = x * sr + y * cr;
    min_x = std::min(min_x, px);
    max_x = std::max(max_x, px);
    min_y = std::min(min_y, py);
    max_y = std::max(max_y, py);
  }
  const float pcx = (max_x + min_x) / 2.f;
  const float pcy = (max_y + min_y) / 2.f;
  const float c = std::cos(rotation), s = std::sin(rotation);
  NormalizedRect rect;
  rect.set_x_center((pcx * c - pcy * s + w * center_x) / w);
  rect.set_y_center((pcx * s + pcy * c + h * center_y) / h);
  rect.set_width((max_x - min_x) / w);
  rect.set_height((max_y - min_y) / h);
  rect.set_rotation(rotation);
  return rect;
}

}  // namespace

class HandLandmarksToRectCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
    cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
    cc->Outputs().Tag(kNormRectTag).Set<NormalizedRect>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in = cc->Inputs().Tag(kNormLandmarksTag);
    if (in.IsEmpty()) return absl::OkStatus();
    const std::string where = absl::StrCat(
        "HandLandmarksToRectCalculator node \"", cc->NodeName(), "\" at ",
        cc->InputTimestamp().DebugString(), ": ");
    if (cc->Inputs().Tag(kImageSizeTag).IsEmpty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "landmarks arrived without IMAGE_SIZE at the same "
                 "timestamp"));
    }
    const auto& size =
        cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
    const auto& all = in.Get<NormalizedLandmarkList>();
    NormalizedLandmarkList subset;
    if (all.landmark_size() == kNumHandLandmarks) {
      for (int i : kSubset) *subset.add_landmark() = all.landmark(i);
    } else {
      subset = all;
    }
    if (subset.landmark_size() <= kRingPip) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "needs 21 hand landmarks (or their 12-landmark subset), "
                 "got ",
          all.landmark_size()));
    }
    cc->Outputs().Tag(kNormRectTag).AddPacket(
        MakePacket<NormalizedRect>(
            LandmarksToRect(subset, size.first, size.second))
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(HandLandmarksToRectCalculator);

}  // namespace rill
