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
// UIMAGE input/output streams (Image) may stand in for IMAGE (ImageFrame),
// as in MediaPipe's newer graphs.
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
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/render_data.pb.h"

namespace rill {
namespace {

constexpr char kImageTag[] = "IMAGE";
constexpr char kUImageTag[] = "UIMAGE";
constexpr char kVectorTag[] = "VECTOR";

class AnnotationOverlayCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<AnnotationOverlayCalculatorOptions>();
    const bool frame = cc->Outputs().HasTag(kImageTag);
    const bool image = cc->Outputs().HasTag(kUImageTag);
    if (frame == image || cc->Inputs().HasTag(frame ? kUImageTag : kImageTag)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "AnnotationOverlayCalculator node \"", cc->GetNodeName(),
          "\" needs one IMAGE (ImageFrame) or UIMAGE (Image) output stream, "
          "and an input stream, if any, of the same tag (IMAGE_GPU is not "
          "supported: Rill runs on CPU)"));
    }
    if (cc->Inputs().HasTag(kImageTag)) {
      cc->Inputs().Tag(kImageTag).Set<ImageFrame>();
    }
    if (cc->Inputs().HasTag(kUImageTag)) {
      cc->Inputs().Tag(kUImageTag).Set<Image>();
    }
    for (int i = 0; i < cc->Inputs().NumEntries(""); ++i) {
      cc->Inputs().Get("", i).Set<RenderData>();
    }
    for (int i = 0; i < cc->Inputs().NumEntries(kVectorTag); ++i) {
      cc->Inputs().Get(kVectorTag, i).Set<std::vector<RenderData>>();
    }
    if (frame) cc->Outputs().Tag(kImageTag).Set<ImageFrame>();
    if (image) cc->Outputs().Tag(kUImageTag).Set<Image>();
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

    const bool uimage = cc->Outputs().HasTag(kUImageTag);
    const char* tag = uimage ? kUImageTag : kImageTag;
    ImageFrame output;
    if (cc->Inputs().HasTag(tag)) {
      const InputStreamShard& in = cc->Inputs().Tag(tag);
      if (in.IsEmpty()) return absl::OkStatus();
      const ImageFrame* frame =
          uimage ? in.Get<Image>().GetImageFrameSharedPtr().get()
                 : &in.Get<ImageFrame>();
      if (frame == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            where_, "empty Image at ", cc->InputTimestamp().DebugString()));
      }
      const ImageFrame& image = *frame;
      if (image.Format() != ImageFormat::SRGB &&
          image.Format() != ImageFormat::SRGBA &&
          image.Format() != ImageFormat::GRAY8) {
        return absl::InvalidArgumentError(
            absl::StrCat(where_, "cannot draw on ", image.DebugString(),
                         " (SRGB, SRGBA or GRAY8 only)"));
      }
      if (data.empty()) {
        // Nothing to draw: pass the same packet on, no copy.
        cc->Outputs().Tag(tag).AddPacket(in.Value());
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
    if (uimage) {
      cc->Outputs()
          .Tag(kUImageTag)
          .AddPacket(
              MakePacket<Image>(std::move(output)).At(cc->InputTimestamp()));
    } else {
      cc->Outputs().Tag(kImageTag).AddPacket(
          MakePacket<ImageFrame>(std::move(output)).At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }

 private:
  AnnotationOverlayCalculatorOptions options_;
  std::string where_;
};

}  // namespace

REGISTER_CALCULATOR(AnnotationOverlayCalculator);

}  // namespace rill
