#include "calculators/render/annotation_renderer.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"

namespace rill {
namespace {

constexpr int kLineType = cv::LINE_AA;

}  // namespace

cv::Point AnnotationRenderer::ToPixel(double x, double y,
                                      bool normalized) const {
  if (normalized) {
    x *= image_.cols;
    y *= image_.rows;
  }
  return cv::Point(static_cast<int>(std::lround(x)),
                   static_cast<int>(std::lround(y)));
}

cv::Scalar AnnotationRenderer::ToScalar(const Color& color) const {
  if (image_.channels() == 1) {
    return cv::Scalar(0.299 * color.r() + 0.587 * color.g() +
                      0.114 * color.b());
  }
  return cv::Scalar(color.r(), color.g(), color.b(), 255);
}

int AnnotationRenderer::Thickness(double t) const {
  return std::max(1, static_cast<int>(std::lround(t)));
}

void AnnotationRenderer::Render(const RenderData& render_data) {
  for (const RenderAnnotation& a : render_data.render_annotations()) {
    Render(a);
  }
}

void AnnotationRenderer::Render(const RenderAnnotation& a) {
  const cv::Scalar color = ToScalar(a.color());
  const int thickness = Thickness(a.thickness());

  auto draw_rect = [&](const RenderAnnotation::Rectangle& r,
                       const cv::Scalar& c, int t) {
    const cv::Point p1 = ToPixel(r.left(), r.top(), r.normalized());
    const cv::Point p2 = ToPixel(r.right(), r.bottom(), r.normalized());
    if (r.rotation() == 0) {
      cv::rectangle(image_, p1, p2, c, t, kLineType);
      return;
    }
    const cv::Point2f center((p1.x + p2.x) / 2.f, (p1.y + p2.y) / 2.f);
    const cv::RotatedRect rotated(
        center, cv::Size2f(std::abs(p2.x - p1.x), std::abs(p2.y - p1.y)),
        static_cast<float>(r.rotation() * 180.0 / M_PI));
    cv::Point2f corners[4];
    rotated.points(corners);
    std::vector<cv::Point> poly(corners, corners + 4);
    if (t < 0) {
      cv::fillConvexPoly(image_, poly, c, kLineType);
    } else {
      cv::polylines(image_, poly, true, c, t, kLineType);
    }
  };

  auto draw_rounded = [&](const RenderAnnotation::RoundedRectangle& rr,
                          const cv::Scalar& c, int t) {
    const auto& r = rr.rectangle();
    const cv::Point p1 = ToPixel(r.left(), r.top(), r.normalized());
    const cv::Point p2 = ToPixel(r.right(), r.bottom(), r.normalized());
    const int rad = std::min({rr.corner_radius(), std::abs(p2.x - p1.x) / 2,
                              std::abs(p2.y - p1.y) / 2});
    if (rad <= 0) {
      cv::rectangle(image_, p1, p2, c, t, kLineType);
      return;
    }
    if (t < 0) {
      cv::rectangle(image_, cv::Point(p1.x + rad, p1.y),
                    cv::Point(p2.x - rad, p2.y), c, cv::FILLED);
      cv::rectangle(image_, cv::Point(p1.x, p1.y + rad),
                    cv::Point(p2.x, p2.y - rad), c, cv::FILLED);
    } else {
      cv::line(image_, {p1.x + rad, p1.y}, {p2.x - rad, p1.y}, c, t, kLineType);
      cv::line(image_, {p1.x + rad, p2.y}, {p2.x - rad, p2.y}, c, t, kLineType);
      cv::line(image_, {p1.x, p1.y + rad}, {p1.x, p2.y - rad}, c, t, kLineType);
      cv::line(image_, {p2.x, p1.y + rad}, {p2.x, p2.y - rad}, c, t, kLineType);
    }
    const cv::Size axes(rad, rad);
    cv::ellipse(image_, {p1.x + rad, p1.y + rad}, axes, 180, 0, 90, c, t,
                kLineType);
    cv::ellipse(image_, {p2.x - rad, p1.y + rad}, axes, 270, 0, 90, c, t,
                kLineType);
    cv::ellipse(image_, {p2.x - rad, p2.y - rad}, axes, 0, 0, 90, c, t,
                kLineType);
    cv::ellipse(image_, {p1.x + rad, p2.y - rad}, axes, 90, 0, 90, c, t,
                kLineType);
  };

  auto draw_oval = [&](const RenderAnnotation::Rectangle& r,
                       const cv::Scalar& c, int t) {
    const cv::Point p1 = ToPixel(r.left(), r.top(), r.normalized());
    const cv::Point p2 = ToPixel(r.right(), r.bottom(), r.normalized());
    const cv::Point center((p1.x + p2.x) / 2, (p1.y + p2.y) / 2);
    const cv::Size axes(std::abs(p2.x - p1.x) / 2, std::abs(p2.y - p1.y) / 2);
    cv::ellipse(image_, center, axes, r.rotation() * 180.0 / M_PI, 0, 360, c, t,
                kLineType);
  };

  switch (a.data_case()) {
    case RenderAnnotation::kRectangle:
      draw_rect(a.rectangle(), color, thickness);
      break;
    case RenderAnnotation::kFilledRectangle:
      draw_rect(a.filled_rectangle().rectangle(),
                ToScalar(a.filled_rectangle().fill_color()), -1);
      if (a.has_color()) {
        draw_rect(a.filled_rectangle().rectangle(), color, thickness);
      }
      break;
    case RenderAnnotation::kRoundedRectangle:
      draw_rounded(a.rounded_rectangle(), color, thickness);
      break;
    case RenderAnnotation::kFilledRoundedRectangle:
      draw_rounded(a.filled_rounded_rectangle().rounded_rectangle(),
                   ToScalar(a.filled_rounded_rectangle().fill_color()), -1);
      if (a.has_color()) {
        draw_rounded(a.filled_rounded_rectangle().rounded_rectangle(), color,
                     thickness);
      }
      break;
    case RenderAnnotation::kOval:
      draw_oval(a.oval().rectangle(), color, thickness);
      break;
    case RenderAnnotation::kFilledOval:
      draw_oval(a.filled_oval().oval().rectangle(),
                ToScalar(a.filled_oval().fill_color()), cv::FILLED);
      if (a.has_color()) {
        draw_oval(a.filled_oval().oval().rectangle(), color, thickness);
      }
      break;
    case RenderAnnotation::kPoint: {
      const auto& p = a.point();
      cv::circle(image_, ToPixel(p.x(), p.y(), p.normalized()), thickness,
                 color, cv::FILLED, kLineType);
      break;
    }
    case RenderAnnotation::kLine: {
      const auto& l = a.line();
      const cv::Point p1 = ToPixel(l.x_start(), l.y_start(), l.normalized());
      const cv::Point p2 = ToPixel(l.x_end(), l.y_end(), l.normalized());
      if (l.line_type() == RenderAnnotation::Line::DASHED) {
        const double len = cv::norm(p2 - p1);
        const double dash = std::max(4, 3 * thickness);
        for (double s = 0; s < len; s += 2 * dash) {
          const double e = std::min(len, s + dash);
          const cv::Point2d d = cv::Point2d(p2 - p1) / std::max(len, 1e-9);
          cv::line(image_, cv::Point2d(p1) + d * s, cv::Point2d(p1) + d * e,
                   color, thickness, kLineType);
        }
      } else {
        cv::line(image_, p1, p2, color, thickness, kLineType);
      }
      break;
    }
    case RenderAnnotation::kGradientLine: {
      const auto& l = a.gradient_line();
      const cv::Point2d p1 = ToPixel(l.x_start(), l.y_start(), l.normalized());
      const cv::Point2d p2 = ToPixel(l.x_end(), l.y_end(), l.normalized());
      const cv::Scalar c1 = ToScalar(l.color1()), c2 = ToScalar(l.color2());
      constexpr int kSteps = 16;
      for (int i = 0; i < kSteps; ++i) {
        const double f0 = static_cast<double>(i) / kSteps;
        const double f1 = static_cast<double>(i + 1) / kSteps;
        const double fm = (f0 + f1) / 2;
        cv::line(image_, p1 + (p2 - p1) * f0, p1 + (p2 - p1) * f1,
                 c1 * (1 - fm) + c2 * fm, thickness, kLineType);
      }
      break;
    }
    case RenderAnnotation::kArrow: {
      const auto& l = a.arrow();
      cv::arrowedLine(image_, ToPixel(l.x_start(), l.y_start(), l.normalized()),
                      ToPixel(l.x_end(), l.y_end(), l.normalized()), color,
                      thickness, kLineType);
      break;
    }
    case RenderAnnotation::kText: {
      const auto& t = a.text();
      double height_px = t.font_height();
      if (t.normalized() && height_px <= 1.0) height_px *= image_.rows;
      const int font = std::clamp(t.font_face(), 0, 7);
      const int px = std::max(1, static_cast<int>(std::lround(height_px)));
      // Strokes as thick as a box's would smear small text into a blob.
      const int stroke = std::max(1, std::min(thickness, px / 8));
      const double scale = cv::getFontScaleFromHeight(font, px, stroke);
      cv::Point origin = ToPixel(t.left(), t.baseline(), t.normalized());
      const std::vector<std::string> lines =
          absl::StrSplit(t.display_text(), '\n');
      const int line_step = static_cast<int>(std::lround(px * 1.4)) + stroke;
      for (size_t i = 0; i < lines.size(); ++i) {
        int base = 0;
        const cv::Size size =
            cv::getTextSize(lines[i], font, scale, stroke, &base);
        cv::Point o(origin.x, origin.y + static_cast<int>(i) * line_step);
        if (t.center_horizontally()) o.x -= size.width / 2;
        if (t.center_vertically()) o.y += size.height / 2;
        cv::putText(image_, lines[i], o, font, scale, color, stroke, kLineType);
      }
      break;
    }
    case RenderAnnotation::DATA_NOT_SET:
      break;
  }
}

}  // namespace rill
