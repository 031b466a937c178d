#include "calculators/render/landmarks_to_render_data_calculator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/render_data.pb.h"

namespace rill {
namespace {

constexpr char kLandmarksTag[] = "LANDMARKS";
constexpr char kNormLandmarksTag[] = "NORM_LANDMARKS";
constexpr char kRenderScaleTag[] = "RENDER_SCALE";
constexpr char kRenderDataTag[] = "RENDER_DATA";

struct Point {
  float x, y, z;
  bool visible;
};

}  // namespace

absl::Status LandmarksToRenderDataCalculator::GetContract(
    CalculatorContract* cc) {
  const bool pixels = cc->Inputs().HasTag(kLandmarksTag);
  const bool norm = cc->Inputs().HasTag(kNormLandmarksTag);
  if (pixels == norm || !cc->Outputs().HasTag(kRenderDataTag)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LandmarksToRenderDataCalculator node \"", cc->GetNodeName(),
        "\" needs one LANDMARKS or NORM_LANDMARKS input stream and a "
        "RENDER_DATA output stream"));
  }
  if (pixels) cc->Inputs().Tag(kLandmarksTag).Set<LandmarkList>();
  if (norm) cc->Inputs().Tag(kNormLandmarksTag).Set<NormalizedLandmarkList>();
  if (cc->Inputs().HasTag(kRenderScaleTag)) {
    cc->Inputs().Tag(kRenderScaleTag).Set<float>();
  }
  cc->Outputs().Tag(kRenderDataTag).Set<RenderData>();
  const auto& options = cc->Options<LandmarksToRenderDataCalculatorOptions>();
  if (options.landmark_connections_size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LandmarksToRenderDataCalculator node \"", cc->GetNodeName(),
        "\": landmark_connections has an odd number of entries (",
        options.landmark_connections_size(), "); it lists pairs"));
  }
  cc->SetTimestampOffset(TimestampDiff(0));
  return absl::OkStatus();
}

absl::Status LandmarksToRenderDataCalculator::Open(CalculatorContext* cc) {
  options_ = cc->Options<LandmarksToRenderDataCalculatorOptions>();
  connections_.assign(options_.landmark_connections().begin(),
                      options_.landmark_connections().end());
  return absl::OkStatus();
}

absl::Status LandmarksToRenderDataCalculator::Process(CalculatorContext* cc) {
  std::vector<Point> points;
  bool normalized = false;
  auto visible = [&](const auto& l) {
    if (options_.utilize_visibility() && l.has_visibility() &&
        l.visibility() < options_.visibility_threshold()) {
      return false;
    }
    if (options_.utilize_presence() && l.has_presence() &&
        l.presence() < options_.presence_threshold()) {
      return false;
    }
    return true;
  };
  if (cc->Inputs().HasTag(kNormLandmarksTag)) {
    const auto& in = cc->Inputs().Tag(kNormLandmarksTag);
    if (in.IsEmpty()) return absl::OkStatus();
    normalized = true;
    for (const auto& l : in.Get<NormalizedLandmarkList>().landmark()) {
      points.push_back({l.x(), l.y(), l.z(), visible(l)});
    }
  } else {
    const auto& in = cc->Inputs().Tag(kLandmarksTag);
    if (in.IsEmpty()) return absl::OkStatus();
    for (const auto& l : in.Get<LandmarkList>().landmark()) {
      points.push_back({l.x(), l.y(), l.z(), visible(l)});
    }
  }
  float scale = 1.f;
  if (cc->Inputs().HasTag(kRenderScaleTag) &&
      !cc->Inputs().Tag(kRenderScaleTag).IsEmpty()) {
    scale = cc->Inputs().Tag(kRenderScaleTag).Get<float>();
  }
  const double thickness = options_.thickness() * scale;

  RenderData render_data;
  const int n = static_cast<int>(points.size());
  for (int i = 0; i + 1 < static_cast<int>(connections_.size()); i += 2) {
    const int a = connections_[i];
    const int b = connections_[i + 1];
    if (a < 0 || b < 0 || a >= n || b >= n) continue;
    if (!points[a].visible || !points[b].visible) continue;
    RenderAnnotation* ann = render_data.add_render_annotations();
    ann->set_thickness(thickness);
    *ann->mutable_color() = options_.connection_color();
    auto* line = ann->mutable_line();
    line->set_x_start(points[a].x);
    line->set_y_start(points[a].y);
    line->set_x_end(points[b].x);
    line->set_y_end(points[b].y);
    line->set_normalized(normalized);
  }
  if (options_.render_landmarks()) {
    float zmin = 0, zmax = 0;
    for (int i = 0; i < n; ++i) {
      zmin = i == 0 ? points[i].z : std::min(zmin, points[i].z);
      zmax = i == 0 ? points[i].z : std::max(zmax, points[i].z);
    }
    for (const Point& p : points) {
      if (!p.visible) continue;
      RenderAnnotation* ann = render_data.add_render_annotations();
      double t = thickness;
      if (options_.visualize_landmark_depth() && zmax > zmin) {
        // Nearer (smaller z) gets the thicker circle.
        const double f = (zmax - p.z) / (zmax - zmin);
        t = std::max(thickness,
                     options_.min_depth_circle_thickness() +
                         f *
                             (options_.max_depth_circle_thickness() -
                              options_.min_depth_circle_thickness()) *
                             scale / 4.0);
      }
      ann->set_thickness(t);
      *ann->mutable_color() = options_.landmark_color();
      auto* point = ann->mutable_point();
      point->set_x(p.x);
      point->set_y(p.y);
      point->set_normalized(normalized);
    }
  }
  cc->Outputs()
      .Tag(kRenderDataTag)
      .AddPacket(MakePacket<RenderData>(std::move(render_data))
                     .At(cc->InputTimestamp()));
  return absl::OkStatus();
}

REGISTER_CALCULATOR(LandmarksToRenderDataCalculator);

}  // namespace rill
