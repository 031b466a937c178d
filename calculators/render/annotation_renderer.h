// AnnotationRenderer draws RenderData annotations onto a cv::Mat with
// OpenCV: the CPU drawing behind AnnotationOverlayCalculator, kept apart so
// tools can draw without a graph.
//
// Coordinates are pixels, or fractions of the image size when an
// annotation says `normalized`. Colors are RGB and the image is taken to be
// RGB(A) (ImageFrame's order; the alpha of SRGBA stays opaque) or GRAY8
// (colors become their luminance). Text: font_height is in pixels, except
// that a normalized text with font_height <= 1 takes it as a fraction of the
// image height; '\n' starts a new line below the previous one.
#ifndef RILL_CALCULATORS_RENDER_ANNOTATION_RENDERER_H_
#define RILL_CALCULATORS_RENDER_ANNOTATION_RENDERER_H_

#include <opencv2/core.hpp>

#include "framework/formats/render_data.pb.h"

namespace rill {

class AnnotationRenderer {
 public:
  // Draws on `image` (CV_8UC1, CV_8UC3 or CV_8UC4), which must outlive the
  // calls.
  explicit AnnotationRenderer(cv::Mat image) : image_(image) {}

  void Render(const RenderData& render_data);
  void Render(const RenderAnnotation& annotation);

 private:
  cv::Point ToPixel(double x, double y, bool normalized) const;
  cv::Scalar ToScalar(const Color& color) const;
  int Thickness(double t) const;

  cv::Mat image_;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_RENDER_ANNOTATION_RENDERER_H_
