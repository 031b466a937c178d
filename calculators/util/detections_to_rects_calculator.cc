#include "calculators/util/detections_to_rects_calculator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/util/rect_util.h"
#include "framework/formats/location_data.pb.h"

namespace rill {
namespace {

constexpr char kDetectionTag[] = "DETECTION";
constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kRectTag[] = "RECT";
constexpr char kNormRectTag[] = "NORM_RECT";
constexpr char kRectsTag[] = "RECTS";
constexpr char kNormRectsTag[] = "NORM_RECTS";

// The box around the keypoints (at least two).
absl::Status NormRectFromKeypoints(const std::string& where,
                                   const LocationData& location,
                                   NormalizedRect* rect) {
  if (location.relative_keypoints_size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "a rect from keypoints needs at least 2 keypoints, the "
               "detection has ",
        location.relative_keypoints_size()));
  }
  float xmin = std::numeric_limits<float>::max(), ymin = xmin;
  float xmax = std::numeric_limits<float>::lowest(), ymax = xmax;
  for (const auto& kp : location.relative_keypoints()) {
    xmin = std::min(xmin, kp.x());
    ymin = std::min(ymin, kp.y());
    xmax = std::max(xmax, kp.x());
    ymax = std::max(ymax, kp.y());
  }
  rect->set_x_center((xmin + xmax) / 2);
  rect->set_y_center((ymin + ymax) / 2);
  rect->set_width(xmax - xmin);
  rect->set_height(ymax - ymin);
  return absl::OkStatus();
}

template <class B, class R>
void RectFromBox(const B& box, R* rect) {
  rect->set_x_center(box.xmin() + box.width() / 2);
  rect->set_y_center(box.ymin() + box.height() / 2);
  rect->set_width(box.width());
  rect->set_height(box.height());
}

bool HasPacket(CalculatorContext* cc, const char* tag) {
  return cc->Inputs().HasTag(tag) && !cc->Inputs().Tag(tag).IsEmpty();
}

}  // namespace

absl::Status DetectionsToRectsCalculator::GetContract(CalculatorContract* cc) {
  cc->UseOptions<DetectionsToRectsCalculatorOptions>();
  const std::string where =
      absl::StrCat(cc->GetNodeConfig().calculator(), " node \"",
                   cc->GetNodeName(), "\"");
  if (cc->Inputs().HasTag(kDetectionTag) ==
      cc->Inputs().HasTag(kDetectionsTag)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " needs exactly one of the DETECTION and DETECTIONS input "
               "streams"));
  }
  const int outputs =
      cc->Outputs().HasTag(kNormRectTag) + cc->Outputs().HasTag(kRectTag) +
      cc->Outputs().HasTag(kNormRectsTag) + cc->Outputs().HasTag(kRectsTag);
  if (outputs != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     " needs exactly one of the NORM_RECT, RECT, NORM_RECTS "
                     "and RECTS output streams, has ",
                     outputs));
  }
  if (cc->Inputs().HasTag(kDetectionTag)) {
    cc->Inputs().Tag(kDetectionTag).Set<Detection>();
  }
  if (cc->Inputs().HasTag(kDetectionsTag)) {
    cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
  }
  if (cc->Inputs().HasTag(kImageSizeTag)) {
    cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
  }
  if (cc->Outputs().HasTag(kRectTag)) cc->Outputs().Tag(kRectTag).Set<Rect>();
  if (cc->Outputs().HasTag(kNormRectTag)) {
    cc->Outputs().Tag(kNormRectTag).Set<NormalizedRect>();
  }
  if (cc->Outputs().HasTag(kRectsTag)) {
    cc->Outputs().Tag(kRectsTag).Set<std::vector<Rect>>();
  }
  if (cc->Outputs().HasTag(kNormRectsTag)) {
    cc->Outputs().Tag(kNormRectsTag).Set<std::vector<NormalizedRect>>();
  }
  cc->SetTimestampOffset(TimestampDiff(0));
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::Open(CalculatorContext* cc) {
  where_ = absl::StrCat(cc->CalculatorType(), " node \"", cc->NodeName(),
                        "\": ");
  options_ = cc->Options<DetectionsToRectsCalculatorOptions>();
  if (options_.has_rotation_vector_start_keypoint_index()) {
    if (!options_.has_rotation_vector_end_keypoint_index()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "rotation_vector_start_keypoint_index needs "
                  "rotation_vector_end_keypoint_index"));
    }
    if (options_.has_rotation_vector_target_angle() ==
        options_.has_rotation_vector_target_angle_degrees()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "a rotation vector needs exactly one of "
                  "rotation_vector_target_angle and "
                  "rotation_vector_target_angle_degrees"));
    }
    if (!cc->Inputs().HasTag(kImageSizeTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "a rotation vector needs the IMAGE_SIZE input stream"));
    }
    target_angle_ = options_.has_rotation_vector_target_angle()
                        ? options_.rotation_vector_target_angle()
                        : M_PI * options_.rotation_vector_target_angle_degrees() /
                              180.f;
    start_keypoint_index_ = options_.rotation_vector_start_keypoint_index();
    end_keypoint_index_ = options_.rotation_vector_end_keypoint_index();
    rotate_ = true;
  }
  output_zero_rect_for_empty_detections_ =
      options_.output_zero_rect_for_empty_detections();
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::Process(CalculatorContext* cc) {
  if (cc->Inputs().HasTag(kDetectionTag) &&
      cc->Inputs().Tag(kDetectionTag).IsEmpty()) {
    return absl::OkStatus();
  }
  if (cc->Inputs().HasTag(kDetectionsTag) &&
      cc->Inputs().Tag(kDetectionsTag).IsEmpty()) {
    return absl::OkStatus();
  }
  if (rotate_ && !HasPacket(cc, kImageSizeTag)) return absl::OkStatus();

  const Timestamp ts = cc->InputTimestamp();
  // The input detections, read in place: a face mesh's detection carries
  // its 468 landmarks as keypoints, too many to copy per frame.
  const Detection* single = nullptr;
  const std::vector<Detection>* many = nullptr;
  if (cc->Inputs().HasTag(kDetectionTag)) {
    single = &cc->Inputs().Tag(kDetectionTag).Get<Detection>();
  } else {
    many = &cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>();
    if (many->empty()) {
      if (output_zero_rect_for_empty_detections_) {
        // Default rects (every field reads 0, none is set), as MediaPipe
        // emits; RECTS gets nothing.
        const Rect zero;
        const NormalizedRect norm_zero;
        if (cc->Outputs().HasTag(kRectTag)) {
          cc->Outputs().Tag(kRectTag).AddPacket(MakePacket<Rect>(zero).At(ts));
        }
        if (cc->Outputs().HasTag(kNormRectTag)) {
          cc->Outputs().Tag(kNormRectTag).AddPacket(
              MakePacket<NormalizedRect>(norm_zero).At(ts));
        }
        if (cc->Outputs().HasTag(kNormRectsTag)) {
          cc->Outputs().Tag(kNormRectsTag).AddPacket(
              MakePacket<std::vector<NormalizedRect>>(1, norm_zero).At(ts));
        }
      }
      return absl::OkStatus();
    }
  }

  const size_t count = single != nullptr ? 1 : many->size();
  auto detection = [&](size_t i) -> const Detection& {
    return single != nullptr ? *single : (*many)[i];
  };

  DetectionSpec spec;
  if (HasPacket(cc, kImageSizeTag)) {
    spec.image_size =
        cc->Inputs().Tag(kImageSizeTag).Get<std::pair<int, int>>();
  }
  // Converts detection(i) (and sets its rotation when asked).
  auto to_rect = [&](size_t i, Rect* rect) -> absl::Status {
    RILL_RETURN_IF_ERROR(DetectionToRect(detection(i), spec, rect));
    if (rotate_) {
      float rotation = 0.f;
      RILL_RETURN_IF_ERROR(ComputeRotation(detection(i), spec, &rotation));
      rect->set_rotation(rotation);
    }
    return absl::OkStatus();
  };
  auto to_norm_rect = [&](size_t i, NormalizedRect* rect) -> absl::Status {
    RILL_RETURN_IF_ERROR(DetectionToNormalizedRect(detection(i), spec, rect));
    if (rotate_) {
      float rotation = 0.f;
      RILL_RETURN_IF_ERROR(ComputeRotation(detection(i), spec, &rotation));
      rect->set_rotation(rotation);
    }
    return absl::OkStatus();
  };

  if (cc->Outputs().HasTag(kRectTag)) {
    Rect rect;
    RILL_RETURN_IF_ERROR(to_rect(0, &rect));
    cc->Outputs().Tag(kRectTag).AddPacket(MakePacket<Rect>(rect).At(ts));
  }
  if (cc->Outputs().HasTag(kNormRectTag)) {
    NormalizedRect rect;
    RILL_RETURN_IF_ERROR(to_norm_rect(0, &rect));
    cc->Outputs().Tag(kNormRectTag).AddPacket(
        MakePacket<NormalizedRect>(rect).At(ts));
  }
  if (cc->Outputs().HasTag(kRectsTag)) {
    std::vector<Rect> rects(count);
    for (size_t i = 0; i < count; ++i) {
      RILL_RETURN_IF_ERROR(to_rect(i, &rects[i]));
    }
    cc->Outputs().Tag(kRectsTag).AddPacket(
        MakePacket<std::vector<Rect>>(std::move(rects)).At(ts));
  }
  if (cc->Outputs().HasTag(kNormRectsTag)) {
    std::vector<NormalizedRect> rects(count);
    for (size_t i = 0; i < count; ++i) {
      RILL_RETURN_IF_ERROR(to_norm_rect(i, &rects[i]));
    }
    cc->Outputs().Tag(kNormRectsTag).AddPacket(
        MakePacket<std::vector<NormalizedRect>>(std::move(rects)).At(ts));
  }
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::DetectionToRect(
    const Detection& detection, const DetectionSpec& spec, Rect* rect) {
  const LocationData& location = detection.location_data();
  if (options_.conversion_mode() ==
      DetectionsToRectsCalculatorOptions::USE_KEYPOINTS) {
    if (!spec.image_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          where_, "a RECT from keypoints needs IMAGE_SIZE at the same "
                  "timestamp"));
    }
    const int width = spec.image_size->first;
    const int height = spec.image_size->second;
    NormalizedRect norm;
    RILL_RETURN_IF_ERROR(NormRectFromKeypoints(where_, location, &norm));
    rect->set_x_center(std::round(norm.x_center() * width));
    rect->set_y_center(std::round(norm.y_center() * height));
    rect->set_width(std::round(norm.width() * width));
    rect->set_height(std::round(norm.height() * height));
    return absl::OkStatus();
  }
  if (location.format() != LocationData::BOUNDING_BOX) {
    return absl::InvalidArgumentError(absl::StrCat(
        where_, "only detections of format BOUNDING_BOX convert to a Rect"));
  }
  RectFromBox(location.bounding_box(), rect);
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::DetectionToNormalizedRect(
    const Detection& detection, const DetectionSpec& spec,
    NormalizedRect* rect) {
  const LocationData& location = detection.location_data();
  if (options_.conversion_mode() ==
      DetectionsToRectsCalculatorOptions::USE_KEYPOINTS) {
    return NormRectFromKeypoints(where_, location, rect);
  }
  if (location.format() != LocationData::RELATIVE_BOUNDING_BOX) {
    return absl::InvalidArgumentError(absl::StrCat(
        where_, "only detections of format RELATIVE_BOUNDING_BOX convert "
                "to a NormalizedRect"));
  }
  RectFromBox(location.relative_bounding_box(), rect);
  return absl::OkStatus();
}

absl::Status DetectionsToRectsCalculator::ComputeRotation(
    const Detection& detection, const DetectionSpec& spec, float* rotation) {
  if (!spec.image_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(where_, "rotation needs IMAGE_SIZE"));
  }
  const LocationData& location = detection.location_data();
  const int n = location.relative_keypoints_size();
  if (start_keypoint_index_ < 0 || start_keypoint_index_ >= n ||
      end_keypoint_index_ < 0 || end_keypoint_index_ >= n) {
    return absl::InvalidArgumentError(absl::StrCat(
        where_, "the rotation vector's keypoints ", start_keypoint_index_,
        " and ", end_keypoint_index_, " are not in a detection with ", n,
        " keypoints"));
  }
  const float w = spec.image_size->first, h = spec.image_size->second;
  const auto& start = location.relative_keypoints(start_keypoint_index_);
  const auto& end = location.relative_keypoints(end_keypoint_index_);
  const float x0 = start.x() * w, y0 = start.y() * h;
  const float x1 = end.x() * w, y1 = end.y() * h;
  // Image y points down; the angle is counter-clockwise as seen.
  *rotation = NormalizeRadians(target_angle_ - std::atan2(-(y1 - y0), x1 - x0));
  return absl::OkStatus();
}

REGISTER_CALCULATOR(DetectionsToRectsCalculator);

}  // namespace rill
