// NonMaxSuppressionCalculator keeps the best of overlapping detections.
// Inputs: `num_detection_streams` untagged streams of std::vector<Detection>
// (pooled); output: the kept std::vector<Detection>.
//
// DEFAULT: in order of score, a detection is kept unless it overlaps a kept
// one by more than min_suppression_threshold.
// WEIGHTED: the best detection and all that overlap it by more than the
// threshold form a cluster; the output is the best one with its box and
// keypoints replaced by the score-weighted mean over the cluster (relative
// boxes only). It steadies boxes from frame to frame.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "calculators/detection/non_max_suppression_calculator.pb.h"
#include "framework/calculator_base.h"
#include "framework/formats/detection.pb.h"

namespace rill {
namespace {

struct Box {
  float xmin, ymin, xmax, ymax;
  float Area() const {
    return std::max(0.0f, xmax - xmin) * std::max(0.0f, ymax - ymin);
  }
};

Box BoxOf(const Detection& d) {
  const LocationData& l = d.location_data();
  if (l.format() == LocationData::BOUNDING_BOX ||
      (!l.has_relative_bounding_box() && l.has_bounding_box())) {
    const auto& b = l.bounding_box();
    return {static_cast<float>(b.xmin()), static_cast<float>(b.ymin()),
            static_cast<float>(b.xmin() + b.width()),
            static_cast<float>(b.ymin() + b.height())};
  }
  const auto& b = l.relative_bounding_box();
  return {b.xmin(), b.ymin(), b.xmin() + b.width(), b.ymin() + b.height()};
}

// How much `candidate` is covered by `kept`, by the chosen measure.
float Overlap(NonMaxSuppressionCalculatorOptions::OverlapType type,
              const Box& kept, const Box& candidate) {
  const float iw =
      std::min(kept.xmax, candidate.xmax) - std::max(kept.xmin, candidate.xmin);
  const float ih =
      std::min(kept.ymax, candidate.ymax) - std::max(kept.ymin, candidate.ymin);
  if (iw <= 0 || ih <= 0) return 0.0f;
  const float inter = iw * ih;
  float norm;
  switch (type) {
    case NonMaxSuppressionCalculatorOptions::MODIFIED_JACCARD:
      norm = candidate.Area();
      break;
    default:  // JACCARD, INTERSECTION_OVER_UNION
      norm = kept.Area() + candidate.Area() - inter;
      break;
  }
  return norm > 0 ? inter / norm : 0.0f;
}

float ScoreOf(const Detection& d) {
  return d.score_size() > 0 ? d.score(0) : 0.0f;
}

}  // namespace

class NonMaxSuppressionCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    // Outputs at the input timestamp or not at all. Process also runs on
    // bound-only changes so that an absent input (no face, a gated tensor)
    // advances this node's outputs at once: a live graph must not wait.
    cc->SetTimestampOffset(TimestampDiff(0));
    cc->SetProcessTimestampBounds(true);
    const auto& options = cc->Options<NonMaxSuppressionCalculatorOptions>();
    if (options.num_detection_streams() != cc->Inputs().NumEntries()) {
      return absl::InvalidArgumentError(
          absl::StrCat("NonMaxSuppressionCalculator: num_detection_streams is ",
                       options.num_detection_streams(), " but the node has ",
                       cc->Inputs().NumEntries(), " input streams"));
    }
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      cc->Inputs().Index(i).Set<std::vector<Detection>>();
    }
    cc->Outputs().Index(0).Set<std::vector<Detection>>();
    return absl::OkStatus();
  }

  absl::Status Open(CalculatorContext* cc) override {
    options_ = cc->Options<NonMaxSuppressionCalculatorOptions>();
    if (options_.overlap_type() ==
        NonMaxSuppressionCalculatorOptions::UNSPECIFIED_OVERLAP_TYPE) {
      return absl::InvalidArgumentError(
          "NonMaxSuppressionCalculatorOptions.overlap_type is unspecified");
    }
    return absl::OkStatus();
  }

  absl::Status Process(CalculatorContext* cc) override {
    std::vector<Detection> input;
    bool any_packet = false;
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      if (cc->Inputs().Index(i).IsEmpty()) continue;
      any_packet = true;
      const auto& v = cc->Inputs().Index(i).Get<std::vector<Detection>>();
      input.insert(input.end(), v.begin(), v.end());
    }
    // A bound-only call (no input packet) outputs nothing, even with
    // return_empty_detections.
    if (!any_packet) return absl::OkStatus();
    std::vector<Detection> kept;
    if (!input.empty()) {
      for (const Detection& d : input) {
        if (d.score_size() == 0) {
          return absl::InvalidArgumentError(
              "NonMaxSuppressionCalculator: a detection has no score");
        }
      }
      // Indices in order of descending score (stable: ties keep input order).
      std::vector<int> order(input.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return ScoreOf(input[a]) > ScoreOf(input[b]);
      });
      const int max_out = options_.max_num_detections() < 0
                              ? static_cast<int>(input.size())
                              : options_.max_num_detections();
      if (options_.algorithm() ==
          NonMaxSuppressionCalculatorOptions::WEIGHTED) {
        Weighted(input, order, max_out, &kept);
      } else {
        Default(input, order, max_out, &kept);
      }
    }
    if (kept.empty() && !options_.return_empty_detections()) {
      return absl::OkStatus();
    }
    cc->Outputs().Index(0).AddPacket(
        MakePacket<std::vector<Detection>>(std::move(kept))
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  void Default(const std::vector<Detection>& input,
               const std::vector<int>& order, int max_out,
               std::vector<Detection>* kept) const {
    std::vector<Box> kept_boxes;
    for (int idx : order) {
      if (static_cast<int>(kept->size()) >= max_out) break;
      if (ScoreOf(input[idx]) < options_.min_score_threshold()) break;
      const Box box = BoxOf(input[idx]);
      bool suppressed = false;
      for (const Box& k : kept_boxes) {
        if (Overlap(options_.overlap_type(), k, box) >
            options_.min_suppression_threshold()) {
          suppressed = true;
          break;
        }
      }
      if (suppressed) continue;
      kept_boxes.push_back(box);
      kept->push_back(input[idx]);
    }
  }

  void Weighted(const std::vector<Detection>& input, std::vector<int> remaining,
                int max_out, std::vector<Detection>* kept) const {
    while (!remaining.empty() && static_cast<int>(kept->size()) < max_out) {
      const Detection& best = input[remaining[0]];
      if (ScoreOf(best) < options_.min_score_threshold()) break;
      const Box best_box = BoxOf(best);
      std::vector<int> cluster, rest;
      for (int idx : remaining) {
        const float overlap =
            Overlap(options_.overlap_type(), best_box, BoxOf(input[idx]));
        (overlap > options_.min_suppression_threshold() ? cluster : rest)
            .push_back(idx);
      }
      // The best box always belongs to its own cluster; guard against a
      // degenerate (empty) box that overlaps nothing, itself included.
      if (cluster.empty() || cluster[0] != remaining[0]) {
        cluster.insert(cluster.begin(), remaining[0]);
        rest.erase(std::remove(rest.begin(), rest.end(), remaining[0]),
                   rest.end());
      }
      Detection out = best;
      const int num_kp = best.location_data().relative_keypoints_size();
      float total = 0, xmin = 0, ymin = 0, xmax = 0, ymax = 0;
      std::vector<float> kx(num_kp, 0.0f), ky(num_kp, 0.0f);
      for (int idx : cluster) {
        const float s = ScoreOf(input[idx]);
        const Box b = BoxOf(input[idx]);
        total += s;
        xmin += b.xmin * s;
        ymin += b.ymin * s;
        xmax += b.xmax * s;
        ymax += b.ymax * s;
        const auto& kps = input[idx].location_data().relative_keypoints();
        for (int k = 0; k < num_kp && k < kps.size(); ++k) {
          kx[k] += kps[k].x() * s;
          ky[k] += kps[k].y() * s;
        }
      }
      if (total > 0) {
        auto* box =
            out.mutable_location_data()->mutable_relative_bounding_box();
        box->set_xmin(xmin / total);
        box->set_ymin(ymin / total);
        box->set_width((xmax - xmin) / total);
        box->set_height((ymax - ymin) / total);
        for (int k = 0; k < num_kp; ++k) {
          auto* kp = out.mutable_location_data()->mutable_relative_keypoints(k);
          kp->set_x(kx[k] / total);
          kp->set_y(ky[k] / total);
        }
      }
      kept->push_back(std::move(out));
      remaining = std::move(rest);
    }
  }

  NonMaxSuppressionCalculatorOptions options_;
};
REGISTER_CALCULATOR(NonMaxSuppressionCalculator);

}  // namespace rill
