// AnnotationOverlayCalculator draws RenderData over an image (CPU, OpenCV).
//
//   node {
//     calculator: "AnnotationOverlayCalculator"
//     input_stream: "IMAGE:input_video"          # ImageFrame; optional
//     input_stream: "detection_render_data"      # RenderData, any number
//     input_stream: "VECTOR:more_render_data"    # std::vector<RenderData>
//     output_stream: "IMAGE:output_video"
//   }
//
// The output is a copy of the input image (packets are immutable) with the
// annotations of every untagged and VECTOR input drawn in input order. A
// missing RenderData packet at a timestamp draws nothing. Without an IMAGE
// input, the drawing is on a canvas_width_px x canvas_height_px SRGB canvas
// of canvas_color, emitted whenever any render data arrives.
// flip_text_vertically draws text upside down by flipping the image before
// and after drawing text annotations.
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/render/annotation_overlay_calculator.pb.h"
#include "calculators/render/annotation_renderer.h"
#include "framework/calculator_base.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/render_data.pb.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kVectorTag[] = "VECTOR";

class AnnotationOverlayCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Outputs().HasTag(kImageTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "AnnotationOverlayCalculator node \"", cc->GetNodeName(),
          "\" needs an IMAGE output stream (IMAGE_GPU is not supported: "
          "Rill runs on CPU)"));
    }
    if (cc->Inputs().HasTag(kImageTag)) {
      cc->Inputs().Tag(kImageTag).Set<ImageFrame>();
    }
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      cc->Inputs().Get("", i).Set<RenderData>();
    }
    for (int i = 0; i < cc->Inputs().NumEntries(kVectorTag); ++i) {
      cc->Inputs().Get(kVectorTag, i).Set<std::vector<RenderData>>();
    }
    cc->Outputs().Tag(kImageTag).Set<ImageFrame>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<AnnotationOverlayCalculatorOptions>();
    where_ = absl::StrCat("AnnotationOverlayCalculator node \"", cc->NodeName(),
                          "\": ");
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::vector<const RenderData*> data;
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      const InputStreamShard& in = cc->Inputs().Get("", i);
      if (!in.IsEmpty()) data.push_back(&in.Get<RenderData>());
    }
    for (int i = 0; i < cc->Inputs().NumEntries(kVectorTag); ++i) {
      const InputStreamShard& in = cc->Inputs().Get(kVectorTag, i);
      if (in.IsEmpty()) continue;
      for (const RenderData& rd : in.Get<std::vector<RenderData>>()) {
        data.push_back(&rd);
      }
    }

    ImageFrame output;
    if (cc->Inputs().HasTag(kImageTag)) {
      const InputStreamShard& in = cc->Inputs().Tag(kImageTag);
      if (in.IsEmpty()) return absl::OkStatus();
      const ImageFrame& image = in.Get<ImageFrame>();
      if (image.Format() != ImageFormat::SRGB &&
          image.Format() != ImageFormat::SRGBA &&
          image.Format() != ImageFormat::GRAY8) {
        return absl::InvalidArgumentError(
            absl::StrCat(where_, "cannot draw on ", image.DebugString(),
                         " (SRGB, SRGBA or GRAY8 only)"));
      }
      if (data.empty()) {
        // Nothing to draw: pass the same packet on, no copy.
        cc->Outputs().Tag(kImageTag).AddPacket(in.Value());
        return absl::OkStatus();
      }
      output.CopyFrom(image);
    } else {
      if (data.empty()) return absl::OkStatus();
      output.Reset(ImageFormat::SRGB, options_.canvas_width_px(),
                   options_.canvas_height_px());
      const Color& c = options_.canvas_color();
      formats::MatView(&output).setTo(cv::Scalar(c.r(), c.g(), c.b()));
    }

    cv::Mat mat = formats::MatView(&output);
    AnnotationRenderer renderer(mat);
    if (!options_.flip_text_vertically()) {
      for (const RenderData* rd : data) renderer.Render(*rd);
    } else {
      for (const RenderData* rd : data) {
        for (const RenderAnnotation& a : rd->render_annotations()) {
          if (!a.has_text()) renderer.Render(a);
        }
      }
      // Text drawn on the flipped image comes out upside down in place.
      cv::flip(mat, mat, 0);
      for (const RenderData* rd : data) {
        for (const RenderAnnotation& a : rd->render_annotations()) {
          if (!a.has_text()) continue;
          RenderAnnotation flipped = a;
          auto* t = flipped.mutable_text();
          t->set_baseline(t->normalized() ? 1.0 - t->baseline()
                                          : mat.rows - 1 - t->baseline());
          renderer.Render(flipped);
        }
      }
      cv::flip(mat, mat, 0);
    }
    cc->Outputs().Tag(kImageTag).AddPacket(
        MakePacket<ImageFrame>(std::move(output)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  AnnotationOverlayCalculatorOptions options_;
  std::string where_;
};

}  // namespace

REGISTER_CALCULATOR(AnnotationOverlayCalculator);

}  // namespace rill
