// RefineLandmarksFromHeatmapCalculator moves each landmark to the
// confidence-weighted centre of its heatmap around it, as MediaPipe's
// calculator of the same name (BlazePose's landmark graph):
//
//   node {
//     calculator: "RefineLandmarksFromHeatmapCalculator"
//     input_stream: "NORM_LANDMARKS:raw_landmarks"   # relative to the tensor
//     input_stream: "TENSORS:heatmap_tensor"         # [1, H, W, num_landmarks]
//     output_stream: "NORM_LANDMARKS:refined_landmarks"
//     options { [mediapipe.RefineLandmarksFromHeatmapCalculatorOptions.ext] {
//       kernel_size: 7 } }
//   }
//
// Heatmap values are logits (sigmoid gives the confidence). A landmark
// outside the heatmap, or whose window's best confidence is below
// min_confidence_to_refine, is left as it is.
#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/refine_landmarks_from_heatmap_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/tensor.h"

namespace rill {

class RefineLandmarksFromHeatmapCalculator : public CalculatorBase {
 public:
  using Options = RefineLandmarksFromHeatmapCalculatorOptions;

  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<Options>();
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("NORM_LANDMARKS").Set<NormalizedLandmarkList>();
    cc->Inputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    cc->Outputs().Tag("NORM_LANDMARKS").Set<NormalizedLandmarkList>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    o_ = cc->Options<Options>();
    if (o_.kernel_size() <= 0) {
      return absl::InvalidArgumentError(
          "RefineLandmarksFromHeatmapCalculatorOptions.kernel_size must be "
          "positive");
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("NORM_LANDMARKS").IsEmpty()) return absl::OkStatus();
    NormalizedLandmarkList out =
        cc->Inputs().Tag("NORM_LANDMARKS").Get<NormalizedLandmarkList>();
    if (!cc->Inputs().Tag("TENSORS").IsEmpty()) {
      const auto& tensors =
          cc->Inputs().Tag("TENSORS").Get<std::vector<Tensor>>();
      if (tensors.empty() ||
          tensors[0].element_type() != Tensor::ElementType::kFloat32) {
        return absl::InvalidArgumentError(
            "RefineLandmarksFromHeatmapCalculator: expected a float32 heatmap");
      }
      std::vector<int> d = tensors[0].shape().dims;
      if (d.size() == 4 && d[0] == 1) d.erase(d.begin());
      if (d.size() != 3 || d[2] != out.landmark_size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("RefineLandmarksFromHeatmapCalculator: heatmap ",
                         tensors[0].shape().DebugString(),
                         " does not have one channel per "
                         "landmark (",
                         out.landmark_size(), ")"));
      }
      Refine(tensors[0].data<float>(), d[0], d[1], d[2], &out);
    }
    cc->Outputs()
        .Tag("NORM_LANDMARKS")
        .AddPacket(MakePacket<NormalizedLandmarkList>(std::move(out))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  void Refine(const float* hm, int h, int w, int c,
              NormalizedLandmarkList* lms) const {
    const int half = (o_.kernel_size() - 1) / 2;
    for (int i = 0; i < lms->landmark_size(); ++i) {
      NormalizedLandmark* lm = lms->mutable_landmark(i);
      const int col = static_cast<int>(lm->x() * w);
      const int row = static_cast<int>(lm->y() * h);
      if (col < 0 || col >= w || row < 0 || row >= h) continue;
      float sum = 0, best = 0, wx = 0, wy = 0;
      for (int r = std::max(0, row - half); r <= std::min(h - 1, row + half);
           ++r) {
        for (int q = std::max(0, col - half); q <= std::min(w - 1, col + half);
             ++q) {
          const float conf =
              1.0f /
              (1.0f + std::exp(-hm[(static_cast<int64_t>(r) * w + q) * c + i]));
          sum += conf;
          best = std::max(best, conf);
          wx += q * conf;
          wy += r * conf;
        }
      }
      if (best >= o_.min_confidence_to_refine() && sum > 0) {
        lm->set_x(wx / sum / w);
        lm->set_y(wy / sum / h);
      }
      if (o_.refine_presence() && lm->has_presence()) lm->set_presence(best);
      if (o_.refine_visibility() && lm->has_visibility()) {
        lm->set_visibility(best);
      }
    }
  }

  Options o_;
};
REGISTER_CALCULATOR(RefineLandmarksFromHeatmapCalculator);

}  // namespace rill
