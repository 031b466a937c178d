// Small geometry helpers shared by the ROI calculators of this folder.
#ifndef RILL_CALCULATORS_UTIL_RECT_UTIL_H_
#define RILL_CALCULATORS_UTIL_RECT_UTIL_H_

#include <algorithm>
#include <cmath>

namespace rill {

// `angle` moved into [-pi, pi) by whole turns.
inline float NormalizeRadians(float angle) {
  return angle - 2 * M_PI * std::floor((angle - (-M_PI)) / (2 * M_PI));
}

// An axis-aligned box: top-left corner and size.
struct Box {
  float xmin = 0, ymin = 0, width = 0, height = 0;
  float xmax() const { return xmin + width; }
  float ymax() const { return ymin + height; }
  float Area() const { return width * height; }
};

// Intersection over union of two boxes; 0 when they do not meet (boxes that
// only touch meet with area 0) or when the union has no area. Boxes with a
// negative side are empty and meet nothing.
inline float BoxIou(const Box& a, const Box& b) {
  if (a.width < 0 || a.height < 0 || b.width < 0 || b.height < 0) return 0.f;
  const float x0 = std::max(a.xmin, b.xmin), y0 = std::max(a.ymin, b.ymin);
  const float x1 = std::min(a.xmax(), b.xmax());
  const float y1 = std::min(a.ymax(), b.ymax());
  if (x0 > x1 || y0 > y1) return 0.f;
  const float intersection = (x1 - x0) * (y1 - y0);
  const float normalization = a.Area() + b.Area() - intersection;
  return normalization > 0.f ? intersection / normalization : 0.f;
}

}  // namespace rill

#endif  // RILL_CALCULATORS_UTIL_RECT_UTIL_H_
