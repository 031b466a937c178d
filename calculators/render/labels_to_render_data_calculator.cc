// LabelsToRenderDataCalculator draws labels as text lines at the image's
// top-left (or bottom-left) corner (MediaPipe's calculator of the same
// name), e.g. a hand's handedness:
//
//   node {
//     calculator: "LabelsToRenderDataCalculator"
//     input_stream: "CLASSIFICATIONS:handedness"   # ClassificationList
//     # or LABELS: (std::vector<std::string>) with optional SCORES:
//     # (std::vector<float>, same length)
//     # optional VIDEO_PRESTREAM: (VideoHeader at Timestamp::PreStream(),
//     # needed for BOTTOM_LEFT)
//     output_stream: "RENDER_DATA:render_data"
//     options { [mediapipe.LabelsToRenderDataCalculatorOptions.ext] {
//       color { r: 255 g: 0 b: 0 } thickness: 2 font_height_px: 30
//       max_num_labels: 2 } }
//   }
//
// One text annotation per label, at most max_num_labels: "label" or, with a
// SCORES input or display_classification_score, "label:score" (the score as
// absl formats a float). Lines are ceil(1.25 * font_height_px) apart; the
// first baseline is one line below vertical_offset_px (TOP_LEFT) or, for
// BOTTOM_LEFT, the block of lines ends at the image height plus
// vertical_offset_px. Colors (and outline colors) are used in turn.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/render/labels_to_render_data_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/classification.pb.h"
#include "framework/formats/render_data.pb.h"
#include "framework/formats/video_stream_header.h"

namespace rill {
namespace {

constexpr char kRenderDataTag[] = "RENDER_DATA";
constexpr char kVideoPrestreamTag[] = "VIDEO_PRESTREAM";
constexpr char kScoresTag[] = "SCORES";
constexpr char kLabelsTag[] = "LABELS";
constexpr char kClassificationsTag[] = "CLASSIFICATIONS";

// Line spacing as a multiple of the font height.
constexpr float kFontHeightScale = 1.25f;

}  // namespace

class LabelsToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    const auto& options = cc->Options<LabelsToRenderDataCalculatorOptions>();
    const std::string where = absl::StrCat(
        "LabelsToRenderDataCalculator node \"", cc->GetNodeName(), "\"");
    if (cc->Inputs().HasTag(kClassificationsTag)) {
      cc->Inputs().Tag(kClassificationsTag).Set<ClassificationList>();
    } else if (cc->Inputs().HasTag(kLabelsTag)) {
      cc->Inputs().Tag(kLabelsTag).Set<std::vector<std::string>>();
      if (cc->Inputs().HasTag(kScoresTag)) {
        cc->Inputs().Tag(kScoresTag).Set<std::vector<float>>();
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " needs a CLASSIFICATIONS or LABELS input stream"));
    }
    if (cc->Inputs().HasTag(kVideoPrestreamTag)) {
      cc->Inputs().Tag(kVideoPrestreamTag).Set<VideoHeader>();
    } else if (options.location() ==
               LabelsToRenderDataCalculatorOptions::BOTTOM_LEFT) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": location BOTTOM_LEFT needs the VIDEO_PRESTREAM input "
                 "stream (the image height)"));
    }
    if (!cc->Outputs().HasTag(kRenderDataTag)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " needs a RENDER_DATA output stream"));
    }
    cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<LabelsToRenderDataCalculatorOptions>();
    label_height_px_ = std::ceil(options_.font_height_px() * kFontHeightScale);
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().HasTag(kVideoPrestreamTag) &&
        cc->InputTimestamp() == Timestamp::PreStream()) {
      const auto& header =
          cc->Inputs().Tag(kVideoPrestreamTag).Get<VideoHeader>();
      video_height_ = header.height;
      return absl::OkStatus();
    }
    std::vector<std::string> labels;
    std::vector<float> scores;
    bool show_scores = options_.display_classification_score();
    if (cc->Inputs().HasTag(kClassificationsTag)) {
      const InputStreamShard& in = cc->Inputs().Tag(kClassificationsTag);
      if (in.IsEmpty()) return absl::OkStatus();
      for (const Classification& c :
           in.Get<ClassificationList>().classification()) {
        labels.push_back(options_.use_display_name() ? c.display_name()
                                                     : c.label());
        scores.push_back(c.score());
      }
    } else {
      const InputStreamShard& in = cc->Inputs().Tag(kLabelsTag);
      if (in.IsEmpty()) return absl::OkStatus();
      labels = in.Get<std::vector<std::string>>();
      scores.assign(labels.size(), 0.f);
      if (cc->Inputs().HasTag(kScoresTag)) {
        show_scores = true;
        const InputStreamShard& s = cc->Inputs().Tag(kScoresTag);
        if (s.IsEmpty() ||
            s.Get<std::vector<float>>().size() != labels.size()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "LabelsToRenderDataCalculator node \"", cc->NodeName(), "\" at ",
              cc->InputTimestamp().DebugString(),
              ": SCORES must come with LABELS, one score per label"));
        }
        scores = s.Get<std::vector<float>>();
      }
    }

    const int num = std::min(static_cast<int>(labels.size()),
                             options_.max_num_labels());
    int baseline = options_.vertical_offset_px();
    if (options_.location() == LabelsToRenderDataCalculatorOptions::TOP_LEFT) {
      baseline += label_height_px_;
    } else {
      baseline += video_height_ - label_height_px_ * (num - 1);
    }
    RenderData data;
    for (int i = 0; i < num; ++i) {
      RenderAnnotation* a = data.add_render_annotations();
      a->set_thickness(options_.thickness());
      if (options_.color_size() > 0) {
        *a->mutable_color() = options_.color(i % options_.color_size());
      } else {
        a->mutable_color()->set_r(255);
        a->mutable_color()->set_g(0);
        a->mutable_color()->set_b(0);
      }
      RenderAnnotation::Text* text = a->mutable_text();
      std::string display = labels[i];
      if (show_scores) absl::StrAppend(&display, ":", scores[i]);
      text->set_display_text(display);
      text->set_font_height(options_.font_height_px());
      text->set_left(options_.horizontal_offset_px());
      text->set_baseline(baseline + i * label_height_px_);
      text->set_font_face(options_.font_face());
      if (options_.outline_thickness() > 0) {
        text->set_outline_thickness(options_.outline_thickness());
        if (options_.outline_color_size() > 0) {
          *text->mutable_outline_color() =
              options_.outline_color(i % options_.outline_color_size());
        } else {
          text->mutable_outline_color()->set_r(0);
          text->mutable_outline_color()->set_g(0);
          text->mutable_outline_color()->set_b(0);
        }
      }
    }
    cc->Outputs().Tag(kRenderDataTag).AddPacket(
        MakePacket<RenderData>(std::move(data)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  LabelsToRenderDataCalculatorOptions options_;
  int label_height_px_ = 0;
  int video_height_ = 0;
};
REGISTER_CALCULATOR(LabelsToRenderDataCalculator);

}  // namespace rill
