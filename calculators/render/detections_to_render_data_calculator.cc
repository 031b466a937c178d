// DetectionsToRenderDataCalculator turns detections into RenderData for
// AnnotationOverlayCalculator: the labels with their scores (two decimals)
// as text just inside the box's top edge, the feature tag at its bottom
// edge, a rectangle for the box (normalized for a relative box, pixels for a
// pixel box) and a point per keypoint. For a relative box the label's font
// height is 9% of the box height (a fraction of the image height).
//
//   node {
//     calculator: "DetectionsToRenderDataCalculator"
//     input_stream: "DETECTIONS:detections"      # std::vector<Detection>
//     # or DETECTION: (one Detection), DETECTION_LIST: (DetectionList);
//     # any combination is drawn together
//     output_stream: "RENDER_DATA:render_data"
//     options { [mediapipe.DetectionsToRenderDataCalculatorOptions.ext] {
//       thickness: 4.0 color { r: 255 g: 0 b: 0 } } }
//   }
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "calculators/render/detections_to_render_data_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/render_data.pb.h"

namespace rill {
namespace {

constexpr char kDetectionTag[] = "DETECTION";
constexpr char kDetectionsTag[] = "DETECTIONS";
constexpr char kDetectionListTag[] = "DETECTION_LIST";
constexpr char kRenderDataTag[] = "RENDER_DATA";

// scene_tag of each kind of annotation.
constexpr char kLabelTag[] = "LABEL";
constexpr char kFeatureTag[] = "FEATURE";
constexpr char kLocationTag[] = "LOCATION";
constexpr char kKeypointTag[] = "KEYPOINT";

// Label font height as a fraction of a relative box's height.
constexpr double kLabelToBoxRatio = 0.1;

class DetectionsToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<DetectionsToRenderDataCalculatorOptions>();
    const bool one = cc->Inputs().HasTag(kDetectionTag);
    const bool many = cc->Inputs().HasTag(kDetectionsTag);
    const bool list = cc->Inputs().HasTag(kDetectionListTag);
    if (!(one || many || list) || !cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DetectionsToRenderDataCalculator node \"", cc->GetNodeName(),
          "\" needs a DETECTION, DETECTIONS or DETECTION_LIST input stream "
          "and a RENDER_DATA output stream"));
    }
    if (one) cc->Inputs().Tag(kDetectionTag).Set<Detection>();
    if (many) cc->Inputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    if (list) cc->Inputs().Tag(kDetectionListTag).Set<DetectionList>();
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<DetectionsToRenderDataCalculatorOptions>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::vector<const Detection*> detections;
    bool any_packet = false;
    if (cc->Inputs().HasTag(kDetectionTag) &&
        !cc->Inputs().Tag(kDetectionTag).IsEmpty()) {
      any_packet = true;
      detections.push_back(&cc->Inputs().Tag(kDetectionTag).Get<Detection>());
    }
    if (cc->Inputs().HasTag(kDetectionsTag) &&
        !cc->Inputs().Tag(kDetectionsTag).IsEmpty()) {
      any_packet = true;
      for (const Detection& d :
           cc->Inputs().Tag(kDetectionsTag).Get<std::vector<Detection>>()) {
        detections.push_back(&d);
      }
    }
    if (cc->Inputs().HasTag(kDetectionListTag) &&
        !cc->Inputs().Tag(kDetectionListTag).IsEmpty()) {
      any_packet = true;
      for (const Detection& d : cc->Inputs()
                                    .Tag(kDetectionListTag)
                                    .Get<DetectionList>()
                                    .detection()) {
        detections.push_back(&d);
      }
    }
    if (!any_packet) return absl::OkStatus();
    if (detections.empty() && !options_.produce_empty_packet()) {
      return absl::OkStatus();
    }
    RenderData render_data;
    render_data.set_scene_class(options_.scene_class());
    for (const Detection* d : detections) AddDetection(*d, &render_data);
    cc->Outputs()
        .Tag(kRenderDataTag)
        .AddPacket(MakePacket<RenderData>(std::move(render_data))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  RenderAnnotation* NewAnnotation(const char* scene_tag,
                                  RenderData* render_data) const {
    RenderAnnotation* a = render_data->add_render_annotations();
    a->set_scene_tag(scene_tag);
    a->set_thickness(options_.thickness());
    *a->mutable_color() = options_.color();
    return a;
  }

  // Draw order and placement follow MediaPipe: the label lines inside the
  // box's top edge, the feature tag at its bottom edge, then the box, then
  // the keypoints.
  void AddDetection(const Detection& d, RenderData* render_data) const {
    const LocationData& loc = d.location_data();
    const bool normalized =
        !loc.has_bounding_box() || loc.has_relative_bounding_box();
    double xmin, ymin, width, height;
    if (normalized) {
      const auto& b = loc.relative_bounding_box();
      xmin = b.xmin(), ymin = b.ymin(), width = b.width(), height = b.height();
    } else {
      const auto& b = loc.bounding_box();
      xmin = b.xmin(), ymin = b.ymin(), width = b.width(), height = b.height();
    }
    const bool has_box =
        loc.has_relative_bounding_box() || loc.has_bounding_box();
    const int num_labels = std::max(d.label_size(), d.label_id_size());
    // Pixel boxes use the option's font height; relative boxes a tenth of
    // the box (less with many lines), as a fraction of the image height.
    const double line_height =
        normalized ? height * std::min(kLabelToBoxRatio, 1.0 / (num_labels + 1))
                   : options_.text().font_height();

    std::vector<std::string> lines;
    if (options_.render_detection_id()) {
      lines.push_back(absl::StrCat("Id: ", d.detection_id()));
    }
    std::vector<std::string> pairs;
    for (int i = 0; i < num_labels; ++i) {
      std::string pair =
          i < d.label_size() ? d.label(i) : absl::StrCat(d.label_id(i));
      if (i < d.score_size()) {
        // Two decimals are enough on screen.
        absl::StrAppend(&pair, options_.text_delimiter(),
                        std::round(d.score(i) * 100.f) / 100.f);
      }
      pairs.push_back(std::move(pair));
    }
    if (options_.one_label_per_line()) {
      lines.insert(lines.end(), pairs.begin(), pairs.end());
    } else if (!pairs.empty()) {
      lines.push_back(absl::StrJoin(pairs, options_.text_delimiter()));
    }
    // Text needs a box to sit in (its size comes from the box).
    if (!has_box) lines.clear();
    for (size_t i = 0; i < lines.size(); ++i) {
      AddText(lines[i], xmin, ymin + (i + 1) * line_height, normalized,
              line_height, kLabelTag, render_data);
    }
    if (has_box && !d.feature_tag().empty()) {
      AddText(d.feature_tag(), xmin, ymin + height, normalized, line_height,
              kFeatureTag, render_data);
    }

    // The box, clamped to the image for relative coordinates; a box wholly
    // outside is not drawn.
    const bool outside = xmin + width < 0 || ymin + height < 0 ||
                         (normalized && (xmin > 1 || ymin > 1));
    if (has_box && !outside) {
      RenderAnnotation* a = NewAnnotation(kLocationTag, render_data);
      auto* rect = a->mutable_rectangle();
      rect->set_normalized(normalized);
      rect->set_left(normalized ? std::max(xmin, 0.0) : xmin);
      rect->set_top(normalized ? std::max(ymin, 0.0) : ymin);
      rect->set_right(normalized ? std::min(xmin + width, 1.0) : xmin + width);
      rect->set_bottom(normalized ? std::min(ymin + height, 1.0)
                                  : ymin + height);
    }
    for (const auto& kp : loc.relative_keypoints()) {
      auto* point = NewAnnotation(kKeypointTag, render_data)->mutable_point();
      point->set_x(kp.x());
      point->set_y(kp.y());
      point->set_normalized(true);
    }
  }

  void AddText(const std::string& display_text, double left, double baseline,
               bool normalized, double line_height, const char* scene_tag,
               RenderData* render_data) const {
    auto* text = NewAnnotation(scene_tag, render_data)->mutable_text();
    *text = options_.text();
    text->set_display_text(display_text);
    text->set_normalized(normalized);
    if (normalized) text->set_font_height(line_height * 0.9);
    text->set_left(normalized ? std::max(left, 0.0) : left);
    text->set_baseline(normalized ? std::min(baseline, 1.0) : baseline);
  }

  DetectionsToRenderDataCalculatorOptions options_;
};

}  // namespace

REGISTER_CALCULATOR(DetectionsToRenderDataCalculator);

}  // namespace rill
