// LandmarksToRenderDataCalculator turns landmarks into RenderData: a point
// per landmark and a line per configured connection.
//
//   node {
//     calculator: "LandmarksToRenderDataCalculator"
//     input_stream: "NORM_LANDMARKS:landmarks"   # NormalizedLandmarkList
//     # or LANDMARKS: (LandmarkList, pixels)
//     input_stream: "RENDER_SCALE:scale"         # optional float: thickness x
//     output_stream: "RENDER_DATA:render_data"
//     options { [mediapipe.LandmarksToRenderDataCalculatorOptions.ext] {
//       landmark_connections: [0, 1, 1, 2]
//       landmark_color { r: 255 } connection_color { g: 255 } thickness: 2 } }
//   }
//
// Basic rendering: depth is shown only as point size when
// visualize_landmark_depth is set (nearer, i.e. smaller z, is larger), using
// min/max_depth_circle_thickness over the list's z range.
#ifndef RILL_CALCULATORS_RENDER_LANDMARKS_TO_RENDER_DATA_CALCULATOR_H_
#define RILL_CALCULATORS_RENDER_LANDMARKS_TO_RENDER_DATA_CALCULATOR_H_

#include <vector>

#include "calculators/render/landmarks_to_render_data_calculator.pb.h"
#include "framework/calculator_base.h"

namespace rill {

class LandmarksToRenderDataCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc);
  // Reads the options; the connections come from landmark_connections.
  // Subclasses that draw a fixed topology (FaceLandmarksToRenderData...)
  // set connections_ instead.
  absl::Status Open(CalculatorContext* cc) override;
  absl::Status Process(CalculatorContext* cc) override;

 protected:
  LandmarksToRenderDataCalculatorOptions options_;
  // Pairs of landmark indices to join: [a0, b0, a1, b1, ...].
  std::vector<int> connections_;
};

}  // namespace rill

#endif  // RILL_CALCULATORS_RENDER_LANDMARKS_TO_RENDER_DATA_CALCULATOR_H_
