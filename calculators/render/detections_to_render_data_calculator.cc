// DetectionsToRenderDataCalculator turns detections into RenderData for
// AnnotationOverlayCalculator: a rectangle for each box (normalized for a
// relative box, pixels for a pixel box), a point for each keypoint, and the
// labels with their scores as text at the box's top-left corner.
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

class DetectionsToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
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
  RenderAnnotation* NewAnnotation(RenderData* render_data) const {
    RenderAnnotation* a = render_data->add_render_annotations();
    a->set_thickness(options_.thickness());
    *a->mutable_color() = options_.color();
    return a;
  }

  void AddDetection(const Detection& d, RenderData* render_data) const {
    const LocationData& loc = d.location_data();
    double left = 0, top = 0, right = 0, bottom = 0;
    bool normalized = true;
    bool has_box = false;
    if (loc.has_relative_bounding_box()) {
      const auto& b = loc.relative_bounding_box();
      left = b.xmin();
      top = b.ymin();
      right = b.xmin() + b.width();
      bottom = b.ymin() + b.height();
      has_box = true;
    } else if (loc.has_bounding_box()) {
      const auto& b = loc.bounding_box();
      left = b.xmin();
      top = b.ymin();
      right = b.xmin() + b.width();
      bottom = b.ymin() + b.height();
      normalized = false;
      has_box = true;
    }
    if (has_box) {
      auto* rect = NewAnnotation(render_data)->mutable_rectangle();
      rect->set_left(left);
      rect->set_top(top);
      rect->set_right(right);
      rect->set_bottom(bottom);
      rect->set_normalized(normalized);
    }
    for (const auto& kp : loc.relative_keypoints()) {
      auto* point = NewAnnotation(render_data)->mutable_point();
      point->set_x(kp.x());
      point->set_y(kp.y());
      point->set_normalized(true);
    }

    // Label lines: "label,score" (or label_id), optionally the id first.
    std::vector<std::string> parts;
    const int n = std::max(d.label_size(), d.label_id_size());
    for (int i = 0; i < n; ++i) {
      const std::string name =
          i < d.label_size() ? d.label(i) : absl::StrCat(d.label_id(i));
      parts.push_back(
          i < d.score_size()
              ? absl::StrCat(name, options_.text_delimiter(), d.score(i))
              : name);
    }
    std::vector<std::string> lines;
    if (options_.render_detection_id()) {
      lines.push_back(absl::StrCat("Id: ", d.detection_id()));
    }
    if (!parts.empty()) {
      if (options_.one_label_per_line()) {
        lines.insert(lines.end(), parts.begin(), parts.end());
      } else {
        lines.push_back(absl::StrJoin(parts, " "));
      }
    }
    if (!d.feature_tag().empty()) lines.push_back(d.feature_tag());
    if (!has_box) return;
    if (lines.empty()) return;
    // One text annotation; AnnotationOverlayCalculator draws each '\n'
    // separated line below the previous one (line spacing needs the image
    // size, which only the renderer knows).
    RenderAnnotation* a = NewAnnotation(render_data);
    auto* text = a->mutable_text();
    *text = options_.text();
    text->set_display_text(absl::StrJoin(lines, "\n"));
    text->set_normalized(normalized);
    text->set_left(left + options_.text().left());
    text->set_baseline(top + options_.text().baseline());
  }

  DetectionsToRenderDataCalculatorOptions options_;
};

}  // namespace

REGISTER_CALCULATOR(DetectionsToRenderDataCalculator);

}  // namespace rill
