// TensorsToSegmentationCalculator turns a segmentation model's output tensor
// into a mask image, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "TensorsToSegmentationCalculator"
//     input_stream: "TENSORS:segmentation_tensor"  # std::vector<Tensor>
//     input_stream: "OUTPUT_SIZE:size"   # optional std::pair<int, int> (w, h)
//     output_stream: "MASK:mask"         # Image holding a VEC32F1 ImageFrame
//     options { [mediapipe.TensorsToSegmentationCalculatorOptions.ext] {
//       activation: NONE } }
//   }
//
// tensors[0] is [1, H, W, C] (or [H, W, C]). NONE and SIGMOID read channel 0;
// SOFTMAX needs two channels and keeps the probability of
// output_layer_index. The mask is a float image in [0, 1] (for NONE, whatever
// the model outputs) at the tensor's size, or bilinearly resized to
// OUTPUT_SIZE.
#include <cmath>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/tensors_to_segmentation_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/image.h"
#include "framework/formats/image_frame.h"
#include "framework/formats/image_frame_opencv.h"
#include "framework/formats/tensor.h"

namespace rill {

class TensorsToSegmentationCalculator : public CalculatorBase {
 public:
  using Options = TensorsToSegmentationCalculatorOptions;

  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<Options>();
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag("TENSORS").Set<std::vector<Tensor>>();
    if (cc->Inputs().HasTag("OUTPUT_SIZE")) {
      cc->Inputs().Tag("OUTPUT_SIZE").Set<std::pair<int, int>>();
    }
    cc->Outputs().Tag("MASK").Set<Image>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<Options>();
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag("TENSORS").IsEmpty()) return absl::OkStatus();
    const auto& tensors =
        cc->Inputs().Tag("TENSORS").Get<std::vector<Tensor>>();
    if (tensors.empty()) {
      return absl::InvalidArgumentError(
          "TensorsToSegmentationCalculator: no tensor in TENSORS");
    }
    const Tensor& t = tensors[0];
    std::vector<int> dims = t.shape().dims;
    if (dims.size() == 4 && dims[0] == 1) dims.erase(dims.begin());
    if (dims.size() == 2) dims.push_back(1);
    if (dims.size() != 3 || t.element_type() != Tensor::ElementType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToSegmentationCalculator: expected a float32 [1,H,W,C] "
          "tensor, got ",
          t.DebugString()));
    }
    const int h = dims[0], w = dims[1], c = dims[2];
    const auto act = options_.activation();
    if (act == Options::SOFTMAX && c != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToSegmentationCalculator: SOFTMAX needs 2 channels, the "
          "tensor has ",
          c));
    }
    if (act == Options::SOFTMAX && (options_.output_layer_index() < 0 ||
                                    options_.output_layer_index() > 1)) {
      return absl::InvalidArgumentError(
          "TensorsToSegmentationCalculator: output_layer_index must be 0 or 1");
    }
    cv::Mat small(h, w, CV_32FC1);
    const float* src = t.data<float>();
    const int layer = options_.output_layer_index();
    for (int y = 0; y < h; ++y) {
      float* row = small.ptr<float>(y);
      for (int x = 0; x < w; ++x) {
        const float* px = src + (static_cast<int64_t>(y) * w + x) * c;
        float v;
        switch (act) {
          case Options::SIGMOID:
            v = 1.0f / (1.0f + std::exp(-px[0]));
            break;
          case Options::SOFTMAX: {
            const float m = std::max(px[0], px[1]);
            const float e0 = std::exp(px[0] - m), e1 = std::exp(px[1] - m);
            v = (layer == 0 ? e0 : e1) / (e0 + e1);
            break;
          }
          default:
            v = px[0];
        }
        row[x] = v;
      }
    }
    int out_w = w, out_h = h;
    if (cc->Inputs().HasTag("OUTPUT_SIZE") &&
        !cc->Inputs().Tag("OUTPUT_SIZE").IsEmpty()) {
      const auto& size =
          cc->Inputs().Tag("OUTPUT_SIZE").Get<std::pair<int, int>>();
      if (size.first <= 0 || size.second <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("TensorsToSegmentationCalculator: OUTPUT_SIZE ",
                         size.first, "x", size.second, " is empty"));
      }
      out_w = size.first;
      out_h = size.second;
    }
    ImageFrame mask(ImageFormat::VEC32F1, out_w, out_h);
    cv::Mat view = formats::MatView(&mask);
    if (out_w == w && out_h == h) {
      small.copyTo(view);
    } else {
      cv::resize(small, view, view.size(), 0, 0, cv::INTER_LINEAR);
    }
    cc->Outputs().Tag("MASK").AddPacket(
        MakePacket<Image>(std::move(mask)).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  Options options_;
};
REGISTER_CALCULATOR(TensorsToSegmentationCalculator);

}  // namespace rill
