// TensorsToLandmarksCalculator reads landmarks out of a landmark model's
// output tensor, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "TensorsToLandmarksCalculator"
//     input_stream: "TENSORS:landmark_tensors"      # std::vector<Tensor>
//     output_stream: "NORM_LANDMARKS:landmarks"    # NormalizedLandmarkList
//     output_stream: "LANDMARKS:pixel_landmarks"   # optional LandmarkList
//     options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
//       num_landmarks: 21 input_image_width: 224 input_image_height: 224 } }
//   }
//
// tensors[0] holds num_landmarks x D values (D = values per landmark: x, y,
// then z, visibility, presence as far as D goes), in the model input's
// pixels. NORM_LANDMARKS divides by the input size (z like x, then by
// normalize_z); LANDMARKS keeps pixels. FLIP_HORIZONTALLY /
// FLIP_VERTICALLY (bool, input stream or side packet) override the options.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_landmarks_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/landmark.pb.h"
#include "framework/formats/tensor.h"

namespace rill {

class TensorsToLandmarksCalculator : public CalculatorBase {
 public:
  using Options = TensorsToLandmarksCalculatorOptions;

  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    for (const char* tag : {"FLIP_HORIZONTALLY", "FLIP_VERTICALLY"}) {
      if (cc->Inputs().HasTag(tag)) cc->Inputs().Tag(tag).Set<bool>();
      if (cc->InputSidePackets().HasTag(tag)) {
        cc->InputSidePackets().Tag(tag).Set<bool>();
      }
    }
    const bool norm = cc->Outputs().HasTag("NORM_LANDMARKS");
    const bool pix = cc->Outputs().HasTag("LANDMARKS");
    if (!norm && !pix) {
      return absl::InvalidArgumentError(
          "TensorsToLandmarksCalculator needs a NORM_LANDMARKS or LANDMARKS "
          "output");
    }
    if (norm) cc->Outputs().Tag("NORM_LANDMARKS").Set<NormalizedLandmarkList>();
    if (pix) cc->Outputs().Tag("LANDMARKS").Set<LandmarkList>();
    const auto& o = cc->Options<Options>();
    if (o.num_landmarks() <= 0) {
      return absl::InvalidArgumentError(
          "TensorsToLandmarksCalculatorOptions.num_landmarks must be positive");
    }
    if (norm && (o.input_image_width() <= 0 || o.input_image_height() <= 0)) {
      return absl::InvalidArgumentError(
          "TensorsToLandmarksCalculatorOptions: NORM_LANDMARKS needs "
          "input_image_width and input_image_height");
    }
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    o_ = cc->Options<Options>();
    flip_h_ = o_.flip_horizontally();
    flip_v_ = o_.flip_vertically();
    if (cc->InputSidePackets().HasTag("FLIP_HORIZONTALLY")) {
      flip_h_ = cc->InputSidePackets().Tag("FLIP_HORIZONTALLY").Get<bool>();
    }
    if (cc->InputSidePackets().HasTag("FLIP_VERTICALLY")) {
      flip_v_ = cc->InputSidePackets().Tag("FLIP_VERTICALLY").Get<bool>();
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("TENSORS").IsEmpty()) return absl::OkStatus();
    if (cc->Inputs().HasTag("FLIP_HORIZONTALLY") &&
        !cc->Inputs().Tag("FLIP_HORIZONTALLY").IsEmpty()) {
      flip_h_ = cc->Inputs().Tag("FLIP_HORIZONTALLY").Get<bool>();
    }
    if (cc->Inputs().HasTag("FLIP_VERTICALLY") &&
        !cc->Inputs().Tag("FLIP_VERTICALLY").IsEmpty()) {
      flip_v_ = cc->Inputs().Tag("FLIP_VERTICALLY").Get<bool>();
    }
    const auto& tensors =
        cc->Inputs().Tag("TENSORS").Get<std::vector<Tensor>>();
    if (tensors.empty() ||
        tensors[0].element_type() != Tensor::ElementType::kFloat32) {
      return absl::InvalidArgumentError(
          "TensorsToLandmarksCalculator: expected a float32 tensor");
    }
    const Tensor& t = tensors[0];
    const int n = o_.num_landmarks();
    const int dims = t.num_elements() / n;
    if (dims < 2 || t.num_elements() % n != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToLandmarksCalculator: tensor ", t.shape().DebugString(),
          " (", t.num_elements(), " values) does not hold ", n,
          " landmarks of at least 2 values: does the model fit the graph?"));
    }
    const float* raw = t.data<float>();
    const float w = static_cast<float>(o_.input_image_width());
    const float h = static_cast<float>(o_.input_image_height());
    // Each list is built straight from the tensor (no pixel list converted
    // afterwards): a face mesh has 468 landmarks, each a heap message.
    if (cc->Outputs().HasTag("NORM_LANDMARKS")) {
      NormalizedLandmarkList norm;
      norm.mutable_landmark()->Reserve(n);
      for (int i = 0; i < n; ++i) {
        const float* v = raw + i * dims;
        NormalizedLandmark* nl = norm.add_landmark();
        nl->set_x((flip_h_ ? w - v[0] : v[0]) / w);
        nl->set_y((flip_v_ ? h - v[1] : v[1]) / h);
        nl->set_z((dims > 2 ? v[2] : 0.0f) / w / o_.normalize_z());
        if (dims > 3)
          nl->set_visibility(Activate(o_.visibility_activation(), v[3]));
        if (dims > 4)
          nl->set_presence(Activate(o_.presence_activation(), v[4]));
      }
      cc->Outputs()
          .Tag("NORM_LANDMARKS")
          .AddPacket(MakePacket<NormalizedLandmarkList>(std::move(norm))
                         .At(cc->InputTimestamp()));
    }
    if (cc->Outputs().HasTag("LANDMARKS")) {
      LandmarkList pixels;
      pixels.mutable_landmark()->Reserve(n);
      for (int i = 0; i < n; ++i) {
        const float* v = raw + i * dims;
        Landmark* lm = pixels.add_landmark();
        lm->set_x(flip_h_ ? w - v[0] : v[0]);
        lm->set_y(flip_v_ ? h - v[1] : v[1]);
        if (dims > 2) lm->set_z(v[2]);
        if (dims > 3)
          lm->set_visibility(Activate(o_.visibility_activation(), v[3]));
        if (dims > 4)
          lm->set_presence(Activate(o_.presence_activation(), v[4]));
      }
      cc->Outputs()
          .Tag("LANDMARKS")
          .AddPacket(MakePacket<LandmarkList>(std::move(pixels))
                         .At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }

 private:
  static float Activate(Options::Activation a, float v) {
    return a == Options::SIGMOID ? 1.0f / (1.0f + std::exp(-v)) : v;
  }

  Options o_;
  bool flip_h_ = false, flip_v_ = false;
};
REGISTER_CALCULATOR(TensorsToLandmarksCalculator);

}  // namespace rill
