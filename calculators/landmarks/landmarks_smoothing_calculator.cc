// LandmarksSmoothingCalculator smooths landmarks over time, each coordinate
// of each landmark with a filter of its own (calculators/landmarks/filters.h):
// none, the relative velocity filter or the 1€ filter.
//
//   node {
//     calculator: "LandmarksSmoothingCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"  # or LANDMARKS:
//     input_stream: "IMAGE_SIZE:image_size"     # with NORM_LANDMARKS
//     input_stream: "OBJECT_SCALE_ROI:roi"      # optional
//     output_stream: "NORM_FILTERED_LANDMARKS:filtered"
//     options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
//       velocity_filter { window_size: 5 velocity_scale: 10.0 } } }
//   }
//
// LANDMARKS (LandmarkList, pixels) gives FILTERED_LANDMARKS;
// NORM_LANDMARKS (NormalizedLandmarkList) needs IMAGE_SIZE
// (std::pair<int, int>, width and height) and gives NORM_FILTERED_LANDMARKS.
// OBJECT_SCALE_ROI is a NormalizedRect with NORM_LANDMARKS, a Rect with
// LANDMARKS.
//
// Normalized landmarks are filtered in pixels (x * width, y * height,
// z * width) and converted back, so that x and y move at the same scale.
// The filters' value scale is 1 / object scale, the object scale being the
// mean of the width and height of OBJECT_SCALE_ROI (in pixels for a
// NormalizedRect) or, without one, of the landmarks' bounding box; below
// min_allowed_object_scale the landmarks pass unchanged. A timestamp with
// no landmarks (where another input has a packet, such as IMAGE_SIZE)
// resets the filters and emits nothing, so smoothing starts afresh when the
// object comes back. Visibility, presence and anything else pass unchanged.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "calculators/landmarks/filters.h"
#include "calculators/landmarks/landmarks_smoothing_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/rect.pb.h"

namespace rill {
namespace {

constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kImageSizeTag[] = "IMAGE_SIZE";
constexpr char kObjectScaleRoiTag[] = "OBJECT_SCALE_ROI";
constexpr char kNormFilteredTag[] = "NORM_FILTERED_LANDMARKS";
constexpr char kFilteredTag[] = "FILTERED_LANDMARKS";

using Options = LandmarksSmoothingCalculatorOptions;

// Mean of the width and height of the landmarks' axis-aligned bounding box.
float BoundingBoxScale(const LandmarkList& landmarks) {
  float x_min = landmarks.landmark(0).x(), x_max = x_min;
  float y_min = landmarks.landmark(0).y(), y_max = y_min;
  for (const Landmark& l : landmarks.landmark()) {
    x_min = std::min(x_min, l.x());
    x_max = std::max(x_max, l.x());
    y_min = std::min(y_min, l.y());
    y_max = std::max(y_max, l.y());
  }
  return ((x_max - x_min) + (y_max - y_min)) / 2.0f;
}

// Filters a whole landmark list; one implementation per filter option.
class ListFilter {
 public:
  virtual ~ListFilter() = default;
  virtual void Reset() {}
  virtual absl::Status Apply(const LandmarkList& in, int64_t timestamp_us,
                             std::optional<float> object_scale,
                             LandmarkList* out) = 0;
};

class NoListFilter : public ListFilter {
 public:
  absl::Status Apply(const LandmarkList& in, int64_t, std::optional<float>,
                     LandmarkList* out) override {
    *out = in;
    return absl::OkStatus();
  }
};

// The velocity and 1€ list filters: one Filter per coordinate, created on
// the first list (or the first after a reset).
template <typename Filter>
class PerCoordinateFilter : public ListFilter {
 public:
  PerCoordinateFilter(float min_allowed_object_scale,
                      bool disable_value_scaling,
                      Options::EmptyLandmarksPolicy empty_policy)
      : min_allowed_object_scale_(min_allowed_object_scale),
        disable_value_scaling_(disable_value_scaling),
        empty_policy_(empty_policy) {}

  void Reset() override { filters_.clear(); }

  absl::Status Apply(const LandmarkList& in, int64_t timestamp_us,
                     std::optional<float> object_scale,
                     LandmarkList* out) override {
    out->Clear();
    if (in.landmark_size() == 0) {
      if (empty_policy_ == Options::EMPTY_LANDMARKS_POLICY_RESET) {
        Reset();
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(
          "the landmark list is empty (set empty_landmarks_policy: "
          "EMPTY_LANDMARKS_POLICY_RESET to reset the filter instead)");
    }
    float value_scale = 1.0f;
    if (!disable_value_scaling_) {
      const float scale =
          object_scale.has_value() ? *object_scale : BoundingBoxScale(in);
      if (scale < min_allowed_object_scale_) {
        *out = in;
        return absl::OkStatus();
      }
      value_scale = 1.0f / scale;
    }
    if (filters_.empty()) {
      RILL_ASSIGN_OR_RETURN(filters_, MakeFilters(3 * in.landmark_size()));
    } else if (filters_.size() != 3u * in.landmark_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the landmark list has ", in.landmark_size(),
          " landmarks but the filters were set up for ", filters_.size() / 3,
          "; a list changes size only after a timestamp without landmarks"));
    }
    for (int i = 0; i < in.landmark_size(); ++i) {
      const Landmark& l = in.landmark(i);
      Landmark* o = out->add_landmark();
      *o = l;
      o->set_x(Step(&filters_[3 * i], timestamp_us, l.x(), value_scale));
      o->set_y(Step(&filters_[3 * i + 1], timestamp_us, l.y(), value_scale));
      o->set_z(Step(&filters_[3 * i + 2], timestamp_us, l.z(), value_scale));
    }
    return absl::OkStatus();
  }

 protected:
  virtual absl::StatusOr<std::vector<Filter>> MakeFilters(int n) const = 0;
  virtual float Step(Filter* f, int64_t timestamp_us, float value,
                     float value_scale) const = 0;

 private:
  float min_allowed_object_scale_;
  bool disable_value_scaling_;
  Options::EmptyLandmarksPolicy empty_policy_;
  std::vector<Filter> filters_;
};

class VelocityListFilter
    : public PerCoordinateFilter<filtering::RelativeVelocityFilter> {
 public:
  VelocityListFilter(const Options::VelocityFilter& o,
                     Options::EmptyLandmarksPolicy policy)
      : PerCoordinateFilter(o.min_allowed_object_scale(),
                            o.disable_value_scaling(), policy),
        window_size_(o.window_size()),
        velocity_scale_(o.velocity_scale()) {}

 protected:
  absl::StatusOr<std::vector<filtering::RelativeVelocityFilter>> MakeFilters(
      int n) const override {
    return std::vector<filtering::RelativeVelocityFilter>(
        n, filtering::RelativeVelocityFilter(window_size_, velocity_scale_));
  }
  float Step(filtering::RelativeVelocityFilter* f, int64_t timestamp_us,
             float value, float value_scale) const override {
    return f->Apply(timestamp_us, value, value_scale);
  }

 private:
  size_t window_size_;
  float velocity_scale_;
};

class OneEuroListFilter : public PerCoordinateFilter<filtering::OneEuroFilter> {
 public:
  OneEuroListFilter(const Options::OneEuroFilter& o,
                    Options::EmptyLandmarksPolicy policy)
      : PerCoordinateFilter(o.min_allowed_object_scale(),
                            o.disable_value_scaling(), policy),
        options_(o) {}

 protected:
  absl::StatusOr<std::vector<filtering::OneEuroFilter>> MakeFilters(
      int n) const override {
    std::vector<filtering::OneEuroFilter> filters;
    filters.reserve(n);
    for (int i = 0; i < n; ++i) {
      RILL_ASSIGN_OR_RETURN(filtering::OneEuroFilter f,
                            filtering::OneEuroFilter::Create(
                                options_.frequency(), options_.min_cutoff(),
                                options_.beta(), options_.derivate_cutoff()));
      filters.push_back(std::move(f));
    }
    return filters;
  }
  float Step(filtering::OneEuroFilter* f, int64_t timestamp_us, float value,
             float value_scale) const override {
    return static_cast<float>(
        f->Apply(timestamp_us, value, value_scale, /*beta_scale=*/1.0));
  }

 private:
  Options::OneEuroFilter options_;
};

class LandmarksSmoothingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const std::string where = absl::StrCat(
        "LandmarksSmoothingCalculator node \"", cc->GetNodeName(), "\" ");
    const bool norm = cc->Inputs().HasTag(kNormLandmarksTag);
    if (norm == cc->Inputs().HasTag(kLandmarksTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "needs exactly one of NORM_LANDMARKS and LANDMARKS"));
    }
    if (norm) {
      if (!cc->Inputs().HasTag(kImageSizeTag) ||
          !cc->Outputs().HasTag(kNormFilteredTag) ||
          cc->Outputs().HasTag(kFilteredTag)) {
        return absl::InvalidArgumentError(absl::StrCat(
            where,
            "with NORM_LANDMARKS needs an IMAGE_SIZE input and a "
            "NORM_FILTERED_LANDMARKS output (and no FILTERED_LANDMARKS)"));
      }
      cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
      cc->Inputs().Tag(kImageSizeTag).Set<std::pair<int, int>>();
      cc->Outputs().Tag(kNormFilteredTag).Set<NormalizedLandmarkList>();
    } else {
      if (cc->Inputs().HasTag(kImageSizeTag) ||
          !cc->Outputs().HasTag(kFilteredTag) ||
          cc->Outputs().HasTag(kNormFilteredTag)) {
        return absl::InvalidArgumentError(absl::StrCat(
            where,
            "with LANDMARKS needs a FILTERED_LANDMARKS output (and no "
            "IMAGE_SIZE input or NORM_FILTERED_LANDMARKS output)"));
      }
      cc->Inputs().Tag(kLandmarksTag).Set<LandmarkList>();
      cc->Outputs().Tag(kFilteredTag).Set<LandmarkList>();
    }
    // NormalizedRect with NORM_LANDMARKS, Rect with LANDMARKS; checked on
    // each packet.
    if (cc->Inputs().HasTag(kObjectScaleRoiTag)) {
      cc->Inputs().Tag(kObjectScaleRoiTag).SetAny();
    }
    const auto& options = cc->Options<Options>();
    if (options.filter_options_case() == Options::FILTER_OPTIONS_NOT_SET) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          "needs a filter in its options: no_filter, velocity_filter or "
          "one_euro_filter"));
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    const auto& options = cc->Options<Options>();
    Options::EmptyLandmarksPolicy policy = options.empty_landmarks_policy();
    if (policy == Options::EMPTY_LANDMARKS_POLICY_UNSPECIFIED) {
      policy = Options::EMPTY_LANDMARKS_POLICY_FAIL;
    }
    if (options.has_velocity_filter()) {
      filter_ = std::make_unique<VelocityListFilter>(options.velocity_filter(),
                                                     policy);
    } else if (options.has_one_euro_filter()) {
      // Check the parameters now rather than on the first landmarks.
      const auto& o = options.one_euro_filter();
      RILL_RETURN_IF_ERROR(
          filtering::OneEuroFilter::Create(o.frequency(), o.min_cutoff(),
                                           o.beta(), o.derivate_cutoff())
              .status());
      filter_ = std::make_unique<OneEuroListFilter>(o, policy);
    } else {
      filter_ = std::make_unique<NoListFilter>();
    }
    normalized_ = cc->Inputs().HasTag(kNormLandmarksTag);
    cc->SetOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    const InputStreamShard& in =
        cc->Inputs().Tag(normalized_ ? kNormLandmarksTag : kLandmarksTag);
    if (in.IsEmpty()) {
      filter_->Reset();
      return absl::OkStatus();
    }
    const int64_t timestamp_us = cc->InputTimestamp().Microseconds();
    const Packet* roi = nullptr;
    if (cc->Inputs().HasTag(kObjectScaleRoiTag) &&
        !cc->Inputs().Tag(kObjectScaleRoiTag).IsEmpty()) {
      roi = &cc->Inputs().Tag(kObjectScaleRoiTag).Value();
    }
    if (!normalized_) {
      std::optional<float> scale;
      if (roi != nullptr) {
        if (!roi->Holds<Rect>()) return RoiTypeError(cc, *roi, "Rect");
        const Rect& r = roi->Get<Rect>();
        scale = (r.width() + r.height()) / 2.0f;
      }
      auto out = std::make_unique<LandmarkList>();
      RILL_RETURN_IF_ERROR(filter_->Apply(in.Get<LandmarkList>(), timestamp_us,
                                          scale, out.get()));
      cc->Outputs().Tag(kFilteredTag).Add(out.release(), cc->InputTimestamp());
      return absl::OkStatus();
    }

    const InputStreamShard& size_in = cc->Inputs().Tag(kImageSizeTag);
    if (size_in.IsEmpty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LandmarksSmoothingCalculator node \"", cc->NodeName(),
          "\": no IMAGE_SIZE packet at ", cc->InputTimestamp().DebugString(),
          " to go with the landmarks"));
    }
    const auto [width, height] = size_in.Get<std::pair<int, int>>();
    std::optional<float> scale;
    if (roi != nullptr) {
      if (!roi->Holds<NormalizedRect>()) {
        return RoiTypeError(cc, *roi, "NormalizedRect");
      }
      const NormalizedRect& r = roi->Get<NormalizedRect>();
      scale = (r.width() * width + r.height() * height) / 2.0f;
    }
    // To pixels (z at the scale of x), filter, and back.
    LandmarkList pixels;
    for (const NormalizedLandmark& n :
         in.Get<NormalizedLandmarkList>().landmark()) {
      Landmark* l = pixels.add_landmark();
      l->set_x(n.x() * width);
      l->set_y(n.y() * height);
      l->set_z(n.z() * width);
      if (n.has_visibility()) l->set_visibility(n.visibility());
      if (n.has_presence()) l->set_presence(n.presence());
    }
    LandmarkList filtered;
    RILL_RETURN_IF_ERROR(
        filter_->Apply(pixels, timestamp_us, scale, &filtered));
    auto out = std::make_unique<NormalizedLandmarkList>();
    for (const Landmark& l : filtered.landmark()) {
      NormalizedLandmark* n = out->add_landmark();
      n->set_x(l.x() / width);
      n->set_y(l.y() / height);
      n->set_z(l.z() / width);
      if (l.has_visibility()) n->set_visibility(l.visibility());
      if (l.has_presence()) n->set_presence(l.presence());
    }
    cc->Outputs()
        .Tag(kNormFilteredTag)
        .Add(out.release(), cc->InputTimestamp());
    return absl::OkStatus();
  }

 private:
  static absl::Status RoiTypeError(CalculatorContext* cc, const Packet& roi,
                                   const char* expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("LandmarksSmoothingCalculator node \"", cc->NodeName(),
                     "\": OBJECT_SCALE_ROI carries ", roi.DebugTypeName(),
                     "; expected ", expected, " with ",
                     expected[0] == 'N' ? "NORM_LANDMARKS" : "LANDMARKS"));
  }

  std::unique_ptr<ListFilter> filter_;
  bool normalized_ = false;
};

}  // namespace

REGISTER_CALCULATOR(LandmarksSmoothingCalculator);

}  // namespace rill
