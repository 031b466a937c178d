// TensorsToDetectionsCalculator decodes an SSD-style detector's raw outputs
// into detections, as MediaPipe's calculator of the same name:
//
//   node {
//     calculator: "TensorsToDetectionsCalculator"
//     input_stream: "TENSORS:detection_tensors"   # std::vector<Tensor>
//     input_side_packet: "ANCHORS:anchors"        # std::vector<Anchor>
//     output_stream: "DETECTIONS:detections"      # std::vector<Detection>
//     options { [mediapipe.TensorsToDetectionsCalculatorOptions.ext] {
//       num_classes: 1 num_boxes: 896 num_coords: 16 ... } }
//   }
//
// Inputs: tensors[0] the boxes [1, num_boxes, num_coords], tensors[1] the
// class scores [1, num_boxes, num_classes], and optionally tensors[2] the
// anchors [num_boxes, 4] (yc, xc, h, w) instead of the ANCHORS side packet.
// Four tensors mean a model with built-in post-processing: boxes
// [1, N, 4] (ymin, xmin, ymax, xmax), classes [1, N], scores [1, N] and the
// count [1].
//
// Each box's score is its best class's (sigmoid of the clipped logit with
// sigmoid_score); boxes at or above min_score_thresh become detections with a
// relative bounding box and keypoints, coordinates relative to the tensor.
// The output is sent even when empty, so downstream sees every frame.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/tensor/anchor.pb.h"
#include "calculators/tensor/tensors_to_detections_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"
#include "framework/formats/tensor.h"

namespace rill {
namespace {

constexpr char kTensorsTag[] = "TENSORS";
constexpr char kAnchorsTag[] = "ANCHORS";
constexpr char kDetectionsTag[] = "DETECTIONS";

using Options = TensorsToDetectionsCalculatorOptions;

}  // namespace

class TensorsToDetectionsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<Options>();
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    cc->Inputs().Tag(kTensorsTag).Set<std::vector<Tensor>>();
    if (cc->InputSidePackets().HasTag(kAnchorsTag)) {
      cc->InputSidePackets().Tag(kAnchorsTag).Set<std::vector<Anchor>>();
    }
    cc->Outputs().Tag(kDetectionsTag).Set<std::vector<Detection>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    o_ = cc->Options<Options>();
    if (o_.num_boxes() <= 0 || o_.num_classes() <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToDetectionsCalculatorOptions: num_boxes (", o_.num_boxes(),
          ") and num_classes (", o_.num_classes(), ") must be positive"));
    }
    if (o_.ignore_classes_size() > 0 && o_.allow_classes_size() > 0) {
      return absl::InvalidArgumentError(
          "TensorsToDetectionsCalculatorOptions: ignore_classes and "
          "allow_classes are mutually exclusive");
    }
    format_ = o_.box_format();
    if (format_ == Options::UNSPECIFIED) {
      format_ = o_.reverse_output_order() ? Options::XYWH : Options::YXHW;
    }
    if (o_.num_coords() < o_.box_coord_offset() + 4) {
      return absl::InvalidArgumentError(
          "TensorsToDetectionsCalculatorOptions: num_coords is too small for "
          "a box");
    }
    if (o_.num_keypoints() > 0 &&
        o_.keypoint_coord_offset() +
                o_.num_keypoints() * o_.num_values_per_keypoint() >
            o_.num_coords()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToDetectionsCalculatorOptions: ", o_.num_keypoints(),
          " keypoints from offset ", o_.keypoint_coord_offset(),
          " do not fit num_coords ", o_.num_coords()));
    }
    for (int c : o_.ignore_classes()) ignore_.insert(c);
    for (int c : o_.allow_classes()) allow_.insert(c);
    if (cc->InputSidePackets().HasTag(kAnchorsTag) &&
        !cc->InputSidePackets().Tag(kAnchorsTag).IsEmpty()) {
      anchors_ =
          cc->InputSidePackets().Tag(kAnchorsTag).Get<std::vector<Anchor>>();
      if (static_cast<int>(anchors_.size()) != o_.num_boxes()) {
        return absl::InvalidArgumentError(
            absl::StrCat("TensorsToDetectionsCalculator: ", anchors_.size(),
                         " anchors but num_boxes is ", o_.num_boxes()));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Tag(kTensorsTag).IsEmpty()) return absl::OkStatus();
    const auto& tensors =
        cc->Inputs().Tag(kTensorsTag).Get<std::vector<Tensor>>();
    std::vector<Detection> detections;
    if (tensors.size() == 4 && !o_.has_tensor_mapping()) {
      RILL_RETURN_IF_ERROR(DecodePostprocessed(tensors, &detections));
    } else {
      RILL_RETURN_IF_ERROR(DecodeRaw(tensors, &detections));
    }
    cc->Outputs()
        .Tag(kDetectionsTag)
        .AddPacket(MakePacket<std::vector<Detection>>(std::move(detections))
                       .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  bool ClassAllowed(int c) const {
    if (!allow_.empty()) return allow_.count(c) > 0;
    return ignore_.count(c) == 0;
  }

  static absl::Status CheckFloat(const Tensor& t, const char* what,
                                 int64_t elements) {
    if (t.element_type() != Tensor::ElementType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToDetectionsCalculator: the ", what, " tensor is ",
          Tensor::ElementTypeName(t.element_type()), ", expected float32"));
    }
    if (elements >= 0 && t.num_elements() != elements) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToDetectionsCalculator: the ", what, " tensor has shape ",
          t.shape().DebugString(), " (", t.num_elements(),
          " values) but the options want ", elements,
          " (num_boxes x num_coords / num_classes): does the model fit the "
          "graph?"));
    }
    return absl::OkStatus();
  }

  absl::Status DecodeRaw(const std::vector<Tensor>& tensors,
                         std::vector<Detection>* out) {
    int box_i = 0, score_i = 1, anchor_i = 2;
    if (o_.has_tensor_mapping()) {
      box_i = o_.tensor_mapping().detections_tensor_index();
      score_i = o_.tensor_mapping().scores_tensor_index();
      anchor_i = o_.tensor_mapping().has_anchors_tensor_index()
                     ? o_.tensor_mapping().anchors_tensor_index()
                     : -1;
    }
    const int n = static_cast<int>(tensors.size());
    if (n < 2 || box_i >= n || score_i >= n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorsToDetectionsCalculator: expected box and score tensors, got ",
          n, " tensors"));
    }
    const int num_boxes = o_.num_boxes(), num_coords = o_.num_coords();
    const int num_classes = o_.num_classes();
    RILL_RETURN_IF_ERROR(
        CheckFloat(tensors[box_i], "box", int64_t{num_boxes} * num_coords));
    RILL_RETURN_IF_ERROR(CheckFloat(tensors[score_i], "score",
                                    int64_t{num_boxes} * num_classes));
    const std::vector<Anchor>* anchors = &anchors_;
    if (anchor_i >= 0 && anchor_i < n) {
      RILL_RETURN_IF_ERROR(
          CheckFloat(tensors[anchor_i], "anchor", int64_t{num_boxes} * 4));
      tensor_anchors_.resize(num_boxes);
      const float* a = tensors[anchor_i].data<float>();
      for (int i = 0; i < num_boxes; ++i) {
        tensor_anchors_[i].set_y_center(a[i * 4 + 0]);
        tensor_anchors_[i].set_x_center(a[i * 4 + 1]);
        tensor_anchors_[i].set_h(a[i * 4 + 2]);
        tensor_anchors_[i].set_w(a[i * 4 + 3]);
      }
      anchors = &tensor_anchors_;
    }
    if (static_cast<int>(anchors->size()) != num_boxes) {
      return absl::InvalidArgumentError(
          "TensorsToDetectionsCalculator: no anchors (give the ANCHORS side "
          "packet or an anchors tensor)");
    }
    const float* raw = tensors[box_i].data<float>();
    const float* scores = tensors[score_i].data<float>();
    const float clip = o_.score_clipping_thresh();
    for (int i = 0; i < num_boxes; ++i) {
      if (o_.max_results() >= 0 &&
          static_cast<int>(out->size()) >= o_.max_results()) {
        break;
      }
      float best = -std::numeric_limits<float>::infinity();
      int best_class = -1;
      for (int c = 0; c < num_classes; ++c) {
        if (!ClassAllowed(c)) continue;
        float s = scores[i * num_classes + c];
        if (o_.has_score_clipping_thresh())
          s = std::min(clip, std::max(-clip, s));
        if (o_.sigmoid_score()) s = 1.0f / (1.0f + std::exp(-s));
        if (s > best) {
          best = s;
          best_class = c;
        }
      }
      if (best_class < 0 || best < o_.min_score_thresh()) continue;
      const float* r = raw + static_cast<int64_t>(i) * num_coords;
      const Anchor& a = (*anchors)[i];
      float xmin, ymin, xmax, ymax;
      const int b = o_.box_coord_offset();
      if (format_ == Options::XYXY) {
        const auto& bi = o_.box_boundaries_indices();
        xmin = r[b + bi.xmin()] / o_.x_scale() * a.w() + a.x_center();
        ymin = r[b + bi.ymin()] / o_.y_scale() * a.h() + a.y_center();
        xmax = r[b + bi.xmax()] / o_.x_scale() * a.w() + a.x_center();
        ymax = r[b + bi.ymax()] / o_.y_scale() * a.h() + a.y_center();
      } else {
        float yc, xc, h, w;
        if (format_ == Options::YXHW) {
          yc = r[b], xc = r[b + 1], h = r[b + 2], w = r[b + 3];
        } else {
          xc = r[b], yc = r[b + 1], w = r[b + 2], h = r[b + 3];
        }
        xc = xc / o_.x_scale() * a.w() + a.x_center();
        yc = yc / o_.y_scale() * a.h() + a.y_center();
        if (o_.apply_exponential_on_box_size()) {
          h = std::exp(h / o_.h_scale()) * a.h();
          w = std::exp(w / o_.w_scale()) * a.w();
        } else {
          h = h / o_.h_scale() * a.h();
          w = w / o_.w_scale() * a.w();
        }
        xmin = xc - w / 2, xmax = xc + w / 2;
        ymin = yc - h / 2, ymax = yc + h / 2;
      }
      if (!(xmin < xmax) || !(ymin < ymax)) continue;  // degenerate box
      Detection d = MakeDetection(best, best_class, xmin, ymin, xmax, ymax);
      auto* loc = d.mutable_location_data();
      for (int k = 0; k < o_.num_keypoints(); ++k) {
        const float* kp =
            r + o_.keypoint_coord_offset() + k * o_.num_values_per_keypoint();
        float kx, ky;
        if (format_ == Options::YXHW) {
          ky = kp[0], kx = kp[1];
        } else {
          kx = kp[0], ky = kp[1];
        }
        kx = kx / o_.x_scale() * a.w() + a.x_center();
        ky = ky / o_.y_scale() * a.h() + a.y_center();
        auto* p = loc->add_relative_keypoints();
        p->set_x(kx);
        p->set_y(o_.flip_vertically() ? 1.0f - ky : ky);
      }
      out->push_back(std::move(d));
    }
    return absl::OkStatus();
  }

  absl::Status DecodePostprocessed(const std::vector<Tensor>& tensors,
                                   std::vector<Detection>* out) {
    for (int i = 0; i < 4; ++i) {
      RILL_RETURN_IF_ERROR(CheckFloat(tensors[i], "post-processed", -1));
    }
    const int n = static_cast<int>(tensors[2].num_elements());
    if (tensors[0].num_elements() < int64_t{n} * 4 ||
        tensors[1].num_elements() < n || tensors[3].num_elements() < 1) {
      return absl::InvalidArgumentError(
          "TensorsToDetectionsCalculator: post-processed tensors (boxes, "
          "classes, scores, count) have inconsistent sizes");
    }
    const float* boxes = tensors[0].data<float>();
    const float* classes = tensors[1].data<float>();
    const float* scores = tensors[2].data<float>();
    const int count =
        std::min(n, static_cast<int>(tensors[3].data<float>()[0]));
    for (int i = 0; i < count; ++i) {
      if (o_.max_results() >= 0 &&
          static_cast<int>(out->size()) >= o_.max_results()) {
        break;
      }
      const int c = static_cast<int>(classes[i]);
      if (!ClassAllowed(c) || scores[i] < o_.min_score_thresh()) continue;
      const float* b = boxes + i * 4;
      out->push_back(MakeDetection(scores[i], c, b[1], b[0], b[3], b[2]));
    }
    return absl::OkStatus();
  }

  Detection MakeDetection(float score, int label, float xmin, float ymin,
                          float xmax, float ymax) const {
    Detection d;
    d.add_score(score);
    d.add_label_id(label);
    auto* loc = d.mutable_location_data();
    loc->set_format(LocationData::RELATIVE_BOUNDING_BOX);
    auto* box = loc->mutable_relative_bounding_box();
    box->set_xmin(xmin);
    box->set_ymin(o_.flip_vertically() ? 1.0f - ymax : ymin);
    box->set_width(xmax - xmin);
    box->set_height(ymax - ymin);
    return d;
  }

  Options o_;
  Options::BoxFormat format_ = Options::YXHW;
  std::unordered_set<int> ignore_, allow_;
  std::vector<Anchor> anchors_, tensor_anchors_;
};
REGISTER_CALCULATOR(TensorsToDetectionsCalculator);

}  // namespace rill
